/**
 * Pages whose URL carries a secret (a share link, a user code, an OAuth request, the sign-in
 * callback's code) send no Referer: `Referrer-Policy: no-referrer` on every answer, a refusal
 * included, and no `<meta name="referrer">` in the page to override it. Every other page keeps
 * `same-origin`. Their forms still work in a browser, which sends `Origin: null` from such a page.
 */
import { createHash, randomBytes } from 'node:crypto'
import { testEngine } from '@quire/testing/test-database'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  agentLayerEnv,
  type LoopbackListener,
  launchChromium,
  signInWithBrowser,
  startLoopbackListener,
  startTestWeb,
  type TestWeb,
} from './helper.ts'
import { type HttpSession, signInOverHttp } from './http-session.ts'
import { author } from './mcp-helper.ts'

let web: TestWeb
let browser: Browser | undefined
let loopback: LoopbackListener | undefined
let session: HttpSession
let shareSecret: string
let clientId: string

beforeAll(async () => {
  web = await startTestWeb({ api: true, env: agentLayerEnv() })
  const writer = await author(web, 'referrer.owner@example.com')
  const plan = await writer.artifact('plan', { title: 'Plan', content: '# Plan\n\nSee [the other page](/referrer-owner/notes/other).\n' })
  shareSecret = ((await writer.api('POST', `/api/artifacts/${plan.id}/share-links`, {})) as { secret: string }).secret
  session = await signInOverHttp(web, 'referrer.person@example.com')
  const registered = await fetch(`${web.url}/oauth2/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Referrer CLI', redirect_uris: ['http://127.0.0.1/callback'] }),
  })
  clientId = ((await registered.json()) as { client_id: string }).client_id
})
afterAll(async () => {
  await browser?.close()
  await loopback?.close()
  await web?.close()
})

/** What decides where a Referer goes: the header, and any referrer meta in the page. */
async function referrerOf(response: Response): Promise<{ status: number; header: string | null; metas: string[] }> {
  const text = await response.text()
  return { status: response.status, header: response.headers.get('referrer-policy'), metas: text.match(/<meta[^>]*referrer[^>]*>/gi) ?? [] }
}

const anonymous = (path: string) => fetch(`${web.url}${path}`, { headers: { accept: 'text/html' }, redirect: 'manual' })

describe(`pages with a secret in their URL send no Referer (${testEngine})`, () => {
  it('share links: the page, a pinned version, the raw text, an unknown link', async () => {
    const share = `/s/${encodeURIComponent(shareSecret)}`
    const answers = {
      page: await anonymous(share),
      pinned: await anonymous(`${share}?version=1`),
      raw: await anonymous(`${share}/raw`),
      unknown: await anonymous(`/s/${randomBytes(32).toString('base64url')}`),
      unknownRaw: await anonymous(`/s/${randomBytes(32).toString('base64url')}/raw`),
      noSuchVersion: await anonymous(`${share}?version=9`),
    }
    const seen = Object.fromEntries(await Promise.all(Object.entries(answers).map(async ([k, r]) => [k, await referrerOf(r)])))
    expect(seen).toEqual({
      page: { status: 200, header: 'no-referrer', metas: [] },
      pinned: { status: 200, header: 'no-referrer', metas: [] },
      raw: { status: 200, header: 'no-referrer', metas: [] },
      unknown: { status: 404, header: 'no-referrer', metas: [] },
      unknownRaw: { status: 404, header: 'no-referrer', metas: [] },
      noSuchVersion: { status: 404, header: 'no-referrer', metas: [] },
    })
  })

  it('the claim page with a user code, signed in or not', async () => {
    const signedIn = await referrerOf(await session.get('/agent/claim?user_code=BCDF-GHJK', { accept: 'text/html' }))
    expect(signedIn).toEqual({ status: 404, header: 'no-referrer', metas: [] })
    const entry = await referrerOf(await session.get('/agent/claim', { accept: 'text/html' }))
    expect(entry).toEqual({ status: 200, header: 'no-referrer', metas: [] })
    // Signed out: the redirect to sign in carries the code in return_to.
    const signedOut = await anonymous('/agent/claim?user_code=BCDF-GHJK')
    expect(signedOut.status).toBe(302)
    expect(signedOut.headers.get('referrer-policy')).toBe('no-referrer')
  })

  it('the OAuth consent page and its refusals, the sign-in start and callback', async () => {
    const challenge = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url')
    const query = new URLSearchParams({
      client_id: clientId,
      redirect_uri: 'http://127.0.0.1:51234/callback',
      response_type: 'code',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: randomBytes(16).toString('base64url'),
    })
    const consent = await referrerOf(await session.get(`/oauth2/authorize?${query}`, { accept: 'text/html' }))
    expect(consent).toEqual({ status: 200, header: 'no-referrer', metas: [] })
    const refused = await referrerOf(await anonymous('/oauth2/authorize?client_id=cli_nobody&state=s'))
    expect(refused).toEqual({ status: 400, header: 'no-referrer', metas: [] })
    const toSignIn = await anonymous(`/oauth2/authorize?${query}`)
    expect(toSignIn.status).toBe(302)
    expect(toSignIn.headers.get('referrer-policy')).toBe('no-referrer')
    const login = await anonymous(`/login?return_to=${encodeURIComponent(`/oauth2/authorize?${query}`)}`)
    expect(login.status).toBe(303)
    expect(login.headers.get('referrer-policy')).toBe('no-referrer')
    // A callback without the sign-in's cookie fails on a page, the provider's code still in its URL.
    const callback = await referrerOf(await anonymous(`/auth/callback?code=${randomBytes(16).toString('hex')}&state=s`))
    expect(callback).toEqual({ status: 400, header: 'no-referrer', metas: [] })
  })

  it("the development provider's interaction page", async () => {
    const interaction = await referrerOf(await anonymous(`/dev-oidc/interaction/${randomBytes(16).toString('hex')}`))
    expect(interaction.header).toBe('no-referrer')
    expect(interaction.metas).toEqual([])
  })

  it('every other page keeps same-origin, said by the header alone', async () => {
    for (const path of ['/', '/no-such-page', '/referrer-owner']) {
      const seen = await referrerOf(await anonymous(path))
      expect(seen.header, path).toBe('same-origin')
      expect(seen.metas, path).toEqual([])
    }
    const settings = await referrerOf(await session.get('/settings', { accept: 'text/html' }))
    expect(settings).toEqual({ status: 200, header: 'same-origin', metas: [] })
  })
})

describe(`forms on pages with a secret in their URL, in a browser (${testEngine})`, () => {
  it('confirming a claim, allowing an OAuth client and signing out from a share link all go through', async () => {
    browser = await launchChromium()
    loopback = await startLoopbackListener()
    const context = await browser.newContext()
    try {
      const page = await context.newPage()
      const email = 'referrer.browser@example.com'
      await signInWithBrowser(page, web, email)

      // The claim page's form (its URL carries the user code).
      const registered = await fetch(`${web.url}/agent/identity`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'service_auth', login_hint: email }),
      })
      const code = ((await registered.json()) as { claim: { user_code: string } }).claim.user_code
      await page.goto(`${web.url}/agent/claim?user_code=${code}`)
      await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.click('button:has-text("Connect agent")')])
      expect(await page.getByRole('heading', { name: 'Agent connected' }).count()).toBe(1)

      // The consent page's form (its URL carries the request's state and challenge).
      const registeredClient = await fetch(`${web.url}/oauth2/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'Browser CLI', redirect_uris: [loopback.redirectUri] }),
      })
      const query = new URLSearchParams({
        client_id: ((await registeredClient.json()) as { client_id: string }).client_id,
        redirect_uri: loopback.redirectUri,
        response_type: 'code',
        code_challenge: createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url'),
        code_challenge_method: 'S256',
        state: 'browser-state',
      })
      await page.goto(`${web.url}/oauth2/authorize?${query}`)
      const target = loopback.redirectUri
      await Promise.all([page.waitForURL((url) => url.href.startsWith(target)), page.click('button[value="approve"]')])
      expect(loopback.landed?.searchParams.get('state')).toBe('browser-state')
      expect(loopback.landed?.searchParams.get('code')).toBeTruthy()

      // The header's sign-out form, on a share link's page.
      await page.goto(`${web.url}/s/${encodeURIComponent(shareSecret)}`)
      await Promise.all([page.waitForURL(`${web.url}/`), page.click('button:has-text("Sign out")')])
      expect((await context.cookies(web.url)).some((c) => c.name === 'quire_session')).toBe(false)
    } finally {
      await context.close()
    }
  })
})
