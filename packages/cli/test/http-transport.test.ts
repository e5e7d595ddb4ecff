/**
 * The CLI's transport (node:http instead of fetch) as the typed client uses it, against a real
 * HTTP server: the request goes out as built, the answer comes back whole, and the time limit
 * still ends a call that gets no answer.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http'
import { createClient, QuireNetworkError } from '@quire/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { nodeHttpFetch } from '../src/run/http-transport.ts'

let server: Server
let base = ''
const seen: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[] = []

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8')
    })
    request.on('end', () => {
      seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body })
      if (request.url === '/health') return // never answers
      if (request.headers['if-none-match']) {
        response.writeHead(304, { etag: request.headers['if-none-match'] }).end()
        return
      }
      response
        .writeHead(201, { 'content-type': 'application/json', 'x-request-id': 'req-1' })
        .end(JSON.stringify({ echoed: JSON.parse(body || '{}') }))
    })
  })
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((done) => server.close(done))
})

describe('nodeHttpFetch', () => {
  it('sends the method, headers and body as built, and reads status, headers and body', async () => {
    const response = await nodeHttpFetch(`${base}/things?x=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer qk_test' },
      body: JSON.stringify({ a: 'ü' }),
    })
    expect(response.status).toBe(201)
    expect(response.ok).toBe(true)
    expect(response.headers.get('X-Request-Id')).toBe('req-1')
    expect(JSON.parse(await response.text())).toEqual({ echoed: { a: 'ü' } })
    expect(seen.at(-1)).toMatchObject({ method: 'POST', url: '/things?x=1', body: '{"a":"ü"}' })
    expect(seen.at(-1)?.headers.authorization).toBe('Bearer qk_test')
  })

  it('gives the client a 304 without a body', async () => {
    const response = await nodeHttpFetch(`${base}/c`, { method: 'GET', headers: { 'if-none-match': '"abc"' } })
    expect(response.status).toBe(304)
    expect(response.ok).toBe(false)
    expect(response.headers.get('etag')).toBe('"abc"')
  })

  it("ends a call that gets no answer at the client's time limit", async () => {
    const client = createClient({ baseUrl: base, token: null, timeoutMs: 300, fetch: nodeHttpFetch })
    const started = performance.now()
    const error = await client.call('health', {}).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(QuireNetworkError)
    expect((error as QuireNetworkError).kind).toBe('timeout')
    // The server never answers: without the time limit the call would wait for the test's own.
    expect(performance.now() - started).toBeLessThan(10_000)
  })
})
