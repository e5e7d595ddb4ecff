/**
 * The OAuth 2.1 authorization server over real HTTP: a person signs in and consents in headless
 * Chromium; the client side (registration, token exchange, refresh, revocation) is plain HTTP as
 * a CLI or an MCP host sends it. Failures must be RFC 6749 errors.
 */
import { createHash, randomBytes } from 'node:crypto'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  browserTimeout,
  type LoopbackListener,
  launchChromium,
  signInWithBrowser,
  startLoopbackListener,
  startTestWeb,
  type TestWeb,
} from './helper.ts'
import { signInOverHttp } from './http-session.ts'

let web: TestWeb
let browser: Browser
let loopback: LoopbackListener

beforeAll(async () => {
  web = await startTestWeb()
  browser = await launchChromium()
  loopback = await startLoopbackListener()
}, browserTimeout())
afterAll(async () => {
  await browser?.close()
  await web?.close()
  await loopback?.close()
})

async function post(path: string, body: Record<string, string>, type: 'form' | 'json' = 'form') {
  const res = await fetch(`${web.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': type === 'form' ? 'application/x-www-form-urlencoded' : 'application/json' },
    body: type === 'form' ? new URLSearchParams(body).toString() : JSON.stringify(body),
  })
  const text = await res.text()
  return { status: res.status, body: text === '' ? null : JSON.parse(text), headers: res.headers }
}

async function register(): Promise<string> {
  const res = await fetch(`${web.url}/oauth2/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Test CLI', redirect_uris: ['http://127.0.0.1/callback'] }),
  })
  expect(res.status).toBe(201)
  return (await res.json()).client_id
}

function pkce() {
  const verifier = randomBytes(32).toString('base64url')
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') }
}

/** Signs in (once per browser context), opens the consent page, allows, and returns the code the client receives. */
async function authorize(clientId: string, challenge: string, options: { resource?: string; email?: string } = {}): Promise<string> {
  const context = await browser.newContext()
  try {
    const page = await context.newPage()
    await signInWithBrowser(page, web, options.email ?? 'oauth.person@example.com')
    const query = new URLSearchParams({
      client_id: clientId,
      redirect_uri: loopback.redirectUri,
      response_type: 'code',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 'xyz',
      scope: 'artifacts:read artifacts:create',
      ...(options.resource ? { resource: options.resource } : {}),
    })
    loopback.landed = null
    await page.goto(`${web.url}/oauth2/authorize?${query}`)
    await page.getByText('Test CLI').first().waitFor()
    await Promise.all([page.waitForURL((url) => url.href.startsWith(loopback.redirectUri)), page.click('button[value="approve"]')])
    const url = loopback.landed as URL | null
    if (url === null) throw new Error('no redirect')
    expect(url.searchParams.get('state')).toBe('xyz')
    expect(url.searchParams.get('iss')).toBe(web.url)
    return url.searchParams.get('code') ?? ''
  } finally {
    await context.close()
  }
}

describe('the OAuth 2.1 authorization server', { timeout: browserTimeout() }, () => {
  it('publishes metadata whose issuer is the web origin, with S256 PKCE', async () => {
    const metadata = await (await fetch(`${web.url}/.well-known/oauth-authorization-server`)).json()
    expect(metadata).toMatchObject({
      issuer: web.url,
      code_challenge_methods_supported: ['S256'],
      token_endpoint: `${web.url}/oauth2/token`,
    })
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      expect(await (await fetch(`${web.url}${path}`)).json()).toMatchObject({
        resource: `${web.url}/mcp`,
        authorization_servers: [web.url],
      })
    }
  })

  it('code + PKCE → tokens the API accepts; the code works once; refresh rotates; reuse revokes the family; revoke is idempotent', async () => {
    const clientId = await register()
    const { verifier, challenge } = pkce()
    const code = await authorize(clientId, challenge)
    const exchange = { grant_type: 'authorization_code', client_id: clientId, code, redirect_uri: loopback.redirectUri }

    const wrong = await post('/oauth2/token', { ...exchange, code_verifier: 'w'.repeat(43) })
    expect(wrong.status).toBe(400)
    expect(wrong.body.error).toBe('invalid_grant')
    // A wrong verifier does not burn the code (whoever holds a stolen code cannot spoil it for
    // its client): the rightful exchange still works, once.
    const code2 = code
    const tokens = await post('/oauth2/token', { ...exchange, code: code2, code_verifier: verifier })
    expect(tokens.status).toBe(200)
    expect(tokens.headers.get('cache-control')).toBe('no-store')
    expect(tokens.body).toMatchObject({ token_type: 'Bearer', scope: 'artifacts:read artifacts:create' })
    const reused = await post('/oauth2/token', { ...exchange, code: code2, code_verifier: verifier })
    expect(reused.body.error).toBe('invalid_grant')
    // The reuse revoked what the code had bought.
    expect(await principalOf(tokens.body.access_token)).toBeNull()

    const code3 = await authorize(clientId, challenge)
    const fresh = (await post('/oauth2/token', { ...exchange, code: code3, code_verifier: verifier })).body
    expect(await principalOf(fresh.access_token)).toBe('oauth.person@example.com')
    const rotated = await post('/oauth2/token', { grant_type: 'refresh_token', client_id: clientId, refresh_token: fresh.refresh_token })
    expect(rotated.status).toBe(200)
    expect(rotated.body.refresh_token).not.toBe(fresh.refresh_token)
    const replay = await post('/oauth2/token', { grant_type: 'refresh_token', client_id: clientId, refresh_token: fresh.refresh_token })
    expect(replay.body.error).toBe('invalid_grant')
    expect(await principalOf(rotated.body.access_token)).toBeNull()

    const code4 = await authorize(clientId, challenge)
    const last = (await post('/oauth2/token', { ...exchange, code: code4, code_verifier: verifier })).body
    for (let i = 0; i < 2; i++) expect((await post('/oauth2/revoke', { token: last.access_token, client_id: clientId })).status).toBe(200)
    expect(await principalOf(last.access_token)).toBeNull()
  })

  it('answers RFC 6749 errors: unknown client, mismatched redirect URI, missing PKCE, unsupported grant', async () => {
    const unknown = await post('/oauth2/token', {
      grant_type: 'authorization_code',
      client_id: 'cli_nobody',
      code: 'x',
      redirect_uri: loopback.redirectUri,
      code_verifier: 'v'.repeat(43),
    })
    expect(unknown.status).toBe(401)
    expect(unknown.body.error).toBe('invalid_client')
    const clientId = await register()
    const { verifier, challenge } = pkce()
    const code = await authorize(clientId, challenge)
    const mismatched = await post('/oauth2/token', {
      grant_type: 'authorization_code',
      client_id: clientId,
      code,
      redirect_uri: loopback.redirectUri.replace('/callback', '/other'),
      code_verifier: verifier,
    })
    expect(mismatched.body.error).toBe('invalid_grant')
    expect((await post('/oauth2/token', { grant_type: 'password' })).body.error).toBe('unsupported_grant_type')
    const noPkce = await fetch(
      `${web.url}/oauth2/authorize?client_id=${clientId}&redirect_uri=${encodeURIComponent(loopback.redirectUri)}&response_type=code&state=s`,
      { redirect: 'manual' },
    )
    expect(noPkce.status).toBe(302)
    const sent = new URL(noPkce.headers.get('location') ?? '')
    expect(sent.searchParams.get('error')).toBe('invalid_request')
    expect(sent.searchParams.get('state')).toBe('s')
    const badRedirect = await fetch(
      `${web.url}/oauth2/authorize?client_id=${clientId}&redirect_uri=${encodeURIComponent('https://evil.example/cb')}&response_type=code`,
      { redirect: 'manual' },
    )
    expect(badRedirect.status).toBe(400)
    expect(badRedirect.headers.get('location')).toBeNull()
    const badRegistration = await post('/oauth2/register', { redirect_uris: 'http://evil.example/cb' } as never, 'json')
    expect(badRegistration.body.error).toBe('invalid_redirect_uri')
  })

  it('never sends a code to a redirect URI with a fragment, loopback or not (RFC 6749 §3.1.2)', async () => {
    const clientId = await register()
    const { challenge } = pkce()
    const request = (redirectUri: string) => ({
      client_id: clientId,
      redirect_uri: redirectUri,
      response_type: 'code',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 's',
    })
    const session = await signInOverHttp(web, 'fragment.person@example.com')
    const csrf = await session.csrf()
    for (const redirectUri of [`${loopback.redirectUri}#f`, `${loopback.redirectUri}#`, 'http://127.0.0.1/callback#f']) {
      const shown = await session.get(`/oauth2/authorize?${new URLSearchParams(request(redirectUri))}`)
      expect(shown.status, redirectUri).toBe(400)
      expect(shown.headers.get('location')).toBeNull()
      expect(await shown.text()).toContain('not one this client registered')
      // The consent form, posted as if it had been shown, is checked again: no code, no redirect.
      const approved = await session.postForm('/oauth2/authorize', { ...request(redirectUri), decision: 'approve', _csrf: csrf })
      expect(approved.status, redirectUri).toBe(400)
      expect(approved.headers.get('location')).toBeNull()
    }
    const refused = await post('/oauth2/register', { redirect_uris: ['http://127.0.0.1/cb#f'] } as never, 'json')
    expect(refused.status).toBe(400)
    expect(refused.body.error).toBe('invalid_redirect_uri')
  })

  it('a token issued for another resource is refused by the API', async () => {
    const clientId = await register()
    const { verifier, challenge } = pkce()
    const code = await authorize(clientId, challenge, { resource: `${web.url}/mcp` })
    const tokens = (
      await post('/oauth2/token', {
        grant_type: 'authorization_code',
        client_id: clientId,
        code,
        redirect_uri: loopback.redirectUri,
        code_verifier: verifier,
      })
    ).body
    expect(await principalOf(tokens.access_token)).toBeNull()
  })
})

/** Who the API (audience https://api.quire.test) takes a bearer token for: the email, or null when refused. */
async function principalOf(token: string): Promise<string | null> {
  const record = await web.runtime.deps.credentials.find({ secretHash: web.runtime.deps.sha256(token) as string })
  const auth = web.runtime.deps.policy.authenticate(record, new Date())
  return auth.ok && auth.principal.kind === 'oauth' ? auth.principal.user.email : null
}
