import { hash } from 'node:crypto'
import type { Caller, Surface } from '@quire/core'
import type { FastifyRequest } from 'fastify'

const clientSurfaces: Record<string, Surface> = { cli: 'cli', mcp: 'mcp', web: 'web' }

/** Worked out once per request: the rate limiter and the handler both ask. */
const callers = new WeakMap<FastifyRequest, Caller>()

/**
 * Who is calling: the bearer secret, hashed at once (the secret never goes further), and the
 * surface the client declares in `Quire-Client` (informational, for the audit trail).
 * A malformed Authorization header counts as a credential that matches nothing.
 */
export function callerOf(request: FastifyRequest): Caller {
  let caller = callers.get(request)
  if (caller === undefined) {
    caller = readCaller(request)
    callers.set(request, caller)
  }
  return caller
}

function readCaller(request: FastifyRequest): Caller {
  const header = request.headers.authorization
  const surfaceHeader = request.headers['quire-client']
  const surface = (typeof surfaceHeader === 'string' && clientSurfaces[surfaceHeader.split('/')[0] ?? '']) || 'api'
  if (header === undefined) return { credential: null, surface, requestId: request.id }
  const match = /^Bearer[ ]+([\x21-\x7e]+)[ ]*$/i.exec(header)
  const secret = match?.[1] ?? header
  return { credential: { secretHash: hash('sha256', secret, 'hex') }, surface, requestId: request.id }
}
