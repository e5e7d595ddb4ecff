import type { FastifyReply } from 'fastify'

/**
 * After a form went through: back to a page (Post/Redirect/Get), whose path (from `webRoutes`,
 * with `notice` in its query) names the notice the page shows.
 */
export function redirectWithNotice(reply: FastifyReply, to: string): FastifyReply {
  return reply.redirect(to, 303)
}
