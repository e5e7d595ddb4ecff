import { createHash } from 'node:crypto'
import type { Caller } from '@quire/core'
import type { FastifyRequest } from 'fastify'

/**
 * The caller a page acts as: the signed-in person's session (the same principal the API would
 * resolve from the cookie's secret), or anonymous. Pages go through the same use-cases and the
 * same `decide()` as the API; there is no second authorization path.
 */
export function webCaller(request: FastifyRequest): Caller {
  const session = request.session
  if (session === null) return { credential: null, surface: 'web', requestId: request.id }
  const secretHash = createHash('sha256').update(session.secret).digest('hex')
  return { credential: { secretHash, sessionCookie: true }, surface: 'web', requestId: request.id }
}
