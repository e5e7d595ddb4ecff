import type { FastifyInstance } from 'fastify'
import { sendFailure } from './problem.ts'

/**
 * Draining on `app.close()`: the listening socket closes (new connections are refused) and idle
 * keep-alive connections are closed at once (Fastify's `forceCloseConnections: 'idle'`), while
 * requests in flight run to their end. What this adds:
 *
 * - every response sent while closing says `Connection: close`, so a keep-alive connection ends
 *   with its last response instead of holding the close open until its idle timeout;
 * - a request that still arrives on such a connection is refused as a problem (503
 *   `service_unavailable`, retry elsewhere) instead of Fastify's own non-problem 503 body
 *   (`return503OnClosing` is off for that reason).
 */
export function drainOnClose(app: FastifyInstance): void {
  let closing = false
  app.addHook('preClose', (done) => {
    closing = true
    done()
  })
  app.addHook('onRequest', (request, reply, done) => {
    if (!closing) return done()
    request.log.info('refused: the server is shutting down')
    reply.header('connection', 'close')
    sendFailure(reply, { code: 'service_unavailable', message: 'The server is shutting down; retry the request.' })
  })
  app.addHook('onSend', (_request, reply, _payload, done) => {
    if (closing) reply.header('connection', 'close')
    done()
  })
}
