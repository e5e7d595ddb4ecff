import type { FastifyReply } from 'fastify'

/** Form pages carry the person's CSRF token and unsaved text: nothing may keep them. */
export function sendFormPage(reply: FastifyReply, status: number, page: string): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(page)
}
