import { createHash } from 'node:crypto'
import { edgeOptions } from '@quire/http-edge'
import { buildApp } from '@quire/rest'
import { createRuntime, type Runtime, readEnv } from '@quire/runtime'
import { openDatabase, postgresRateLimitStore } from '@quire/storage'
import { timeoutFor, until } from '@quire/testing/waits'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { Redis } from 'ioredis'
import { sql } from 'kysely'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { engine, startTestApi, type TestApi } from './helper.ts'

/**
 * The HTTP edge in production shape: rate limits (in memory, and shared through Redis or
 * PostgreSQL by several app instances), security headers, CORS, request ids in responses and logs.
 */

const webOrigin = 'https://quire.test'
const redisUrl = process.env.QUIRE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms))

const open: { close(): Promise<void> }[] = []
afterEach(async () => {
  while (open.length > 0) await open.pop()?.close()
})

async function testApi(env: Record<string, string> = {}): Promise<TestApi> {
  const api = await startTestApi({ env })
  open.push(api)
  return api
}

/** The env startTestApi builds, for a second app instance beside it. */
function envLike(api: TestApi, env: Record<string, string>) {
  return readEnv({
    WEB_URL: webOrigin,
    API_URL: 'https://api.quire.test',
    LOG_LEVEL: 'silent',
    ...(api.databaseUrl ? { DATABASE_URL: api.databaseUrl } : {}),
    ...env,
  })
}

/** Another app instance (as another process would run it) beside `api`, with these settings. */
async function secondInstance(api: TestApi, env: Record<string, string>, runtime: Runtime = api.runtime): Promise<FastifyInstance> {
  const app = await buildApp(runtime, edgeOptions(envLike(api, env)))
  open.push(app)
  return app
}

function get(app: FastifyInstance, url: string, token?: string, headers: Record<string, string> = {}) {
  return app.inject({ method: 'GET', url, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers } })
}

const statuses = (responses: readonly LightMyRequestResponse[]) => responses.map((r) => r.statusCode)
const count = (responses: readonly LightMyRequestResponse[], status: number) => responses.filter((r) => r.statusCode === status).length

function expectRateLimited(res: LightMyRequestResponse) {
  expect(res.statusCode).toBe(429)
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/)
  const body = res.json() as Record<string, unknown>
  expect(body).toMatchObject({ status: 429, code: 'rate_limited', type: 'urn:quire:problem:rate_limited' })
  const retryAfter = Number(res.headers['retry-after'])
  expect(String(res.headers['retry-after'])).toMatch(/^\d+$/)
  expect(retryAfter).toBeGreaterThanOrEqual(1)
  expect(body.retryAfter).toBe(retryAfter)
  expect(res.headers['ratelimit-remaining']).toBe('0')
  expect(res.headers['x-request-id']).toBe(body.requestId)
  expect(res.body).not.toMatch(/stack|at \w+ \(/)
}

describe(`rate limits (${engine})`, () => {
  it('gives each credential its own budget and answers 429 rate_limited with Retry-After past it', async () => {
    const api = await testApi({ RATE_LIMIT_MAX: '3' })
    const alice = await api.user('alice@example.com')
    const bob = await api.user('bob@example.com')
    const first = [await get(api.app, '/api/profile/projects', alice.token)]
    first.push(await get(api.app, '/api/profile/projects', alice.token), await get(api.app, '/api/profile/projects', alice.token))
    expect(statuses(first)).toEqual([200, 200, 200])
    expect(first.map((r) => r.headers['ratelimit-limit'])).toEqual(['3', '3', '3'])
    expect(first.map((r) => r.headers['ratelimit-remaining'])).toEqual(['2', '1', '0'])
    expect(Number(first[0]?.headers['ratelimit-reset'])).toBeGreaterThan(0)

    const over = await get(api.app, '/api/profile/projects', alice.token)
    expectRateLimited(over)
    expect(Number(over.headers['retry-after'])).toBeLessThanOrEqual(60)
    // A write is refused before its body is even looked at.
    const write = await api.request('POST', '/api/projects', { token: alice.token, body: { ownerUsername: alice.username, slug: 'x' } })
    expectRateLimited(write)

    // Bob, and callers without a credential, have budgets of their own.
    expect((await get(api.app, '/api/profile/projects', bob.token)).statusCode).toBe(200)
    expect((await get(api.app, '/api/profile/projects')).statusCode).toBe(401)
  })

  it('counts anonymous callers by address, unknown URLs included', async () => {
    const api = await testApi({ RATE_LIMIT_MAX: '2' })
    const replies = [await get(api.app, '/api/nowhere'), await get(api.app, '/api/profile/projects'), await get(api.app, '/api/nowhere')]
    expect(statuses(replies)).toEqual([404, 401, 429])
    expectRateLimited(replies[2] as LightMyRequestResponse)
    // Another address has its own budget.
    const elsewhere = await api.app.inject({ method: 'GET', url: '/api/nowhere', remoteAddress: '203.0.113.7' })
    expect(elsewhere.statusCode).toBe(404)
  })

  it('never limits /health or CORS preflights', async () => {
    const api = await testApi({ RATE_LIMIT_MAX: '1' })
    const health = await Promise.all(Array.from({ length: 5 }, () => get(api.app, '/health')))
    expect(statuses(health)).toEqual([200, 200, 200, 200, 200])
    expect(health[0]?.headers['ratelimit-limit']).toBeUndefined()
    const preflights = await Promise.all(
      Array.from({ length: 5 }, () =>
        api.app.inject({
          method: 'OPTIONS',
          url: '/api/projects',
          headers: {
            origin: webOrigin,
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'authorization,content-type',
          },
        }),
      ),
    )
    expect(statuses(preflights)).toEqual([204, 204, 204, 204, 204])
    expect((await get(api.app, '/api/nowhere')).statusCode).toBe(404)
    expect((await get(api.app, '/api/nowhere')).statusCode).toBe(429)
  })

  it('starts a new window when the old one ends', async () => {
    const api = await testApi({ RATE_LIMIT_MAX: '1', RATE_LIMIT_WINDOW_MS: '1000' })
    const { token } = await api.user('window@example.com')
    expect((await get(api.app, '/api/profile/projects', token)).statusCode).toBe(200)
    const over = await get(api.app, '/api/profile/projects', token)
    expectRateLimited(over)
    expect(over.headers['retry-after']).toBe('1')
    await sleep(1_100)
    expect((await get(api.app, '/api/profile/projects', token)).statusCode).toBe(200)
  })

  it('in memory, each instance counts alone (which is why the shared stores exist)', async () => {
    const api = await testApi({ RATE_LIMIT_MAX: '2' })
    const other = await secondInstance(api, { RATE_LIMIT_MAX: '2' })
    const { token } = await api.user('memory@example.com')
    const replies = []
    for (let i = 0; i < 6; i++) replies.push(await get(i % 2 === 0 ? api.app : other, '/api/profile/projects', token))
    expect(statuses(replies)).toEqual([200, 200, 200, 200, 429, 429])
  })

  it('can be turned off (for benchmarks)', async () => {
    const api = await testApi({ RATE_LIMIT_ENABLED: 'false', RATE_LIMIT_MAX: '1' })
    const replies = await Promise.all(Array.from({ length: 3 }, () => get(api.app, '/api/nowhere')))
    expect(statuses(replies)).toEqual([404, 404, 404])
    expect(replies[0]?.headers['ratelimit-limit']).toBeUndefined()
  })
})

describe(`rate limits shared through Redis (${engine})`, () => {
  let redis: Redis
  beforeAll(async () => {
    redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 })
    await redis.connect().catch((error: Error) => {
      throw new Error(`Redis is not reachable at ${redisUrl} (${error.message}). Start it or set QUIRE_TEST_REDIS_URL.`)
    })
  })
  afterAll(() => redis.quit())

  it('enforces one limit across two app instances, keyed by the hash of the secret', async () => {
    const settings = { RATE_LIMIT_REDIS_URL: redisUrl, RATE_LIMIT_MAX: '5' }
    const api = await testApi(settings)
    const other = await secondInstance(api, settings)
    const { token } = await api.user('redis@example.com')
    const replies = []
    for (let i = 0; i < 8; i++) replies.push(await get(i % 2 === 0 ? api.app : other, '/api/profile/projects', token))
    expect(statuses(replies)).toEqual([200, 200, 200, 200, 200, 429, 429, 429])
    expectRateLimited(replies[5] as LightMyRequestResponse)

    const key = `quire:rate-limit:credential:${sha256(token)}`
    expect(Number(await redis.get(key))).toBe(8)
    expect(await redis.pttl(key)).toBeGreaterThan(0)
    const keys = await redis.keys('quire:rate-limit:*')
    expect(keys.filter((k) => k.includes(token))).toEqual([])
  })

  it('counts a concurrent burst on both instances exactly', async () => {
    const settings = { RATE_LIMIT_REDIS_URL: redisUrl, RATE_LIMIT_MAX: '10' }
    const api = await testApi(settings)
    const other = await secondInstance(api, settings)
    const { token } = await api.user('burst@example.com')
    const replies = await Promise.all(
      Array.from({ length: 30 }, (_, i) => get(i % 2 === 0 ? api.app : other, '/api/profile/projects', token)),
    )
    expect(count(replies, 200)).toBe(10)
    expect(count(replies, 429)).toBe(20)
  })

  it('keeps the counters of deployments with different RATE_LIMIT_REDIS_PREFIX apart', async () => {
    const prefix = `hardening-${sha256(String(Math.random())).slice(0, 8)}:`
    const api = await testApi({ RATE_LIMIT_REDIS_URL: redisUrl, RATE_LIMIT_REDIS_PREFIX: prefix, RATE_LIMIT_MAX: '3' })
    const sameDeployment = await secondInstance(api, {
      RATE_LIMIT_REDIS_URL: redisUrl,
      RATE_LIMIT_REDIS_PREFIX: prefix,
      RATE_LIMIT_MAX: '3',
    })
    const otherDeployment = await secondInstance(api, { RATE_LIMIT_REDIS_URL: redisUrl, RATE_LIMIT_MAX: '3' })
    const { token } = await api.user('prefixed@example.com')
    const ours = []
    for (let i = 0; i < 4; i++) ours.push(await get(i % 2 === 0 ? api.app : sameDeployment, '/api/profile/projects', token))
    expect(statuses(ours)).toEqual([200, 200, 200, 429])
    // The same credential at a deployment without the prefix: a budget of its own.
    expect((await get(otherDeployment, '/api/profile/projects', token)).statusCode).toBe(200)
    expect(Number(await redis.get(`${prefix}quire:rate-limit:credential:${sha256(token)}`))).toBe(4)
    expect(Number(await redis.get(`quire:rate-limit:credential:${sha256(token)}`))).toBe(1)
  })

  it('refuses to start when Redis is not reachable', async () => {
    const api = await testApi()
    await expect(secondInstance(api, { RATE_LIMIT_REDIS_URL: 'redis://:secret@127.0.0.1:1' })).rejects.toThrow(
      /Rate limiting: Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:1 is not reachable/,
    )
  })
})

describe.runIf(engine === 'postgres')('rate limits shared through PostgreSQL', () => {
  const settings = { RATE_LIMIT_STORE: 'postgres', RATE_LIMIT_MAX: '10' }

  /** A second runtime on the same database, with its own connection pool (as another process has). */
  async function otherProcess(api: TestApi, env: Record<string, string>): Promise<FastifyInstance> {
    const database = await openDatabase({ kind: 'postgres', url: api.databaseUrl ?? '', poolSize: 10 })
    const runtime = await createRuntime(envLike(api, env), { database })
    open.push(runtime)
    return secondInstance(api, env, runtime)
  }

  it('enforces one limit across two app instances on one database, exactly, under a concurrent burst', async () => {
    const api = await testApi(settings)
    const other = await otherProcess(api, settings)
    const { token } = await api.user('postgres@example.com')
    const replies = await Promise.all(
      Array.from({ length: 30 }, (_, i) => get(i % 2 === 0 ? api.app : other, '/api/profile/projects', token)),
    )
    expect(count(replies, 200)).toBe(10)
    expect(count(replies, 429)).toBe(20)
    expectRateLimited(replies.find((r) => r.statusCode === 429) as LightMyRequestResponse)
    expect(new Set(replies.filter((r) => r.statusCode === 200).map((r) => r.headers['ratelimit-remaining']))).toEqual(
      new Set(Array.from({ length: 10 }, (_, i) => String(9 - i))),
    )

    const { rows } = await sql<{ key: string; hits: number }>`SELECT key, hits FROM rate_limits`.execute(api.runtime.database.db)
    expect(rows).toContainEqual({ key: `credential:${sha256(token)}`, hits: 30 })
    expect(rows.filter((r) => r.key.includes(token))).toEqual([])
  })

  it('starts a new window when the old one ends, on the database clock', async () => {
    const env = { ...settings, RATE_LIMIT_MAX: '1', RATE_LIMIT_WINDOW_MS: '1000' }
    const api = await testApi(env)
    const other = await otherProcess(api, env)
    const { token } = await api.user('pg-window@example.com')
    expect((await get(api.app, '/api/profile/projects', token)).statusCode).toBe(200)
    expectRateLimited(await get(other, '/api/profile/projects', token))
    await sleep(1_100)
    expect((await get(other, '/api/profile/projects', token)).statusCode).toBe(200)
    expectRateLimited(await get(api.app, '/api/profile/projects', token))
  })

  // Waits: the prune.
  it('the store reads without counting, and deletes ended windows as it goes', { timeout: timeoutFor(1) }, async () => {
    const api = await testApi()
    const Store = postgresRateLimitStore(api.runtime.database, { pruneEvery: 3 })
    const store = new Store()
    const call = (method: 'incr' | 'read', key: string, windowMs = 60_000) =>
      new Promise<{ current: number; ttl: number }>((done, fail) =>
        store[method](key, (error, result) => (error || !result ? fail(error) : done(result)), windowMs, 10),
      )
    const db = api.runtime.database.db
    await sql`INSERT INTO rate_limits (key, hits, resets_at) VALUES ('ended', 7, now() - interval '1 second')`.execute(db)
    expect(await call('read', 'ended')).toEqual({ current: 0, ttl: 0 })
    expect(await call('incr', 'k')).toMatchObject({ current: 1 })
    expect(await call('incr', 'k')).toMatchObject({ current: 2 })
    expect(await call('read', 'k')).toMatchObject({ current: 2 })
    const third = await call('incr', 'k')
    expect(third.current).toBe(3)
    expect(third.ttl).toBeGreaterThan(59_000)
    expect(third.ttl).toBeLessThanOrEqual(60_000)
    // The third hit set off a prune.
    await until('the ended window to be deleted', async () =>
      (await sql<{ key: string }>`SELECT key FROM rate_limits`.execute(db)).rows.every((r) => r.key !== 'ended'),
    )
    expect((await sql<{ key: string }>`SELECT key FROM rate_limits`.execute(db)).rows).toEqual([{ key: 'k' }])
  })

  it('lets requests through when the counters cannot be reached', async () => {
    const api = await testApi(settings)
    const { token } = await api.user('pg-down@example.com')
    await sql`ALTER TABLE rate_limits RENAME TO rate_limits_away`.execute(api.runtime.database.db)
    try {
      const res = await get(api.app, '/api/profile/projects', token)
      expect(res.statusCode).toBe(200)
      expect(res.headers['ratelimit-limit']).toBe('10')
    } finally {
      await sql`ALTER TABLE rate_limits_away RENAME TO rate_limits`.execute(api.runtime.database.db)
    }
  })
})

describe('rate-limit settings', () => {
  it('come from the environment, and conflicting ones fail at boot', () => {
    expect(edgeOptions(readEnv({})).rateLimit).toEqual({
      max: 600,
      windowMs: 60_000,
      store: { kind: 'memory' },
      authFailures: { max: 30, windowMs: 600_000 },
    })
    expect(edgeOptions(readEnv({ RATE_LIMIT_REDIS_URL: 'redis://r:6379' })).rateLimit).toMatchObject({
      store: { kind: 'redis', url: 'redis://r:6379' },
    })
    expect(edgeOptions(readEnv({ RATE_LIMIT_ENABLED: 'false' })).rateLimit).toBe(false)
    expect(() => readEnv({ RATE_LIMIT_STORE: 'postgres' })).toThrow(/RATE_LIMIT_STORE=postgres needs DATABASE_URL/)
    expect(() => readEnv({ RATE_LIMIT_STORE: 'redis' })).toThrow(/RATE_LIMIT_STORE=redis needs RATE_LIMIT_REDIS_URL/)
    expect(() => readEnv({ RATE_LIMIT_STORE: 'memory', RATE_LIMIT_REDIS_URL: 'redis://r' })).toThrow(/RATE_LIMIT_REDIS_URL is set/)
    expect(() => readEnv({ RATE_LIMIT_MAX: '0' })).toThrow(/RATE_LIMIT_MAX/)
    expect(() => readEnv({ CORS_ORIGINS: 'https://ok.example, https://slash.example/' })).toThrow(
      /CORS_ORIGINS has "https:\/\/slash\.example\/"/,
    )
    expect(edgeOptions(readEnv({ CORS_ORIGINS: ' https://a.example ,https://b.example:8443' })).corsOrigins).toEqual([
      'https://a.example',
      'https://b.example:8443',
    ])
  })
})

describe(`security headers (${engine})`, () => {
  let api: TestApi
  beforeAll(async () => {
    api = await startTestApi()
  })
  afterAll(() => api.close())

  it('a JSON response may load nothing, be framed nowhere, and be read by the web app', async () => {
    for (const res of [await get(api.app, '/health'), await get(api.app, '/api/nowhere'), await get(api.app, '/openapi.json')]) {
      expect(res.headers['content-security-policy']).toBe("default-src 'none';frame-ancestors 'none'")
      expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin')
      expect(res.headers['x-content-type-options']).toBe('nosniff')
      expect(res.headers['x-frame-options']).toBe('DENY')
      expect(res.headers['referrer-policy']).toBe('no-referrer')
      expect(res.headers['strict-transport-security']).toMatch(/max-age=\d+/)
      expect(res.headers['x-powered-by']).toBeUndefined()
      // Helmet's other defaults come along.
      expect(res.headers['cross-origin-opener-policy']).toBe('same-origin')
      expect(res.headers['x-xss-protection']).toBe('0')
      expect(res.headers['x-permitted-cross-domain-policies']).toBe('none')
    }
  })

  it('the /docs page gets a policy of its own that lets it load every asset it links', async () => {
    const page = await get(api.app, '/docs/')
    expect(page.statusCode).toBe(200)
    expect(page.headers['content-type']).toMatch(/^text\/html/)
    const csp = String(page.headers['content-security-policy'])
    expect(csp).toContain("script-src 'self'")
    expect(csp).toContain("style-src 'self'")
    expect(csp).toContain("img-src 'self' data:")
    expect(csp).toContain("connect-src 'self';")
    expect(csp).toContain("frame-ancestors 'none'")
    const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] as string)
    expect(assets.length).toBeGreaterThanOrEqual(5)
    for (const asset of assets) {
      // Same-origin relative URLs only: what `'self'` allows.
      expect(asset).toMatch(/^\.\/static\//)
      const res = await get(api.app, `/docs/${asset.slice(2)}`)
      expect(res.statusCode, asset).toBe(200)
    }
    // The initializer loads the document from ./json (a connect-src 'self' fetch).
    const spec = await get(api.app, '/docs/json')
    expect(spec.statusCode).toBe(200)
    expect(spec.json()).toMatchObject({ openapi: '3.1.0' })
  })

  it('the /docs page may call the API where the document says it is ("Try it out")', async () => {
    const app = await buildApp(api.runtime, { serverUrl: 'https://api.quire.test/base' })
    try {
      expect(String((await get(app, '/docs/')).headers['content-security-policy'])).toContain("connect-src 'self' https://api.quire.test;")
      expect((await get(app, '/health')).headers['content-security-policy']).toBe("default-src 'none';frame-ancestors 'none'")
    } finally {
      await app.close()
    }
  })
})

describe(`CORS (${engine})`, () => {
  let api: TestApi
  beforeAll(async () => {
    api = await startTestApi({ env: { CORS_ORIGINS: 'https://partner.example,http://localhost:5173', RATE_LIMIT_MAX: '3' } })
  })
  afterAll(() => api.close())

  const corsHeaders = (res: LightMyRequestResponse) => Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))

  it('allows the web app and the configured origins, without credentials, exposing what clients read', async () => {
    for (const origin of [webOrigin, 'https://partner.example', 'http://localhost:5173']) {
      const res = await get(api.app, '/health', undefined, { origin })
      expect(res.headers['access-control-allow-origin']).toBe(origin)
      expect(res.headers['access-control-allow-credentials']).toBeUndefined()
      expect(String(res.headers.vary)).toMatch(/origin/i)
      const exposed = String(res.headers['access-control-expose-headers']).split(', ')
      for (const header of [
        'x-request-id',
        'etag',
        'location',
        'retry-after',
        'idempotent-replayed',
        'ratelimit-limit',
        'ratelimit-remaining',
        'ratelimit-reset',
      ])
        expect(exposed).toContain(header)
    }
  })

  it('gives an origin not on the list no CORS headers at all', async () => {
    const res = await get(api.app, '/health', undefined, { origin: 'https://evil.example' })
    expect(res.statusCode).toBe(200)
    expect(corsHeaders(res)).toEqual([])
    const preflight = await api.app.inject({
      method: 'OPTIONS',
      url: '/api/projects',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    })
    expect(corsHeaders(preflight)).toEqual([])
    expect(preflight.statusCode).not.toBe(204)
  })

  it('answers a preflight for any route with the methods and request headers the API takes', async () => {
    const res = await api.app.inject({
      method: 'OPTIONS',
      url: '/api/artifacts/art_x/versions',
      headers: {
        origin: webOrigin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type,idempotency-key',
      },
    })
    expect(res.statusCode).toBe(204)
    expect(res.headers['access-control-allow-origin']).toBe(webOrigin)
    expect(String(res.headers['access-control-allow-methods']).split(', ')).toEqual(
      expect.arrayContaining(['GET', 'POST', 'PATCH', 'DELETE']),
    )
    expect(String(res.headers['access-control-allow-headers']).split(', ')).toEqual(
      expect.arrayContaining(['authorization', 'content-type', 'idempotency-key', 'if-none-match', 'x-request-id', 'quire-client']),
    )
    expect(res.headers['access-control-max-age']).toBe('7200')
    expect(res.headers['x-request-id']).toBeDefined()
  })

  it('lets the web app read a 429 (and its Retry-After)', async () => {
    const { token } = await api.user('cors-limited@example.com')
    const replies = []
    for (let i = 0; i < 4; i++) replies.push(await get(api.app, '/api/profile/projects', token, { origin: webOrigin }))
    const over = replies[3] as LightMyRequestResponse
    expectRateLimited(over)
    expect(over.headers['access-control-allow-origin']).toBe(webOrigin)
    expect(String(over.headers['access-control-expose-headers'])).toContain('retry-after')
  })
})

describe(`request ids (${engine})`, () => {
  let api: TestApi
  beforeAll(async () => {
    api = await startTestApi()
  })
  afterAll(() => api.close())

  it('every response carries one: successes, failures, docs, preflights', async () => {
    const { token } = await api.user('ids@example.com')
    const replies = [
      await get(api.app, '/health'),
      await get(api.app, '/api/profile/projects', token),
      await get(api.app, '/api/profile/projects'),
      await get(api.app, '/api/nowhere'),
      await get(api.app, '/openapi.json'),
      await get(api.app, '/docs/'),
      await api.app.inject({
        method: 'OPTIONS',
        url: '/api/projects',
        headers: { origin: webOrigin, 'access-control-request-method': 'POST' },
      }),
    ]
    for (const res of replies) expect(res.headers['x-request-id'], res.raw.req.url).toMatch(/^[0-9a-f-]{36}$/)
    expect(new Set(replies.map((r) => r.headers['x-request-id'])).size).toBe(replies.length)
  })

  it('a well-formed incoming X-Request-Id is kept, anything else replaced', async () => {
    expect((await get(api.app, '/health', undefined, { 'x-request-id': 'trace-0123456789' })).headers['x-request-id']).toBe(
      'trace-0123456789',
    )
    const bad = await get(api.app, '/health', undefined, { 'x-request-id': 'no spaces <allowed>' })
    expect(bad.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
  })

  it("every log line of a request names it (Fastify's reqId)", async () => {
    const lines: string[] = []
    const app = await buildApp(api.runtime, {
      logger: { level: 'info', stream: { write: (line: string) => void lines.push(line) } },
      logRequests: true,
    })
    try {
      const refused = await get(app, '/api/profile/projects?bogus=1', undefined, { 'x-request-id': 'trace-logs-0001' })
      expect(refused.statusCode).toBe(400)
      const ok = await get(app, '/health')
      const entries = lines.map((line) => JSON.parse(line) as { reqId?: string; msg: string })
      const ofRefused = entries.filter((e) => e.reqId === 'trace-logs-0001').map((e) => e.msg)
      expect(ofRefused).toEqual(['incoming request', 'request refused', 'request completed'])
      expect(entries.filter((e) => e.reqId === ok.headers['x-request-id']).map((e) => e.msg)).toEqual([
        'incoming request',
        'request completed',
      ])
      // Nothing about a request is logged without its id.
      expect(entries.filter((e) => e.reqId === undefined && /request/.test(e.msg))).toEqual([])
    } finally {
      await app.close()
    }
  })
})
