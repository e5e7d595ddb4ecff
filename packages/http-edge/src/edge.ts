import type { FastifyInstance } from 'fastify'
import { sendFailure } from './problem.ts'
import { securityHeaders } from './security.ts'

/**
 * The first thing every request meets, in one hook (each hook costs every request): the security
 * headers and the request's id on whatever answers it (a route, the docs, a preflight, a refusal),
 * and, while the server drains, a problem+json 503 `service_unavailable` instead of Fastify's own
 * non-problem body (`return503OnClosing` is off for that reason). Every log line of the request
 * carries the same id (Fastify's `reqId`).
 */
export function registerEdge(app: FastifyInstance, closing: () => boolean): void {
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(securityHeaders)
    reply.header('x-request-id', request.id)
    if (!closing()) return done()
    request.log.info('refused: the server is shutting down')
    reply.header('connection', 'close')
    sendFailure(reply, { code: 'service_unavailable', message: 'The server is shutting down; retry the request.' })
  })
}
