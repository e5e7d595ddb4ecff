/**
 * No secret at rest: after every flow that hands out a secret (a browser session, an OAuth code,
 * access and refresh tokens, API keys and share links, each also retried under an
 * Idempotency-Key), the whole database is dumped and searched for every secret handed out so far,
 * and for anything shaped like one of Quire's secrets. Real HTTP throughout: the person signs in
 * and consents in headless Chromium, the client talks to the web app and the API as a CLI would.
 */
import { createHash, randomBytes } from 'node:crypto'
import { secretPrefixes } from '@quire/core'
import { testEngine } from '@quire/testing/test-database'
import type { Browser, BrowserContext } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  browserTimeout,
  type LoopbackListener,
  launchChromium,
  sessionSecretIn,
  signInWithBrowser,
  startLoopbackListener,
  startTestWeb,
  type TestWeb,
} from './helper.ts'

let web: TestWeb
let browser: Browser
let context: BrowserContext
let loopback: LoopbackListener
/** Every secret handed out so far, by what it is. */
const handedOut = new Map<string, string>()

beforeAll(async () => {
  web = await startTestWeb({ api: true })
  browser = await launchChromium()
  context = await browser.newContext()
  loopback = await startLoopbackListener()
}, browserTimeout())
afterAll(async () => {
  await context?.close()
  await browser?.close()
  await loopback?.close()
  await web?.close()
})

/** Every row of every table, as text: what a stolen backup would show. */
async function dump(): Promise<string> {
  const { query } = web.runtime.database
  const tables = await query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables
      WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`,
    [],
  )
  expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(['credentials', 'idempotency_keys', 'audit_events']))
  const parts: string[] = []
  for (const { name } of tables) {
    // Names from the catalogue, quoted as identifiers.
    const rows = await query<{ row: string }>(`SELECT row_to_json(t)::text AS row FROM "${name.replaceAll('"', '""')}" t`, [])
    parts.push(`-- ${name}`, ...rows.map((r) => r.row))
  }
  return parts.join('\n')
}

const secretShape = new RegExp(`(?:${Object.values(secretPrefixes).join('|')})[A-Za-z0-9_-]{16,}`, 'g')

/** The dump holds none of the secrets handed out, nor anything shaped like one. */
async function expectNoSecretAtRest(after: string) {
  const text = await dump()
  for (const [what, secret] of handedOut) expect(text.includes(secret), `${what} found in the database after ${after}`).toBe(false)
  expect(text.match(secretShape) ?? [], `secret-shaped strings after ${after}`).toEqual([])
}

function remember(what: string, secret: unknown): string {
  expect(typeof secret, what).toBe('string')
  handedOut.set(what, secret as string)
  return secret as string
}

async function form(path: string, body: Record<string, string>) {
  const res = await fetch(`${web.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(body).toString(),
  })
  const text = await res.text()
  return { status: res.status, body: text === '' ? null : JSON.parse(text) }
}

async function api(method: string, path: string, token: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${web.apiUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await res.text()
  return { status: res.status, body: text ? JSON.parse(text) : null }
}

describe(`no secret at rest (${testEngine})`, { timeout: browserTimeout() }, () => {
  let accessToken = ''

  it('a browser session', async () => {
    const page = await context.newPage()
    await signInWithBrowser(page, web, 'at-rest@example.com')
    remember('the session secret', await sessionSecretIn(context, web))
    await expectNoSecretAtRest('sign-in')
  })

  it('an OAuth code, access and refresh tokens, and their rotation', async () => {
    const registered = await fetch(`${web.url}/oauth2/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'At rest', redirect_uris: ['http://127.0.0.1/callback'] }),
    })
    const clientId = (await registered.json()).client_id
    const verifier = randomBytes(32).toString('base64url')
    const page = await context.newPage()
    const query = new URLSearchParams({
      client_id: clientId,
      redirect_uri: loopback.redirectUri,
      response_type: 'code',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      state: 'at-rest',
      resource: web.apiUrl,
    })
    await page.goto(`${web.url}/oauth2/authorize?${query}`)
    await Promise.all([page.waitForURL((url) => url.href.startsWith(loopback.redirectUri)), page.click('button[value="approve"]')])
    const code = remember('the authorization code', loopback.landed?.searchParams.get('code'))
    await expectNoSecretAtRest('authorization')

    const tokens = await form('/oauth2/token', {
      grant_type: 'authorization_code',
      client_id: clientId,
      code,
      redirect_uri: loopback.redirectUri,
      code_verifier: verifier,
    })
    expect(tokens.status).toBe(200)
    remember('the first access token', tokens.body.access_token)
    remember('the first refresh token', tokens.body.refresh_token)
    await expectNoSecretAtRest('the code exchange')

    const rotated = await form('/oauth2/token', {
      grant_type: 'refresh_token',
      client_id: clientId,
      refresh_token: tokens.body.refresh_token,
    })
    expect(rotated.status).toBe(200)
    accessToken = remember('the rotated access token', rotated.body.access_token)
    remember('the rotated refresh token', rotated.body.refresh_token)
    await expectNoSecretAtRest('the refresh')
    expect((await api('GET', '/api/profile/me', accessToken)).status).toBe(200)
  })

  it('API keys and share links, created and retried under an Idempotency-Key', async () => {
    const retry = { 'idempotency-key': 'at-rest-key' }
    const key = await api('POST', '/api/api-keys', accessToken, { name: 'at rest', scopes: ['artifacts:read'] }, retry)
    expect(key.status).toBe(201)
    remember('the API key', key.body.secret)
    const replayed = await api('POST', '/api/api-keys', accessToken, { name: 'at rest', scopes: ['artifacts:read'] }, retry)
    expect(replayed.body).toMatchObject({ id: key.body.id, secret: null })
    await expectNoSecretAtRest('creating an API key')

    const me = (await api('GET', '/api/profile/me', accessToken)).body
    await api('POST', '/api/projects', accessToken, { ownerUsername: me.username, slug: 'rest', title: 'Rest', icon: 'r' })
    const artifact = await api('POST', '/api/artifacts', accessToken, {
      ownerUsername: me.username,
      projectSlug: 'rest',
      slug: 'doc',
      type: 'md',
      title: 'Doc',
      content: '# at rest\n',
      changelog: '',
      access: { publicView: false, publicEdit: false },
    })
    const linkHeaders = { 'idempotency-key': 'at-rest-link' }
    const link = await api('POST', `/api/artifacts/${artifact.body.id}/share-links`, accessToken, { role: 'editor' }, linkHeaders)
    expect(link.status).toBe(201)
    remember('the share link', link.body.secret)
    const again = await api('POST', `/api/artifacts/${artifact.body.id}/share-links`, accessToken, { role: 'editor' }, linkHeaders)
    expect(again.body).toMatchObject({ id: link.body.id, secret: null, url: null })
    // Using the secrets (and a dead one) writes usage stamps and refusals, never the secret.
    expect((await api('GET', `/api/artifacts/${artifact.body.id}`, link.body.secret)).status).toBe(200)
    expect((await api('GET', '/api/profile/me', key.body.secret)).status).toBe(200)
    await expectNoSecretAtRest('creating and using a share link')
  })

  it('signing out and revoking', async () => {
    const page = await context.newPage()
    await page.goto(web.url)
    const signOut = page.locator('form[action="/logout"] button')
    expect(await signOut.count()).toBe(1)
    await Promise.all([page.waitForURL(() => true), signOut.click()])
    expect(await page.locator('form[action="/logout"]').count()).toBe(0)
    expect(await form('/oauth2/revoke', { token: accessToken })).toMatchObject({ status: 200 })
    await expectNoSecretAtRest('sign-out and revocation')
    expect(handedOut.size).toBe(8)
  })
})
