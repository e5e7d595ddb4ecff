/**
 * Secrets that match nothing, counted per client address at the web origin as at the API: bearer
 * credentials at `/mcp`. Past the budget the address gets 429 with Retry-After for every secret
 * that is not valid, and a valid one still passes, even one no process has seen before.
 */
import { randomBytes } from 'node:crypto'
import { defaultRateLimit } from '@quire/server'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testEngine } from '../../../tooling/vitest/test-database.ts'
import { buildWebApp } from '../src/app.ts'
import { startTestWeb, type TestWeb } from './helper.ts'
import { userWithKey } from './mcp-helper.ts'

const BUDGET = 5

let web: TestWeb
/** A web app on the test runtime with a small budget of refused secrets per address. */
let limited: FastifyInstance

beforeAll(async () => {
  web = await startTestWeb({ api: true })
  limited = await buildWebApp(web.runtime, {
    webUrl: web.url,
    sessionSecret: randomBytes(32).toString('base64url'),
    oidc: null,
    production: false,
    mcpRateLimit: { ...defaultRateLimit, authFailures: { max: BUDGET, windowMs: 60_000 } },
  })
})
afterAll(async () => {
  await limited?.close()
  await web?.close()
})

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
