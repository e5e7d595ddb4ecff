import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'

const requestIdPattern = /^[A-Za-z0-9._:-]{8,128}$/

/** A request's id: the caller's `X-Request-Id` when well-formed (to follow a call across services), else a fresh UUID. */
export function requestIdOf(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id']
  return typeof incoming === 'string' && requestIdPattern.test(incoming) ? incoming : randomUUID()
}
