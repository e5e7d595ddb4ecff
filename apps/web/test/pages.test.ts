import { webRateLimits } from '@quire/web-http'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startTestWeb, type TestWeb } from './helper.ts'

let web: TestWeb

beforeAll(async () => {
  web = await startTestWeb()
})
afterAll(async () => {
  await web?.close()
})

const asBrowser = { accept: 'text/html,application/xhtml+xml' }

describe('pages', () => {
  it('serves the signed-out front page with a sign-in button and a self-only CSP', async () => {
    const res = await web.app.inject({ url: '/', headers: asBrowser })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toContain('text/html')
    expect(res.body).toContain('href="/login"')
    expect(res.body).toContain('any email address')
    // The MCP host is pointed at this origin (WEB_URL), not at an address written in the page.
    expect(res.body).toContain(`claude mcp add --transport http quire ${web.url}/mcp`)
    const csp = String(res.headers['content-security-policy'])
    expect(csp).toContain("default-src 'self'")
    expect(csp).toContain("frame-ancestors 'none'")
    expect(csp).not.toMatch(/https?:/)
    expect(res.headers['x-frame-options']).toBe('DENY')
  })

  it('answers the load balancer on /health: 200 while the database answers, a 503 problem when it does not', async () => {
    const up = await web.app.inject({ url: '/health' })
    expect(up.statusCode).toBe(200)
    expect(up.json()).toMatchObject({ status: 'ok', database: 'ok' })
    vi.spyOn(web.runtime.deps.health, 'ping').mockRejectedValueOnce(new Error('connection refused'))
    const down = await web.app.inject({ url: '/health' })
    expect(down.statusCode).toBe(503)
    expect(down.headers['content-type']).toContain('application/problem+json')
    expect(down.json()).toMatchObject({ code: 'service_unavailable' })
    expect(down.body).not.toContain('connection refused')
  })

  it('serves its stylesheet from its own origin, cacheable forever', async () => {
    const home = await web.app.inject({ url: '/' })
    const href = /<link rel="stylesheet" href="([^"]+)"/.exec(home.body)?.[1] ?? ''
    expect(href).toMatch(/^\/assets\/quire\.[0-9a-f]{12}\.css$/)
    const css = await web.app.inject({ url: href })
    expect(css.statusCode).toBe(200)
    expect(css.headers['content-type']).toContain('text/css')
    expect(css.headers['cache-control']).toContain('immutable')
  })

  it('answers an unknown page with a 404 page for browsers and problem+json for others', async () => {
    const page = await web.app.inject({ url: '/nowhere', headers: asBrowser })
    expect(page.statusCode).toBe(404)
    expect(page.body).toContain('Page not found')
    const problem = await web.app.inject({ url: '/nowhere' })
    expect(problem.statusCode).toBe(404)
    expect(problem.json()).toMatchObject({ code: 'not_found', status: 404 })
  })

  it('treats a forged session cookie as signed out and clears it', async () => {
    const res = await web.app.inject({ url: '/', headers: { ...asBrowser, cookie: 'quire_session=qss_forged.c2lnbmF0dXJl' } })
    expect(res.statusCode).toBe(200)
    expect(res.body).toContain('href="/login"')
    expect(String(res.headers['set-cookie'])).toMatch(/quire_session=;.*Expires=Thu, 01 Jan 1970/)
  })

  it('signs out without a session by just going home (nothing to protect, nothing to end)', async () => {
    const res = await web.app.inject({ method: 'POST', url: '/logout' })
    expect(res.statusCode).toBe(303)
    expect(res.headers.location).toBe('/')
  })
})

describe('the sign-in flow, over HTTP', () => {
  it('/login sends the browser to the provider with PKCE (S256), state and nonce, and remembers them in a signed cookie', async () => {
    const res = await fetch(`${web.url}/login?return_to=%2Fsomewhere`, { redirect: 'manual' })
    expect(res.status).toBe(303)
    const location = new URL(res.headers.get('location') ?? '')
    expect(`${location.origin}${location.pathname}`).toBe(`${web.url}/dev-oidc/auth`)
    expect(location.searchParams.get('code_challenge_method')).toBe('S256')
    expect(location.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/)
    expect(location.searchParams.get('state')).toBeTruthy()
    expect(location.searchParams.get('nonce')).toBeTruthy()
    expect(location.searchParams.get('redirect_uri')).toBe(`${web.url}/auth/callback`)
    expect(location.searchParams.get('scope')).toBe('openid email')
    const cookie = res.headers.get('set-cookie') ?? ''
    expect(cookie).toMatch(/^quire_sign_in=/)
    expect(cookie).toContain('Path=/auth/callback')
    expect(cookie).toContain('HttpOnly')
    expect(cookie).toContain('SameSite=Lax')
  })

  it('publishes the development provider at /dev-oidc, with its issuer on the web origin', async () => {
    const res = await fetch(`${web.url}/dev-oidc/.well-known/openid-configuration`)
    expect(res.status).toBe(200)
    const metadata = (await res.json()) as Record<string, unknown>
    expect(metadata.issuer).toBe(`${web.url}/dev-oidc`)
    expect(metadata.token_endpoint).toBe(`${web.url}/dev-oidc/token`)
    expect(metadata.code_challenge_methods_supported).toEqual(['S256'])
  })

  it('serves the OAuth authorization server metadata at the web origin', async () => {
    const res = await fetch(`${web.url}/.well-known/oauth-authorization-server`)
    expect(res.status).toBe(200)
    const metadata = (await res.json()) as Record<string, unknown>
    expect(metadata.issuer).toBe(web.url)
    expect(metadata.authorization_endpoint).toBe(`${web.url}/oauth2/authorize`)
  })

  it('ends a callback without a sign-in in progress on a readable page', async () => {
    const res = await fetch(`${web.url}/auth/callback?code=abc&state=xyz`, { headers: asBrowser, redirect: 'manual' })
    expect(res.status).toBe(400)
    const body = await res.text()
    expect(body).toContain('Sign-in expired')
    expect(body).toContain('href="/login"')
  })

  it('ends an expired or unknown provider interaction on a readable page', async () => {
    const res = await fetch(`${web.url}/dev-oidc/interaction/unknown-uid`, { headers: asBrowser })
    expect(res.status).toBe(400)
    expect(await res.text()).toContain('Sign-in expired')
  })
})

describe('refusals in the shape of the endpoint', () => {
  it('a malformed body at an OAuth client endpoint is an RFC 6749 error, not a page or a 500', async () => {
    const res = await web.app.inject({
      method: 'POST',
      url: '/oauth2/register',
      headers: { 'content-type': 'application/json' },
      payload: '{"redirect_uris": [',
    })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toMatchObject({ error: 'invalid_request', error_description: expect.any(String) })
  })
})

describe('rate limits on what anyone can call', () => {
  it('caps client registrations per address, answering 429 in OAuth shape with Retry-After', async () => {
    const register = () =>
      web.app.inject({
        method: 'POST',
        url: '/oauth2/register',
        remoteAddress: '203.0.113.9',
        payload: { client_name: 'Flood', redirect_uris: ['http://127.0.0.1/cb'] },
      })
    for (let i = 0; i < webRateLimits.registration.max; i++) expect((await register()).statusCode).toBe(201)
    const refused = await register()
    expect(refused.statusCode).toBe(429)
    expect(refused.json()).toMatchObject({ error: 'rate_limited' })
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0)
    // Another address still gets through.
    const other = await web.app.inject({
      method: 'POST',
      url: '/oauth2/register',
      remoteAddress: '203.0.113.10',
      payload: { client_name: 'Other', redirect_uris: ['http://127.0.0.1/cb'] },
    })
    expect(other.statusCode).toBe(201)
  })

  it('caps sign-in starts per address with a page for people', async () => {
    const start = () => web.app.inject({ url: '/login', remoteAddress: '203.0.113.20', headers: asBrowser })
    for (let i = 0; i < webRateLimits.signIn.max; i++) expect((await start()).statusCode).toBe(303)
    const refused = await start()
    expect(refused.statusCode).toBe(429)
    expect(refused.headers['content-type']).toContain('text/html')
    expect(refused.body).toContain('Too many requests')
  })
})
