import { Agent, type ClientRequest, request as httpRequest, type IncomingMessage } from 'node:http'
import { type AddressInfo, connect } from 'node:net'
import { readEnv } from '@quire/runtime'
import { timeoutFor, until, untilExit } from '@quire/testing/waits'
import { afterEach, describe, expect, it } from 'vitest'
import { engine, seedArtifact, startTestApi, type TestApi } from './helper.ts'
import { type ApiProcess, killAllApiProcesses, startApiProcess } from './process-helper.ts'

describe(`draining (${engine})`, () => {
  it('a request that slips in while the server starts closing gets a 503 problem, and its connection is closed', {
    timeout: timeoutFor(1),
  }, async () => {
    const api = await startTestApi()
    let letCloseGoOn: (() => void) | undefined
    // Hold the close between its start (draining) and the listening socket's close.
    api.app.addHook('preClose', (done) => {
      letCloseGoOn = done
    })
    await api.app.listen({ port: 0, host: '127.0.0.1' })
    const { port } = api.app.server.address() as AddressInfo
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    try {
      const before = await keepAliveRequest(agent, `http://127.0.0.1:${port}/health`)
      expect(before.status).toBe(200)
      expect(before.headers.connection).toBe('keep-alive')
      const closing = api.app.close()
      await until('the close to begin', () => letCloseGoOn !== undefined)
      // The same (idle, kept-alive) connection: it is still open at this instant.
      const during = await keepAliveRequest(agent, `http://127.0.0.1:${port}/health`)
      expect(during.status).toBe(503)
      expect(during.headers['content-type']).toMatch(/^application\/problem\+json/)
      expect(JSON.parse(during.body)).toMatchObject({ code: 'service_unavailable', status: 503 })
      expect(during.headers.connection).toBe('close')
      expect(during.headers['x-request-id']).toBeDefined()
      letCloseGoOn?.()
      await closing
    } finally {
      agent.destroy()
      await api.runtime.close()
    }
  })
})

/**
 * Graceful shutdown of the real server process (`node src/main.ts`, as an operator starts it) on
 * SIGTERM: what is in flight finishes, nothing new gets in, and nothing holds the exit open longer
 * than SHUTDOWN_TIMEOUT_MS. PostgreSQL only: the test and the server share the database.
 */

afterEach(() => killAllApiProcesses())

/** Waits until the server has routed the request to `path` (its access log says so). */
const untilRouted = (server: ApiProcess, path: string) =>
  until(`the server to route ${path}`, () => server.output().includes(`"url":"${path}"`), { process: server })

/** When the server logged its first line whose message starts with `message` (pino's `time`), if it did. */
function loggedAt(server: ApiProcess, message: string): number | undefined {
  for (const line of server.output().split('\n')) {
    if (!line.startsWith('{')) continue
    const entry = JSON.parse(line) as { msg?: string; time?: number }
    if (entry.msg?.startsWith(message)) return entry.time
  }
  return undefined
}

/** Whether a new TCP connection to the server is refused. */
function refused(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url)
  return new Promise((done) => {
    const socket = connect({ host: hostname, port: Number(port) })
    socket.once('connect', () => {
      socket.destroy()
      done(false)
    })
    socket.once('error', (error: NodeJS.ErrnoException) => done(error.code === 'ECONNREFUSED'))
  })
}

interface Answer {
  readonly status: number
  readonly headers: IncomingMessage['headers']
  readonly body: string
}

/** An append whose body the test sends in two parts, whenever it likes. */
function slowAppend(server: ApiProcess, token: string, artifactId: string, expectedLatestVersion: number) {
  const body = JSON.stringify({ content: '# Second\n\nSent slowly, across a shutdown.\n', changelog: 'slow', expectedLatestVersion })
  const half = Math.floor(body.length / 2)
  let req: ClientRequest | undefined
  const answer = new Promise<Answer>((done, fail) => {
    req = httpRequest(`${server.url}/api/artifacts/${artifactId}/versions`, {
      method: 'POST',
      agent: false,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
    })
    req.once('error', fail)
    req.once('response', (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        text += chunk
      })
      res.once('end', () => done({ status: res.statusCode ?? 0, headers: res.headers, body: text }))
      res.once('error', fail)
    })
    req.write(body.slice(0, half))
  })
  return {
    answer,
    finish: () => req?.end(body.slice(half)),
    path: `/api/artifacts/${artifactId}/versions`,
  }
}

/** GET over a keep-alive agent, leaving the socket open and idle in the agent's pool. */
function keepAliveRequest(agent: Agent, url: string): Promise<Answer> {
  return new Promise((done, fail) => {
    httpRequest(url, { agent }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        text += chunk
      })
      res.once('end', () => done({ status: res.statusCode ?? 0, headers: res.headers, body: text }))
    })
      .once('error', fail)
      .end()
  })
}

/** Fresh database with a user and an artifact at version 1, and a server process on it. */
async function serverWithArtifact(
  env: Record<string, string>,
): Promise<{ api: TestApi; server: ApiProcess; token: string; artifactId: string }> {
  const api = await startTestApi()
  const { owner, artifact } = await seedArtifact(api)
  // Access log on: the test sees when the server has routed the slow request.
  const server = await startApiProcess({ DATABASE_URL: api.databaseUrl ?? '', LOG_LEVEL: 'info', LOG_REQUESTS: 'true', ...env })
  return { api, server, token: owner.token, artifactId: artifact.id }
}

/** The drain deadline when SHUTDOWN_TIMEOUT_MS is not set: what the second test's setting must not fall back to. */
const defaultDeadlineMs = readEnv({}).SHUTDOWN_TIMEOUT_MS

describe.runIf(engine === 'postgres')('graceful shutdown of the server process', () => {
  /**
   * The first test's drain deadline: far beyond what a loaded machine takes from SIGTERM to the exit
   * (seconds), far below a wait's budget, and below Fastify's keep-alive timeout (72 s), so that an
   * idle connection holding the close open would show as the deadline's cut-off too.
   */
  const deadlineMs = 60_000

  // Waits: the start, the routing, the refusal, the idle connection's close, the exit.
  it('on SIGTERM finishes the request in flight (201), refuses new connections, does not wait on idle ones, and exits 0', {
    timeout: timeoutFor(5),
  }, async () => {
    const { api, server, token, artifactId } = await serverWithArtifact({ SHUTDOWN_TIMEOUT_MS: String(deadlineMs) })
    let exited = false
    void server.exited.then(() => {
      exited = true
    })
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    try {
      // An idle keep-alive connection: it must not hold the shutdown open.
      expect((await keepAliveRequest(agent, `${server.url}/health`)).status).toBe(200)
      const idle = Object.values(agent.freeSockets).flat()
      expect(idle).toHaveLength(1)
      let idleClosed = false
      idle[0]?.once('close', () => {
        idleClosed = true
      })

      const append = slowAppend(server, token, artifactId, 1)
      await untilRouted(server, append.path)

      const signalledAt = Date.now()
      process.kill(server.pid, 'SIGTERM')
      await until('new connections to be refused', () => refused(server.url), { process: server })
      // Idle connections are not waited on: the server closes this one while the request is still in
      // flight (its body half sent), so the close cannot be the end of the drain.
      await until('the server to close the idle keep-alive connection', () => idleClosed, { process: server })
      // The request is in flight across the shutdown: not answered, and the process still up.
      expect(server.output()).not.toMatch(/"msg":"request completed"[^\n]*"statusCode":201/)
      expect(exited).toBe(false)

      append.finish()
      const answer = await append.answer
      const answeredAt = Date.now()
      expect(answer.status, answer.body).toBe(201)
      expect(JSON.parse(answer.body)).toMatchObject({ artifactId, versionNumber: 2 })
      // The connection ends with its response instead of lingering as keep-alive.
      expect(answer.headers.connection).toBe('close')
      expect(answer.headers['x-request-id']).toBeDefined()

      const exit = await untilExit(server)
      const exitedAt = Date.now()
      expect(exit, server.output()).toEqual({ code: 0, signal: null })
      expect(server.output()).not.toContain('shutdown timed out')
      // It exits when its last request ends, not at the deadline: nearer the answer than the
      // deadline (compared with each other, not with a time a loaded machine may exceed).
      const sinceAnswer = exitedAt - answeredAt
      const beforeDeadline = signalledAt + deadlineMs - exitedAt
      expect(sinceAnswer, `exited ${sinceAnswer} ms after the answer, ${beforeDeadline} ms before the deadline`).toBeLessThan(
        beforeDeadline,
      )
      expect(await refused(server.url)).toBe(true)

      // What the client was told is what the database holds.
      const versions = await api.request('GET', `/api/artifacts/${artifactId}/versions`, { token })
      expect((versions.json() as { items: { versionNumber: number }[] }).items.map((v) => v.versionNumber)).toContain(2)
    } finally {
      agent.destroy()
      await api.close()
    }
  })

  // Waits: the start, the routing, the exit.
  it('cuts off a request that outlives SHUTDOWN_TIMEOUT_MS and exits 1', { timeout: timeoutFor(3) }, async () => {
    const deadlineMs = 1_000
    const { api, server, token, artifactId } = await serverWithArtifact({ SHUTDOWN_TIMEOUT_MS: String(deadlineMs) })
    try {
      const append = slowAppend(server, token, artifactId, 1)
      const outcome = append.answer.then(
        (answer) => `answered ${answer.status}`,
        (error: NodeJS.ErrnoException) => `failed ${error.code ?? error.message}`,
      )
      await untilRouted(server, append.path)
      process.kill(server.pid, 'SIGTERM')
      // The body never comes: only the deadline can end the request, and with it the process.
      const exit = await untilExit(server)
      expect(exit, server.output()).toEqual({ code: 1, signal: null })
      expect(await outcome).toMatch(/^failed (ECONNRESET|socket hang up)/)
      expect(server.output()).toMatch(new RegExp(`"timeoutMs":${deadlineMs},[^\n]*"msg":"shutdown timed out`))
      // The cut-off came at this deadline, by the server's own clock (a timer's lateness, not the
      // test's scheduling): never before it, and well before the deadline it would have without
      // the setting.
      const began = loggedAt(server, 'shutting down')
      const cut = loggedAt(server, 'shutdown timed out')
      if (began === undefined || cut === undefined) throw new Error(`No shutdown lines in:\n${server.output()}`)
      expect(cut - began).toBeGreaterThanOrEqual(deadlineMs)
      expect(cut - began).toBeLessThan(defaultDeadlineMs)

      // Nothing was written.
      const versions = await api.request('GET', `/api/artifacts/${artifactId}/versions`, { token })
      expect((versions.json() as { items: { versionNumber: number }[] }).items.map((v) => v.versionNumber)).toEqual([1])
    } finally {
      await api.close()
    }
  })
})
