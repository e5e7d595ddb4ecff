import { createHash } from 'node:crypto'
import { createServer } from 'node:http'
import { getProfile, sessionPrincipal } from '@quire/core'
import { settleAll } from '@quire/testing/processes'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { browserTimeout, freePort, launchChromium, sessionSecretIn, signInWithBrowser, startTestWeb, type TestWeb } from './helper.ts'

let web: TestWeb
let browser: Browser
let context: BrowserContext
let page: Page

beforeAll(async () => {
  // Each is kept as soon as it is up, and both have settled before afterAll runs.
  await settleAll([
    startTestWeb().then((started) => {
      web = started
    }),
    launchChromium().then((started) => {
      browser = started
    }),
  ])
}, browserTimeout())
afterAll(async () => {
  await browser?.close()
  await web?.close()
})
beforeEach(async () => {
  context = await browser.newContext()
  page = await context.newPage()
})
afterEach(async () => {
  await context.close()
})

describe('signing in through the development provider, in Chromium', { timeout: browserTimeout() }, () => {
  it('signs in with any email, lands on return_to signed in, and the user exists with that verified email', async () => {
    await signInWithBrowser(page, web, 'Ada.Lovelace@Example.com', '/?from=sign-in-test')

    expect(page.url()).toBe(`${web.url}/?from=sign-in-test`)
    await expect(page.textContent('header.site nav')).resolves.toContain('ada.lovelace@example.com')
    await expect(page.textContent('main h1')).resolves.toContain('Welcome')

    // The cookie is the one we set: HttpOnly, Lax, host-only, not Secure on plain-http local mode.
    const cookie = (await context.cookies(web.url)).find((c) => c.name === 'quire_session')
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/', secure: false })

    // What the web app's pages see for this session's cookie.
    const secret = await sessionSecretIn(context, web)
    expect(secret).toMatch(/^qss_/)
    const secretHash = createHash('sha256')
      .update(secret ?? '')
      .digest('hex')
    const profile = await getProfile(web.runtime.deps, { credential: { secretHash, sessionCookie: true }, surface: 'web' })
    expect(profile.ok).toBe(true)
    expect(profile.ok && profile.value).toMatchObject({ email: 'ada.lovelace@example.com', emailVerified: true })
    // The same secret sent as a bearer token (as the API receives credentials) is refused: a
    // stolen cookie is not an API key.
    const asBearer = await getProfile(web.runtime.deps, { credential: { secretHash }, surface: 'api' })
    expect(asBearer.ok ? 'accepted' : asBearer.error.code).toBe('invalid_token')
  })

  it('signing in again as the same person finds the same user, with a new session', async () => {
    await signInWithBrowser(page, web, 'grace@example.com')
    const first = await sessionSecretIn(context, web)
    const firstUser = await sessionPrincipal(web.runtime.deps, first ?? '')

    const other = await browser.newContext()
    const otherPage = await other.newPage()
    await signInWithBrowser(otherPage, web, 'GRACE@example.com')
    const second = await sessionSecretIn(other, web)
    const secondUser = await sessionPrincipal(web.runtime.deps, second ?? '')
    await other.close()

    expect(second).not.toBe(first)
    expect(firstUser).toMatchObject({ kind: 'session', user: { email: 'grace@example.com' } })
    const firstId = firstUser?.kind === 'session' ? firstUser.user.id : 'no first user'
    expect(secondUser).toMatchObject({ kind: 'session', user: { id: firstId } })
  })

  it('refuses POST /logout without the CSRF token (403 problem+json), then signs out with it', async () => {
    await signInWithBrowser(page, web, 'csrf@example.com')
    const secret = await sessionSecretIn(context, web)

    // Same cookies as the page (the request context shares the browser's jar), no token.
    const missing = await page.request.post(`${web.url}/logout`, { maxRedirects: 0 })
    expect(missing.status()).toBe(403)
    expect(missing.headers()['content-type']).toContain('application/problem+json')
    expect(await missing.json()).toMatchObject({ status: 403, code: 'forbidden', type: 'urn:quire:problem:forbidden' })

    const wrong = await page.request.post(`${web.url}/logout`, { form: { _csrf: 'not-the-token' }, maxRedirects: 0 })
    expect(wrong.status()).toBe(403)
    await expect(sessionPrincipal(web.runtime.deps, secret ?? '')).resolves.not.toBeNull()

    // The page's own form carries the token.
    await Promise.all([page.waitForURL(`${web.url}/`), page.click('form[action="/logout"] button')])
    await expect(page.textContent('main')).resolves.toContain('Sign in')
    expect(await sessionSecretIn(context, web)).toBeNull()
    // Ended on the server too: the old cookie's secret no longer opens a session.
    await expect(sessionPrincipal(web.runtime.deps, secret ?? '')).resolves.toBeNull()
  })

  it('refuses a form another site makes the browser post, even with the right token, and nothing happens', async () => {
    await signInWithBrowser(page, web, 'cross-site@example.com')
    const secret = await sessionSecretIn(context, web)
    const token = await page.getAttribute('input[name="_csrf"]', 'value')
    // Another site (localhost is a different site from 127.0.0.1) whose page posts a form here on load.
    const port = await freePort()
    const attacker = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html; charset=utf-8')
      res.end(
        `<form method="post" action="${web.url}/logout"><input name="_csrf" value="${token ?? ''}"></form><script>document.forms[0].submit()</script>`,
      )
    })
    await new Promise<void>((done) => attacker.listen(port, '127.0.0.1', done))
    try {
      const refused = page.waitForResponse((r) => r.url() === `${web.url}/logout`)
      await page.goto(`http://localhost:${port}/`)
      const response = await refused
      expect(response.status()).toBe(403)
      await page.waitForLoadState()
      await expect(page.textContent('main')).resolves.toContain('sent from another site')
      await expect(sessionPrincipal(web.runtime.deps, secret ?? '')).resolves.not.toBeNull()
      // Without a browser's word for it (a script's fetch with a foreign Origin), the same.
      const forged = await fetch(`${web.url}/logout`, {
        method: 'POST',
        headers: { origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
        body: `_csrf=${token ?? ''}`,
        redirect: 'manual',
      })
      expect(forged.status).toBe(403)
    } finally {
      await new Promise<void>((done) => attacker.close(() => done()))
    }
  })

  it('accepts the CSRF token as the X-CSRF-Token header', async () => {
    await signInWithBrowser(page, web, 'header@example.com')
    const token = await page.getAttribute('input[name="_csrf"]', 'value')
    const response = await page.request.post(`${web.url}/logout`, { headers: { 'x-csrf-token': token ?? '' }, maxRedirects: 0 })
    expect(response.status()).toBe(303)
    expect(response.headers().location).toBe('/')
  })

  it.each([
    ['an absolute URL', 'https://evil.example'],
    ['a protocol-relative URL', '//evil.example'],
    ['a backslash path', '/\\evil.example'],
  ])('ignores return_to when it is %s, and lands on /', async (_name, returnTo) => {
    await signInWithBrowser(page, web, 'redirect@example.com', returnTo)
    expect(page.url()).toBe(`${web.url}/`)
    await expect(page.textContent('header.site nav')).resolves.toContain('redirect@example.com')
  })

  it('ends on a readable page when the person cancels at the provider', async () => {
    await page.goto(`${web.url}/login`)
    await page.waitForURL(/\/dev-oidc\/interaction\//)
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().includes('/auth/callback')),
      page.click('button[value="cancel"]'),
    ])
    expect(response.status()).toBe(400)
    await expect(page.textContent('main h1')).resolves.toBe('Sign-in cancelled')
    await expect(page.textContent('main')).resolves.toContain('access_denied')
    await expect(page.textContent('body')).resolves.not.toMatch(/at .*\.(ts|js):\d+/)
    expect(await sessionSecretIn(context, web)).toBeNull()
  })
})
