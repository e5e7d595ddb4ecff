import type { FastifyInstance } from 'fastify'

/**
 * Draining on `app.close()`: the listening socket closes (new connections are refused) and idle
 * keep-alive connections are closed at once (Fastify's `forceCloseConnections: 'idle'`), while
 * requests in flight run to their end. What this adds: every response sent while closing says
 * `Connection: close`, so a keep-alive connection ends with its last response instead of holding
 * the close open until its idle timeout. (A request that still arrives is refused by the edge hook,
 * see edge.ts.) Returns whether the app is closing.
 */
export function drainOnClose(app: FastifyInstance): () => boolean {
  let closing = false
  app.addHook('preClose', (done) => {
    closing = true
    done()
  })
  app.addHook('onSend', (_request, reply, _payload, done) => {
    if (closing) reply.header('connection', 'close')
    done()
  })
  return () => closing
}
