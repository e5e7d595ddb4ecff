import { hash } from 'node:crypto'
import type { Caller, Surface } from '@quire/core'
import type { FastifyInstance, FastifyRequest } from 'fastify'

const clientSurfaces: Record<string, Surface> = { cli: 'cli', mcp: 'mcp', web: 'web' }

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller, once worked out, where the app keeps it (`keepCallers`); undefined elsewhere. */
    quireCaller?: Caller | null
  }
}

/**
 * Lets every request of `app` keep its caller once worked out, where more than one part asks (the
 * rate limiter, then the handler). A decorated property, so every request has the same shape.
 */
export function keepCallers(app: FastifyInstance): void {
  if (!app.hasRequestDecorator('quireCaller')) app.decorateRequest('quireCaller', null)
}

/**
 * Who is calling: the bearer secret, hashed at once (the secret never goes further), and the
 * surface the client declares in `Quire-Client` (informational, for the audit trail).
 * A malformed Authorization header counts as a credential that matches nothing.
 */
export function callerOf(request: FastifyRequest): Caller {
  const kept = request.quireCaller
  if (kept) return kept
  const caller = readCaller(request)
  if (kept === null) request.quireCaller = caller
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
