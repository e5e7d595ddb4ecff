import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { FastifyInstance } from 'fastify'

const requestIdPattern = /^[A-Za-z0-9._:-]{8,128}$/

/** A request's id: the caller's `X-Request-Id` when well-formed (to follow a call across services), else a fresh UUID. */
export function requestIdOf(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id']
  return typeof incoming === 'string' && requestIdPattern.test(incoming) ? incoming : randomUUID()
}

/**
 * Every response carries its request's id, whatever answers it (a route, the docs, a preflight,
 * a refusal), and so does every log line of the request (Fastify's `reqId`).
 */
export function echoRequestId(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id)
    done()
  })
}
