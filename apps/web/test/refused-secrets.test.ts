/**
 * Secrets that match nothing, counted per client address at the web origin as at the API, in one
 * budget: bearer credentials at `/mcp`, share links at `/s/…`. Past the budget the address gets 429
 * with Retry-After for every secret that is not valid (a page for a browser, problem+json
 * otherwise), and a valid one still passes, even one no process has seen before. With Redis, every
 * process counts the one budget.
 */
import { randomBytes } from 'node:crypto'
import { defaultRateLimit, type RateLimitSettings } from '@quire/http-edge'
import { buildWebApp } from '@quire/site'
import { testEngine } from '@quire/testing/test-database'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestWeb, type TestWeb } from './helper.ts'
import { author, userWithKey } from './mcp-helper.ts'

const BUDGET = 5
const redisUrl = process.env.QUIRE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'

let web: TestWeb
/** A web app on the test runtime with a small budget of refused secrets per address. */
let limited: FastifyInstance
const apps: FastifyInstance[] = []
/** A live share link of a private artifact. */
let shareSecret: string

/** Another web process on the test runtime, with these limits. */
async function webProcess(limits: RateLimitSettings): Promise<FastifyInstance> {
  const app = await buildWebApp(web.runtime, {
    webUrl: web.url,
    sessionSecret: randomBytes(32).toString('base64url'),
    oidc: null,
    production: false,
    mcpRateLimit: limits,
  })
  apps.push(app)
  return app
}

beforeAll(async () => {
  web = await startTestWeb({ api: true })
  limited = await webProcess({ ...defaultRateLimit, authFailures: { max: BUDGET, windowMs: 60_000 } })
  const writer = await author(web, 'secrets.owner@example.com')
  const shared = await writer.artifact('shared', { title: 'Shared', content: 'Shared words.\n' })
  shareSecret = ((await writer.api('POST', `/api/artifacts/${shared.id}/share-links`, {})) as { secret: string }).secret
})
afterAll(async () => {
  for (const app of apps) await app.close()
  await web?.close()
})

/** A share-link page, from a client address, as a browser (HTML) or a script asks for it. */
const shared = (app: FastifyInstance, path: string, from: string, accept = 'text/html') =>
  app.inject({ method: 'GET', url: path, remoteAddress: from, headers: { accept } })
const bogusLink = () => `/s/${randomBytes(32).toString('base64url')}`

const bogus = () => `qk_${randomBytes(32).toString('base64url')}`

function statuses(answers: readonly LightMyRequestResponse[]): Record<number, number> {
  const byStatus: Record<number, number> = {}
  for (const answer of answers) byStatus[answer.statusCode] = (byStatus[answer.statusCode] ?? 0) + 1
  return byStatus
}

/** `tools/list` at `/mcp` with a bearer token, from a client address. */
const toolsList = (token: string, from: string) =>
  limited.inject({
    method: 'POST',
    url: '/mcp',
    remoteAddress: from,
    headers: {
      authorization: `Bearer ${token}`,
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      'mcp-protocol-version': '2025-11-25',
    },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
  })

describe(`/mcp past the budget of refused credentials (${testEngine})`, () => {
  it('a valid key no process has seen still passes from the blocked address; the bogus ones keep getting 429', async () => {
    const from = '203.0.113.31'
    const unseen = await userWithKey(web, 'mcp.unseen@example.com')
    const guesses: LightMyRequestResponse[] = []
    for (let i = 0; i < 20; i++) guesses.push(await toolsList(bogus(), from))
    expect(statuses(guesses)).toEqual({ 401: BUDGET, 429: 20 - BUDGET })
    expect(Number(guesses.at(-1)?.headers['retry-after'])).toBeGreaterThan(0)
    expect((await toolsList(unseen.token, from)).statusCode).toBe(200)
    expect((await toolsList(bogus(), from)).statusCode).toBe(429)
    expect((await toolsList(unseen.token, from)).statusCode).toBe(200)
    // Another address has its whole budget.
    expect((await toolsList(bogus(), '203.0.113.32')).statusCode).toBe(401)
  })
})

describe(`share links that open nothing, per address (${testEngine})`, () => {
  it('1,000 distinct bogus links from one address: the budget gets 404, the rest 429; a live link still opens', async () => {
    const from = '203.0.113.41'
    const answers: LightMyRequestResponse[] = []
    for (let i = 0; i < 1000; i++)
      answers.push(
        await shared(limited, i % 2 === 0 ? bogusLink() : `${bogusLink()}/raw`, from, i % 3 === 0 ? 'application/json' : 'text/html'),
      )
    expect(statuses(answers)).toEqual({ 404: BUDGET, 429: 1000 - BUDGET })

    const page = await shared(limited, bogusLink(), from)
    expect(page.statusCode).toBe(429)
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(page.body).toContain('Too many requests')
    expect(page.body).toContain(`at most ${BUDGET} per 1 min`)
    const retryAfter = Number(page.headers['retry-after'])
    expect(retryAfter).toBeGreaterThan(0)
    expect(retryAfter).toBeLessThanOrEqual(60)
    // Still a secret URL: never stored, never sent as a Referer, never indexed.
    expect(page.headers['referrer-policy']).toBe('no-referrer')
    expect(page.headers['cache-control']).toMatch(/no-store/)
    expect(page.headers['x-robots-tag']).toBe('noindex')
    const problem = await shared(limited, bogusLink(), from, 'application/json')
    expect(problem.statusCode).toBe(429)
    expect(problem.headers['content-type']).toMatch(/^application\/problem\+json/)
    expect(problem.json()).toMatchObject({ code: 'rate_limited', status: 429 })
    expect(Number(problem.headers['retry-after'])).toBeGreaterThan(0)

    // The live link opens from the blocked address, its raw text too: it is looked up, not guessed.
    const live = `/s/${encodeURIComponent(shareSecret)}`
    expect((await shared(limited, live, from)).statusCode).toBe(200)
    expect((await shared(limited, `${live}/raw`, from)).statusCode).toBe(200)
    // Another address has its whole budget.
    expect((await shared(limited, bogusLink(), '203.0.113.42')).statusCode).toBe(404)
  })

  it('share links and credentials at /mcp spend one budget per address', async () => {
    const from = '203.0.113.43'
    const first: number[] = []
    for (let i = 0; i < BUDGET - 2; i++) first.push((await toolsList(bogus(), from)).statusCode)
    for (let i = 0; i < 2; i++) first.push((await shared(limited, bogusLink(), from)).statusCode)
    expect(first).toEqual([...Array(BUDGET - 2).fill(401), 404, 404])
    expect((await shared(limited, bogusLink(), from)).statusCode).toBe(429)
    expect((await toolsList(bogus(), from)).statusCode).toBe(429)
  })

  it('two web processes sharing Redis count one budget per address', async () => {
    // A fresh /64 of its own: no earlier run's count in Redis.
    const from = `2001:db8:${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}::1`
    const limits: RateLimitSettings = {
      ...defaultRateLimit,
      store: { kind: 'redis', url: redisUrl },
      authFailures: { max: BUDGET, windowMs: 60_000 },
    }
    const [one, two] = [await webProcess(limits), await webProcess(limits)]
    const answers: LightMyRequestResponse[] = []
    for (let i = 0; i < 2 * BUDGET; i++) answers.push(await shared(i % 2 === 0 ? one : two, bogusLink(), from))
    expect(answers.map((a) => a.statusCode)).toEqual([...Array(BUDGET).fill(404), ...Array(BUDGET).fill(429)])
    expect((await shared(two, `/s/${encodeURIComponent(shareSecret)}`, from)).statusCode).toBe(200)
  })
})
