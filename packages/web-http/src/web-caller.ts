import { createHash } from 'node:crypto'
import { type Caller, type CoreDeps, requestScope } from '@quire/core'
import type { Visitor } from '@quire/pages'
import type { FastifyRequest } from 'fastify'
import type { WebSession } from './web-session.ts'

/**
 * The caller a page acts as: the signed-in person's session (the same principal the API would
 * resolve from the cookie's secret), or anonymous. Pages go through the same use-cases and the
 * same `decide()` as the API; there is no second authorization path.
 */
export function webCaller(request: FastifyRequest): Caller {
  const session = request.session
  if (session === null) return { credential: null, surface: 'web', requestId: request.id }
  return { credential: { secretHash: sha256Hex(session.secret), sessionCookie: true }, surface: 'web', requestId: request.id }
}

/** Each request's view of the stores, made on first use. */
const scopes = new WeakMap<FastifyRequest, CoreDeps>()

/**
 * The stores as this request sees them (core's `requestScope`): the session hook and every
 * operation a page runs share what they load, so a page loads its credential and its artifact
 * once however many operations it shows.
 */
export function webDeps(deps: CoreDeps, request: FastifyRequest): CoreDeps {
  let scoped = scopes.get(request)
  if (scoped === undefined) {
    scoped = requestScope(deps)
    scopes.set(request, scoped)
  }
  return scoped
}

/** The caller a secret in the URL makes (a share link's token): presented like a bearer token. */
export function tokenCaller(request: FastifyRequest, token: string): Caller {
  return { credential: { secretHash: sha256Hex(token) }, surface: 'web', requestId: request.id }
}

function sha256Hex(secret: string): string {
  return createHash('sha256').update(secret).digest('hex')
}

/** Who is signed in, as a page's header shows them (with the token its sign-out form sends). */
export function visitorFrom(session: WebSession): Visitor {
  return { email: session.user.email, username: session.user.username, csrfToken: session.csrfToken }
}

/** The signed-in person behind a request, for the header of a page that is not shared between readers; null when signed out. */
export function visitorOf(request: FastifyRequest): Visitor | null {
  return request.session ? visitorFrom(request.session) : null
}
