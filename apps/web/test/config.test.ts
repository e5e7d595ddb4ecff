import { mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { ConfigurationError, createRuntime, type Runtime, readEnv } from '@quire/runtime'
import { createDevProvider, DevProviderRefused } from '@quire/sign-in'
import { buildWebApp } from '@quire/site'
import { killAllNodeProcesses, spawnNode } from '@quire/testing/node-process'
import { testDatabase, testEngine } from '@quire/testing/test-database'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { readServerEnv, readWebEnv } from '../src/env.ts'
import { webAppOptions } from '../src/options.ts'
import { sessionSecretOf } from '../src/session-secret.ts'

const secret = 'x'.repeat(40)

describe('the development provider in production', () => {
  let runtime: Runtime
  beforeAll(async () => {
    const database = await testDatabase()
    runtime = await createRuntime(readEnv({ LOG_LEVEL: 'silent', ...(database.url ? { DATABASE_URL: database.url } : {}) }), { database })
  })
  afterAll(async () => {
    await runtime?.close()
  })

  it('refuses to exist with NODE_ENV=production', () => {
    expect(() => createDevProvider({ webUrl: 'https://quire.example', production: true })).toThrow(DevProviderRefused)
    expect(() => createDevProvider({ webUrl: 'https://quire.example', production: true })).toThrow(
      /must never run in production.*OIDC_ISSUER/,
    )
  })

  it('stops the web app from booting in production without an issuer, with a message that says what to set', async () => {
    const production = { NODE_ENV: 'production', WEB_URL: 'https://quire.example', SESSION_SECRET: secret }
    // The environment is refused as it is read: one line, as every other setting that does not fit.
    expect(() => readWebEnv(production)).toThrow(ConfigurationError)
    expect(() => readWebEnv(production)).toThrow(/^Invalid environment: .*OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET\.$/)
    // An app built in code with production options still refuses the development provider.
    const env = readWebEnv({ WEB_URL: 'https://quire.example', SESSION_SECRET: secret })
    await expect(buildWebApp(runtime, { ...webAppOptions(env, secret), production: true })).rejects.toThrow(
      /OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET/,
    )
  })

  it('is not created when an issuer is configured', async () => {
    const env = readWebEnv({
      NODE_ENV: 'production',
      WEB_URL: 'https://quire.example',
      SESSION_SECRET: secret,
      OIDC_ISSUER: 'https://id.example',
      OIDC_CLIENT_ID: 'quire',
      OIDC_CLIENT_SECRET: 'shh',
    })
    const app = await buildWebApp(runtime, { ...webAppOptions(env, secret), logger: false })
    const res = await app.inject({ url: '/dev-oidc/.well-known/openid-configuration' })
    expect(res.statusCode).toBe(404)
    // Sessions are Secure on https.
    const home = await app.inject({ url: '/' })
    expect(home.headers['strict-transport-security']).toContain('max-age=')
    await app.close()
  })
})

describe('a web process started in production without an OpenID provider', () => {
  afterEach(async () => {
    await killAllNodeProcesses()
  })
  const production = { NODE_ENV: 'production', WEB_URL: 'https://quire.example', SESSION_SECRET: secret, LOG_LEVEL: 'info' }

  /** Starts an entry point and waits for it to end: exit status 1 and one line naming the settings, no stack trace. */
  async function refusedAtStart(script: string, env: Record<string, string>) {
    const dataDir = await mkdtemp(join(tmpdir(), 'quire-web-production-'))
    try {
      const started = spawnNode(resolve(import.meta.dirname, '../src', script), { QUIRE_DATA_DIR: dataDir, ...production, ...env })
      const exit = await started.exited
      const lines = started.output().trim().split('\n')
      expect(exit, started.output()).toEqual({ code: 1, signal: null })
      expect(lines, started.output()).toHaveLength(1)
      expect(lines[0]).toMatch(/^Invalid environment: .*OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET\.$/)
    } finally {
      await rm(dataDir, { recursive: true, force: true })
    }
  }

  it('`pnpm start` (serve-local) exits 1 with one line naming the settings', async () => {
    await refusedAtStart('serve-local.ts', { API_PORT: '0', WEB_PORT: '0' })
  })

  it.runIf(testEngine === 'postgres')('the web image (main) on PostgreSQL exits 1 with one line naming the settings', async () => {
    const database = await testDatabase()
    try {
      await refusedAtStart('main.ts', { WEB_PORT: '0', DATABASE_URL: database.url ?? '' })
    } finally {
      await database.close()
    }
  })
})

describe('the web environment', () => {
  it('has local defaults', () => {
    const env = readWebEnv({})
    expect(env).toMatchObject({ WEB_PORT: 3001, WEB_HOST: '127.0.0.1', WEB_URL: 'http://localhost:3001', NODE_ENV: 'development' })
  })

  it('follows WEB_PORT with the default WEB_URL, and gives the runtime the same WEB_URL', () => {
    expect(readWebEnv({ WEB_PORT: '4000' }).WEB_URL).toBe('http://localhost:4000')
    const both = readServerEnv({ WEB_PORT: '4000', API_PORT: '4001' })
    expect(both.runtime.WEB_URL).toBe('http://localhost:4000')
    expect(both.runtime.API_PORT).toBe(4001)
    expect(readServerEnv({ WEB_URL: 'https://quire.example/' }).runtime.WEB_URL).toBe('https://quire.example')
  })

  it('takes the three OIDC settings together or not at all', () => {
    expect(() => readWebEnv({ OIDC_ISSUER: 'https://id.example' })).toThrow(/go together/)
    expect(() => readWebEnv({ OIDC_ISSUER: 'https://id.example', OIDC_CLIENT_ID: 'a' })).toThrow(/go together/)
    expect(readWebEnv({ OIDC_ISSUER: 'https://id.example', OIDC_CLIENT_ID: 'a', OIDC_CLIENT_SECRET: 'b' }).OIDC_ISSUER).toBe(
      'https://id.example',
    )
  })

  it('requires a long SESSION_SECRET in production, and https', () => {
    expect(() => readWebEnv({ NODE_ENV: 'production', WEB_URL: 'https://quire.example' })).toThrow(/SESSION_SECRET is required/)
    expect(() => readWebEnv({ SESSION_SECRET: 'short' })).toThrow(/SESSION_SECRET/)
    expect(() => readWebEnv({ NODE_ENV: 'production', SESSION_SECRET: secret })).toThrow(/https in production/)
  })

  it('wants WEB_URL as an origin', () => {
    expect(readWebEnv({ WEB_URL: 'https://quire.example/' }).WEB_URL).toBe('https://quire.example')
    expect(() => readWebEnv({ WEB_URL: 'https://quire.example/app' })).toThrow(/not an origin/)
    expect(() => readWebEnv({ WEB_URL: 'quire.example' })).toThrow(/not an origin/)
  })

  it('generates the local session secret once and keeps it, readable by its owner only', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'quire-web-secret-'))
    try {
      const first = sessionSecretOf({ QUIRE_DATA_DIR: dir })
      expect(first.length).toBeGreaterThanOrEqual(32)
      expect(sessionSecretOf({ QUIRE_DATA_DIR: dir })).toBe(first)
      expect((await readFile(join(dir, 'session-secret'), 'utf8')).trim()).toBe(first)
      expect((await stat(join(dir, 'session-secret'))).mode & 0o777).toBe(0o600)
      expect(sessionSecretOf({ QUIRE_DATA_DIR: dir, SESSION_SECRET: secret })).toBe(secret)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
