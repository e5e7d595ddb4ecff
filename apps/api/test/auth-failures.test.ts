import { randomBytes } from 'node:crypto'
import { edgeOptions } from '@quire/http-edge'
import { buildApp } from '@quire/rest'
import { readEnv } from '@quire/runtime'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { Redis } from 'ioredis'
import { sql } from 'kysely'
import { afterEach, describe, expect, it } from 'vitest'
import { engine, startTestApi, type TestApi } from './helper.ts'

/**
 * Failed authentication is limited per client address: the general limit counts per credential,
 * so each guessed token would have a budget of its own. Past the budget, the address's credentials
 * that are not valid get 429 with Retry-After (in memory, Redis and PostgreSQL stores alike) and
 * valid callers are neither counted nor refused, whether or not a process has seen them before.
 */

const redisUrl = process.env.QUIRE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'
const open: { close(): Promise<void> }[] = []
afterEach(async () => {
  while (open.length > 0) await open.pop()?.close()
})

const budget = { RATE_LIMIT_AUTH_FAILURES: '20', RATE_LIMIT_AUTH_FAILURES_WINDOW_MS: '60000' }

async function testApi(env: Record<string, string> = {}): Promise<TestApi> {
  const api = await startTestApi({ env: { ...budget, ...env } })
  open.push(api)
  return api
}

/** Another app instance on the same runtime and database (as another process would run it). */
async function secondInstance(api: TestApi, env: Record<string, string>): Promise<FastifyInstance> {
  const app = await buildApp(
    api.runtime,
    edgeOptions(
      readEnv({
        WEB_URL: 'https://quire.test',
        LOG_LEVEL: 'silent',
        RATE_LIMIT_MAX: '100000',
        ...budget,
        ...(api.databaseUrl ? { DATABASE_URL: api.databaseUrl } : {}),
        ...env,
      }),
    ),
  )
  open.push(app)
  return app
}

const bogus = () => `qk_${randomBytes(32).toString('base64url')}`

function me(app: FastifyInstance, token: string, from = '203.0.113.7', headers: Record<string, string> = {}) {
  return app.inject({
    method: 'GET',
    url: '/api/profile/me',
    remoteAddress: from,
    headers: { authorization: `Bearer ${token}`, ...headers },
  })
}

function tally(responses: readonly LightMyRequestResponse[]) {
  const byStatus: Record<number, number> = {}
  for (const res of responses) byStatus[res.statusCode] = (byStatus[res.statusCode] ?? 0) + 1
  return byStatus
}

describe(`failed authentication is limited per client address, in memory (${engine})`, () => {
  it('1,000 distinct bogus tokens: 20 get 401, the rest 429 with Retry-After; a known good key still works', async () => {
    const api = await testApi()
    const good = await api.user('good.caller@example.com')
    expect((await me(api.app, good.token)).statusCode).toBe(200)
    const responses: LightMyRequestResponse[] = []
    for (let i = 0; i < 1000; i++) responses.push(await me(api.app, bogus()))
    expect(tally(responses)).toEqual({ 401: 20, 429: 980 })
    const limited = responses[999] as LightMyRequestResponse
    expect(limited.headers['content-type']).toMatch(/^application\/problem\+json/)
    expect(limited.json()).toMatchObject({ code: 'rate_limited', status: 429 })
    expect(limited.json().detail).toMatch(/credential that is not valid/)
    const retryAfter = Number(limited.headers['retry-after'])
    expect(retryAfter).toBeGreaterThan(0)
    expect(retryAfter).toBeLessThanOrEqual(60)
    // A good caller behind the guesser's address is not locked out with it…
    expect((await me(api.app, good.token)).statusCode).toBe(200)
    // …and another address is untouched.
    expect((await me(api.app, good.token, '198.51.100.1')).statusCode).toBe(200)
    expect((await me(api.app, bogus(), '198.51.100.1')).statusCode).toBe(401)
    // Requests without a credential are not this limit's business.
    expect((await api.app.inject({ method: 'GET', url: '/health', remoteAddress: '203.0.113.7' })).statusCode).toBe(200)
  })

  it('past the budget a valid credential still passes, one this process has never seen too; the invalid ones keep getting 429', async () => {
    const api = await testApi()
    const unseen = await api.user('unseen.caller@example.com')
    const answers: LightMyRequestResponse[] = []
    for (let i = 0; i < 1000; i++) answers.push(await me(api.app, bogus(), '203.0.113.20'))
    expect(tally(answers)).toEqual({ 401: 20, 429: 980 })
    // Never presented before, from the blocked address: looked up, found valid, served.
    expect((await me(api.app, unseen.token, '203.0.113.20')).statusCode).toBe(200)
    // A key made after the address was blocked passes too.
    const later = await api.user('later.caller@example.com')
    expect((await me(api.app, later.token, '203.0.113.20')).statusCode).toBe(200)
    // Every credential that is not valid still gets 429, never the 401 that would say so, and spends nothing of a valid one.
    const after: LightMyRequestResponse[] = []
    for (let i = 0; i < 20; i++) after.push(await me(api.app, i % 2 === 0 ? bogus() : 'not even a token', '203.0.113.20'))
    expect(tally(after)).toEqual({ 429: 20 })
    expect((await me(api.app, unseen.token, '203.0.113.20')).statusCode).toBe(200)
  })

  it('valid callers are not counted: two hundred good requests leave the address its whole budget', async () => {
    const api = await testApi()
    const good = await api.user('many.requests@example.com')
    for (let i = 0; i < 200; i++) expect((await me(api.app, good.token, '203.0.113.9')).statusCode).toBe(200)
    const failures = []
    for (let i = 0; i < 20; i++) failures.push((await me(api.app, bogus(), '203.0.113.9')).statusCode)
    expect(new Set(failures)).toEqual(new Set([401]))
    expect((await me(api.app, bogus(), '203.0.113.9')).statusCode).toBe(429)
  })

  it('behind a trusted proxy, the forwarded client address is what counts; an untrusted one is ignored', async () => {
    const trusting = await testApi({ TRUST_PROXY: '127.0.0.1' })
    for (let i = 0; i < 25; i++) {
      const res = await me(trusting.app, bogus(), '127.0.0.1', { 'x-forwarded-for': `192.0.2.${i}` })
      expect(res.statusCode, `client ${i}`).toBe(401)
    }
    const forwarded = []
    for (let i = 0; i < 25; i++) forwarded.push(await me(trusting.app, bogus(), '127.0.0.1', { 'x-forwarded-for': '192.0.2.200' }))
    expect(tally(forwarded)).toEqual({ 401: 20, 429: 5 })

    const direct = await testApi()
    const spoofed = []
    for (let i = 0; i < 25; i++) spoofed.push(await me(direct.app, bogus(), '203.0.113.50', { 'x-forwarded-for': `192.0.2.${i}` }))
    expect(tally(spoofed)).toEqual({ 401: 20, 429: 5 })
  })

  it('counts refused credentials on every operation, artifact reads included, and never a missing one', async () => {
    const api = await testApi()
    const anonymous = []
    for (let i = 0; i < 30; i++)
      anonymous.push(await api.app.inject({ method: 'GET', url: '/api/profile/me', remoteAddress: '203.0.113.70' }))
    expect(tally(anonymous)).toEqual({ 401: 30 })
    const mixed = []
    for (let i = 0; i < 24; i++) {
      const url = ['/api/artifacts/art_00000000000000000000000000', '/api/workspaces', '/api/profile/artifacts'][i % 3] as string
      mixed.push(
        await api.app.inject({ method: 'GET', url, remoteAddress: '203.0.113.70', headers: { authorization: `Bearer ${bogus()}` } }),
      )
    }
    expect(tally(mixed)).toEqual({ 401: 20, 429: 4 })
  })
})

describe(`failed authentication shared through Redis (${engine})`, () => {
  it('two instances enforce one budget per address', async () => {
    const redis = new Redis(redisUrl)
    open.push({ close: async () => void redis.disconnect() })
    const prefix = `quire:auth-failures:address:`
    const from = `203.0.113.${Math.floor(Math.random() * 200) + 20}`
    await redis.del(`${prefix}${from}`)
    const api = await testApi({ RATE_LIMIT_REDIS_URL: redisUrl })
    const other = await secondInstance(api, { RATE_LIMIT_REDIS_URL: redisUrl })
    const good = await api.user('redis.good@example.com')
    for (let i = 0; i < 5; i++) expect((await me(api.app, good.token, from)).statusCode).toBe(200)
    expect(await redis.exists(`${prefix}${from}`)).toBe(0)
    const answers = []
    for (let i = 0; i < 30; i++) answers.push(await me(i % 2 === 0 ? api.app : other, bogus(), from))
    expect(tally(answers)).toEqual({ 401: 20, 429: 10 })
    expect(Number(await redis.get(`${prefix}${from}`))).toBeGreaterThanOrEqual(21)
    await redis.del(`${prefix}${from}`)
  })
})

describe(`a blocked address across instances (${engine})`, () => {
  it('a valid key neither instance has seen passes at the instance that did not count the failures', async () => {
    const redis = new Redis(redisUrl)
    open.push({ close: async () => void redis.disconnect() })
    const from = `198.51.100.${Math.floor(Math.random() * 200) + 20}`
    await redis.del(`quire:auth-failures:address:${from}`)
    const api = await testApi({ RATE_LIMIT_REDIS_URL: redisUrl })
    const other = await secondInstance(api, { RATE_LIMIT_REDIS_URL: redisUrl })
    const unseen = await api.user('unseen.elsewhere@example.com')
    const blocked = []
    for (let i = 0; i < 25; i++) blocked.push(await me(api.app, bogus(), from))
    expect(tally(blocked)).toEqual({ 401: 20, 429: 5 })
    expect((await me(other, bogus(), from)).statusCode).toBe(429)
    expect((await me(other, unseen.token, from)).statusCode).toBe(200)
    expect((await me(api.app, unseen.token, from)).statusCode).toBe(200)
    await redis.del(`quire:auth-failures:address:${from}`)
  })
})

describe.runIf(engine === 'postgres')('failed authentication shared through PostgreSQL', () => {
  it('two instances enforce one budget per address; valid callers write no counter', async () => {
    const api = await testApi({ RATE_LIMIT_STORE: 'postgres' })
    const other = await secondInstance(api, { RATE_LIMIT_STORE: 'postgres' })
    const good = await api.user('pg.good@example.com')
    for (let i = 0; i < 5; i++) expect((await me(other, good.token, '203.0.113.80')).statusCode).toBe(200)
    const counters = async () =>
      (
        await sql<{ key: string; hits: number }>`SELECT key, hits FROM rate_limits WHERE key LIKE 'auth-failure:%'`.execute(
          api.runtime.database.db,
        )
      ).rows
    expect(await counters()).toEqual([])
    const answers = []
    for (let i = 0; i < 30; i++) answers.push(await me(i % 2 === 0 ? api.app : other, bogus(), '203.0.113.80'))
    expect(tally(answers)).toEqual({ 401: 20, 429: 10 })
    expect(await counters()).toEqual([{ key: 'auth-failure:address:203.0.113.80', hits: expect.any(Number) }])
  })
})
