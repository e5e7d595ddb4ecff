import { createServer } from 'node:net'

/**
 * Ports below Linux's ephemeral range (32768–60999 by default): no outgoing connection (a
 * database client, a fetch, a webhook delivery of another test) is ever given one as its local
 * port, so a port found free here stays free until the test listens on it, however long its set-up
 * takes. (A port the kernel chose, `listen(0)`, is from that range, and an outgoing connection of a
 * busy test run could take it in between: EADDRINUSE.)
 */
const FIRST = 20_000
const SPAN = 12_000

function tryListen(port: number): Promise<number | null> {
  return new Promise((done) => {
    const server = createServer()
    server.once('error', () => done(null))
    server.listen(port, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => done(typeof address === 'object' && address ? address.port : null))
    })
  })
}

/** A TCP port on 127.0.0.1 that nobody listens on right now, outside the ephemeral range when one is free there. */
export async function freePort(): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const port = await tryListen(FIRST + Math.floor(Math.random() * SPAN))
    if (port !== null) return port
  }
  const any = await tryListen(0)
  if (any === null) throw new Error('No free TCP port on 127.0.0.1.')
  return any
}
