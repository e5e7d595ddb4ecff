import { mkdtemp, rm, stat } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { killAllNodeProcesses, spawnNode } from '@quire/testing/node-process'
import { testDatabase, testEngine } from '@quire/testing/test-database'
import { timeoutFor, untilExit, untilHealthy } from '@quire/testing/waits'
import { afterEach, describe, expect, it } from 'vitest'
import { freePort } from './helper.ts'

const serveLocal = resolve(import.meta.dirname, '../src/serve-local.ts')
const webMain = resolve(import.meta.dirname, '../src/main.ts')

const dirs: string[] = []
afterEach(async () => {
  await killAllNodeProcesses()
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true })
})

describe('processes', () => {
  it('`pnpm start` serves the API and the web app from one process on one database, and shuts both down on SIGTERM', {
    timeout: timeoutFor(2),
  }, async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'quire-web-start-'))
    dirs.push(dataDir)
    const database = testEngine === 'postgres' ? await testDatabase() : null
    const [apiPort, webPort, contentPort] = [await freePort(), await freePort(), await freePort()]
    const webUrl = `http://127.0.0.1:${webPort}`
    const server = spawnNode(serveLocal, {
      QUIRE_DATA_DIR: dataDir,
      API_PORT: String(apiPort),
      WEB_PORT: String(webPort),
      WEB_URL: webUrl,
      CONTENT_PORT: String(contentPort),
      ...(database?.url ? { DATABASE_URL: database.url } : {}),
    })
    try {
      await untilHealthy(server, [`http://127.0.0.1:${apiPort}/health`, `${webUrl}/health`])
      const home = await fetch(`${webUrl}/`)
      expect(home.status).toBe(200)
      expect(await home.text()).toContain(`href="http://localhost:${apiPort}/docs"`)
      const discovery = await fetch(`${webUrl}/dev-oidc/.well-known/openid-configuration`)
      expect(((await discovery.json()) as { issuer: string }).issuer).toBe(`${webUrl}/dev-oidc`)
      // The content origin, on its own port and the other loopback name (another site than the web app's).
      const robots = await fetch(`http://localhost:${contentPort}/robots.txt`)
      expect(await robots.text()).toBe('User-agent: *\nDisallow: /\n')
      // The local session secret was generated into the data directory.
      expect((await stat(join(dataDir, 'session-secret'))).isFile()).toBe(true)

      expect(await server.stop(), server.output()).toEqual({ code: 0, signal: null })
      await expect(fetch(`${webUrl}/`)).rejects.toThrow()
      await expect(fetch(`http://localhost:${contentPort}/robots.txt`)).rejects.toThrow()
    } finally {
      await database?.close()
    }
  })

  it('`pnpm start` with the content origin’s port taken ends with one line naming CONTENT_PORT, not a stack', {
    timeout: timeoutFor(1),
  }, async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'quire-web-taken-'))
    dirs.push(dataDir)
    const taken = createServer()
    const contentPort = await freePort()
    await new Promise<void>((done) => taken.listen(contentPort, '127.0.0.1', done))
    try {
      const [apiPort, webPort] = [await freePort(), await freePort()]
      const server = spawnNode(serveLocal, {
        QUIRE_DATA_DIR: dataDir,
        API_PORT: String(apiPort),
        WEB_PORT: String(webPort),
        WEB_URL: `http://127.0.0.1:${webPort}`,
        CONTENT_PORT: String(contentPort),
      })
      expect((await untilExit(server)).code, server.output()).toBe(1)
      expect(server.output()).toContain(`127.0.0.1:${contentPort} is in use (CONTENT_PORT)`)
      expect(server.output()).not.toMatch(/\n\s+at /)
    } finally {
      await new Promise<void>((done) => taken.close(() => done()))
    }
  })

  it('the web app alone refuses the embedded database, which one process owns', { timeout: timeoutFor(1) }, async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'quire-web-main-'))
    dirs.push(dataDir)
    const web = spawnNode(webMain, { QUIRE_DATA_DIR: dataDir, WEB_PORT: String(await freePort()) })
    expect((await untilExit(web)).code, web.output()).toBe(1)
    expect(web.output()).toContain('needs PostgreSQL (DATABASE_URL)')
  })
})
