import { signInPath } from '@quire/pages'
import type { WebSession } from '@quire/web-http'
import type { FastifyReply, FastifyRequest } from 'fastify'

/** The account pages are for the signed-in person only, and name them: no cache keeps them. */

/** The signed-in person; else the request is sent to sign in (303), to come back to `returnTo`, and null. */
export function signedIn(request: FastifyRequest, reply: FastifyReply, returnTo: string = request.url): WebSession | null {
  if (request.session) return request.session
  reply.redirect(signInPath(returnTo), 303)
  return null
}

/** Sends a settings page: it names the person and carries their CSRF token, so no cache keeps it. */
export function sendPage(reply: FastifyReply, page: string, status = 200): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(page)
}
