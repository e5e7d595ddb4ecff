/**
 * The agent layer's budgets cannot be spent by someone else: a registration refused for what it
 * asks (a bad scope, say) costs its address, never the person it names; only a registration that
 * was made counts against that person. Wrong claim codes lock the claim page per account and per
 * client address, so many accounts behind one address do not multiply the guesses.
 */

import { testEngine } from '@quire/testing/test-database'
import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { agentLayerEnv, startTestWeb, type TestWeb } from './helper.ts'
import { signInOverHttp } from './http-session.ts'

let web: TestWeb

beforeAll(async () => {
  web = await startTestWeb({ env: agentLayerEnv() })
})
afterAll(async () => {
  await web?.close()
})

/** `POST /agent/identity` from a client address. */
const register = (body: unknown, from: string) =>
  web.app.inject({ method: 'POST', url: '/agent/identity', remoteAddress: from, payload: body as Record<string, unknown> })

const errorOf = (answer: LightMyRequestResponse) => (answer.json() as { error?: string }).error

describe(`registrations naming a person (${testEngine})`, () => {
  it("refused registrations naming carol spend their address's budget, not carol's", async () => {
    const refused: LightMyRequestResponse[] = []
    for (let i = 0; i < 8; i++) {
      const hint = i % 2 === 0 ? 'carol@example.com' : ' Carol@Example.COM '
      refused.push(await register({ type: 'service_auth', login_hint: hint, scopes: ['artifacts:everything'] }, '203.0.113.61'))
    }
    expect(refused.map(errorOf)).toEqual(Array(8).fill('invalid_scope'))
    // Carol's own agent, from anywhere, still registers.
    const carols = await register({ type: 'service_auth', login_hint: 'carol@example.com' }, '198.51.100.61')
    expect(carols.statusCode).toBe(200)
    expect(carols.json()).toHaveProperty('claim.user_code')
    // The refusals were counted where they came from: twenty named attempts an hour per address.
    const more: number[] = []
    for (let i = 0; i < 13; i++)
      more.push((await register({ type: 'service_auth', login_hint: 'someone@example.com', scopes: 'nope' }, '203.0.113.61')).statusCode)
    expect(more).toEqual([...Array(12).fill(400), 429])
  })

  it('registrations that were made count against the person they name, from any address', async () => {
    const made: number[] = []
    for (let i = 0; i < 5; i++)
      made.push((await register({ type: 'service_auth', login_hint: 'dave@example.com' }, `203.0.113.${70 + i}`)).statusCode)
    expect(made).toEqual([200, 200, 200, 200, 200])
    const sixth = await register({ type: 'service_auth', login_hint: 'DAVE@example.com' }, '203.0.113.79')
    expect(sixth.statusCode).toBe(429)
    expect(errorOf(sixth)).toBe('rate_limited')
    expect(Number(sixth.headers['retry-after'])).toBeGreaterThan(0)
  })
})

describe(`wrong claim codes (${testEngine})`, () => {
  it('lock the claim page for every account behind the address that sent too many', async () => {
    // Four people behind one address (the tests' 127.0.0.1), each short of their own ten.
    const people = await Promise.all([1, 2, 3, 4].map((n) => signInOverHttp(web, `guesser.${n}@example.com`)))
    const statuses: number[] = []
    for (const person of people)
      for (let i = 0; i < 8; i++)
        statuses.push((await person.get(`/agent/claim?user_code=BCDF-GH${'JKLM'[i % 4]}${'NPQR'[Math.floor(i / 4)]}`)).status)
    expect(statuses.slice(0, 30)).toEqual(Array(30).fill(404))
    expect(statuses.slice(30)).toEqual([429, 429])
    // A fifth person there, who has guessed nothing, is locked out too; the page says when to come back.
    const fifth = await signInOverHttp(web, 'guesser.5@example.com')
    const locked = await fifth.get('/agent/claim?user_code=BCDF-GHJK')
    expect(locked.status).toBe(429)
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(locked.headers.get('referrer-policy')).toBe('no-referrer')
  })
})

describe(`scope requests (step-up) (${testEngine})`, () => {
  /** `POST /agent/identity/scopes` from a client address, with a token that is no agent's. */
  const askFor = (from: string) =>
    web.app.inject({
      method: 'POST',
      url: '/agent/identity/scopes',
      remoteAddress: from,
      headers: { authorization: 'Bearer qgt_unknown' },
      payload: { scopes: 'artifacts:share' },
    })

  it('spend their address’s budget like claim requests, refused ones included; other addresses are unaffected', async () => {
    const statuses: number[] = []
    for (let i = 0; i < 21; i++) statuses.push((await askFor('203.0.113.91')).statusCode)
    expect(statuses).toEqual([...Array(20).fill(401), 429])
    const limited = await askFor('203.0.113.91')
    expect(errorOf(limited)).toBe('rate_limited')
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0)
    expect((await askFor('198.51.100.91')).statusCode).toBe(401)
  })
})
