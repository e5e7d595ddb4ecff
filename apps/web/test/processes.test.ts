import { mkdtemp, rm, stat } from 'node:fs/promises'
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
    const [apiPort, webPort] = [await freePort(), await freePort()]
    const webUrl = `http://127.0.0.1:${webPort}`
    const server = spawnNode(serveLocal, {
      QUIRE_DATA_DIR: dataDir,
      API_PORT: String(apiPort),
      WEB_PORT: String(webPort),
      WEB_URL: webUrl,
      ...(database?.url ? { DATABASE_URL: database.url } : {}),
    })
    try {
      await untilHealthy(server, [`http://127.0.0.1:${apiPort}/health`, `${webUrl}/health`])
      const home = await fetch(`${webUrl}/`)
      expect(home.status).toBe(200)
      expect(await home.text()).toContain(`href="http://localhost:${apiPort}/docs"`)
      const discovery = await fetch(`${webUrl}/dev-oidc/.well-known/openid-configuration`)
      expect(((await discovery.json()) as { issuer: string }).issuer).toBe(`${webUrl}/dev-oidc`)
      // The local session secret was generated into the data directory.
      expect((await stat(join(dataDir, 'session-secret'))).isFile()).toBe(true)

      expect(await server.stop(), server.output()).toEqual({ code: 0, signal: null })
      await expect(fetch(`${webUrl}/`)).rejects.toThrow()
    } finally {
      await database?.close()
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
