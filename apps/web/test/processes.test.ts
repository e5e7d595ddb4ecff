import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { testDatabase, testEngine } from '../../../tooling/vitest/test-database.ts'
import { freePort } from './helper.ts'

const serveLocal = resolve(import.meta.dirname, '../src/serve-local.ts')
const webMain = resolve(import.meta.dirname, '../src/main.ts')

interface Started {
  readonly child: ChildProcess
  output(): string
  readonly exited: Promise<number | null>
}

const started: ChildProcess[] = []
const dirs: string[] = []
afterEach(async () => {
  for (const child of started.splice(0)) if (child.exitCode === null) child.kill('SIGKILL')
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true })
})

/** `node --conditions=source <script>` with an environment built from scratch (nothing of the test run's leaks in). */
function start(script: string, env: Record<string, string>): Started {
  const child = spawn(process.execPath, ['--conditions=source', script], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  started.push(child)
  let output = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8')
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8')
  })
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)))
  return { child, output: () => output, exited }
}

async function until(url: string, timeoutMs: number, why: () => string): Promise<Response> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      return await fetch(url)
    } catch {
      if (Date.now() > deadline) throw new Error(`${url} never answered:\n${why()}`)
      await new Promise((done) => setTimeout(done, 200))
    }
  }
}

describe('processes', () => {
  it('`pnpm start` serves the API and the web app from one process on one database, and shuts both down on SIGTERM', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'quire-web-start-'))
    dirs.push(dataDir)
    const database = testEngine === 'postgres' ? await testDatabase() : null
    const [apiPort, webPort] = [await freePort(), await freePort()]
    const webUrl = `http://127.0.0.1:${webPort}`
    const server = start(serveLocal, {
      QUIRE_DATA_DIR: dataDir,
      API_PORT: String(apiPort),
      WEB_PORT: String(webPort),
      WEB_URL: webUrl,
      ...(database?.url ? { DATABASE_URL: database.url } : {}),
    })
    try {
      const health = await until(`http://127.0.0.1:${apiPort}/health`, 60_000, server.output)
      expect(health.status).toBe(200)
      const home = await until(`${webUrl}/`, 10_000, server.output)
      expect(home.status).toBe(200)
      expect(await home.text()).toContain(`href="http://localhost:${apiPort}/docs"`)
      const discovery = await fetch(`${webUrl}/dev-oidc/.well-known/openid-configuration`)
      expect(((await discovery.json()) as { issuer: string }).issuer).toBe(`${webUrl}/dev-oidc`)
      // The local session secret was generated into the data directory.
      expect((await stat(join(dataDir, 'session-secret'))).isFile()).toBe(true)

      server.child.kill('SIGTERM')
      expect(await server.exited).toBe(0)
      await expect(fetch(`${webUrl}/`)).rejects.toThrow()
    } finally {
      await database?.close()
    }
  })

  it('the web app alone refuses the embedded database, which one process owns', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'quire-web-main-'))
    dirs.push(dataDir)
    const web = start(webMain, { QUIRE_DATA_DIR: dataDir, WEB_PORT: String(await freePort()) })
    expect(await web.exited).toBe(1)
    expect(web.output()).toContain('needs PostgreSQL (DATABASE_URL)')
  })
})
