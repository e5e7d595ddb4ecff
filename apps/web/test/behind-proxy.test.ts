/**
 * The web app behind a TLS-terminating proxy, as production runs it: WEB_URL is https, the app
 * itself listens on plain http, and TRUST_PROXY names the proxy. The proxy here is a real one
 * (node:https with a certificate made for this run, which this worker trusts while it lasts): it
 * forwards every request to the app with X-Forwarded-For, -Proto and -Host, and the app's own
 * calls to its development provider (discovery, token, UserInfo) go through it too.
 *
 * Every cookie set on the way through a whole sign-in and sign-out (the pending sign-in, the
 * development provider's own, the session) must be Secure; on plain-http local mode none may be,
 * or local sign-in would break. The per-address limits must count the client the proxy names.
 */
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { createServer as createHttpsServer, type Server } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import tls from 'node:tls'
import { createRuntime, type Runtime } from '@quire/runtime'
import { buildWebApp } from '@quire/site'
import { testDatabase } from '@quire/testing/test-database'
import { webRateLimits } from '@quire/web-http'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readServerEnv } from '../src/env.ts'
import { serverWebAppOptions } from '../src/options.ts'
import { freePort, startTestWeb, type TestWeb } from './helper.ts'

/** A key and a self-signed certificate for 127.0.0.1, made with openssl for this run. */
function selfSignedCertificate(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'quire-tls-'))
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    )
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * A TLS-terminating reverse proxy on `port` in front of the app on `upstream`, as nginx is
 * usually set up: it appends the address it sees to X-Forwarded-For and says https and the host.
 */
function startTlsProxy(options: { port: number; upstream: number; key: string; cert: string }): Promise<Server> {
  const server = createHttpsServer({ key: options.key, cert: options.cert }, (req, res) => {
    const seen = req.socket.remoteAddress ?? ''
    const forwardedFor = req.headers['x-forwarded-for'] ? `${req.headers['x-forwarded-for']}, ${seen}` : seen
    const upstream = httpRequest(
      {
        host: '127.0.0.1',
        port: options.upstream,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, 'x-forwarded-for': forwardedFor, 'x-forwarded-proto': 'https', 'x-forwarded-host': req.headers.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      },
    )
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502)
      res.end()
    })
    req.pipe(upstream)
  })
  return new Promise((done) => server.listen(options.port, '127.0.0.1', () => done(server)))
}

/** A browser, reduced to what sign-in needs: manual redirects and a cookie jar that honours paths and expiry. */
class CookieBrowser {
  readonly setCookies: string[] = []
  private readonly jar = new Map<string, { value: string; path: string }>()

  async fetch(url: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<Response> {
    const target = new URL(url)
    const cookie = [...this.jar]
      .filter(([, c]) => target.pathname === c.path || target.pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`))
      .map(([name, c]) => `${name}=${c.value}`)
      .join('; ')
    const res = await fetch(target, {
      method: init.method ?? 'GET',
      redirect: 'manual',
      headers: {
        accept: 'text/html',
        ...(cookie ? { cookie } : {}),
        ...(init.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}),
    })
    for (const header of res.headers.getSetCookie()) {
      this.setCookies.push(header)
      const [pair = '', ...attributes] = header.split(';').map((part) => part.trim())
      const name = pair.slice(0, pair.indexOf('='))
      const value = pair.slice(pair.indexOf('=') + 1)
      const path = attributes.find((a) => /^path=/i.test(a))?.slice(5) || '/'
      const expires = attributes.find((a) => /^expires=/i.test(a))?.slice(8)
      const gone = value === '' || (expires !== undefined && new Date(expires).getTime() < Date.now())
      if (gone) this.jar.delete(name)
      else this.jar.set(name, { value, path })
    }
    return res
  }

  /** Follows redirects from `url` until a page answers; returns it and the URL it came from. */
  async follow(url: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<{ res: Response; url: string }> {
    let res = await this.fetch(url, init)
    let at = url
    for (let hops = 0; res.status >= 300 && res.status < 400; hops++) {
      if (hops > 10) throw new Error('too many redirects')
      at = new URL(res.headers.get('location') ?? '', at).href
      res = await this.fetch(at)
    }
    return { res, url: at }
  }
}

/**
 * A whole sign-in through the development provider, then a sign-out, as a browser does it;
 * returns every Set-Cookie header on the way.
 */
async function signInAndOut(origin: string, email: string): Promise<string[]> {
  const browser = new CookieBrowser()
  const start = await browser.fetch(`${origin}/login?return_to=%2F%3Ffrom%3Dproxy`)
  expect(start.status).toBe(303)
  const authorize = new URL(start.headers.get('location') ?? '')
  // The provider is announced on the public origin, whatever the proxy's hop to the app was.
  expect(`${authorize.origin}${authorize.pathname}`).toBe(`${origin}/dev-oidc/auth`)

  const form = await browser.follow(authorize.href)
  expect(form.res.status).toBe(200)
  expect(new URL(form.url).pathname).toMatch(/^\/dev-oidc\/interaction\//)
  await form.res.text()

  const landed = await browser.follow(form.url, { method: 'POST', form: { email, action: 'sign-in' } })
  expect(landed.url).toBe(`${origin}/?from=proxy`)
  const home = await landed.res.text()
  expect(home).toContain(email)
  const csrf = /name="_csrf" value="([^"]+)"/.exec(home)?.[1] ?? ''
  expect(csrf).not.toBe('')

  const out = await browser.fetch(`${origin}/logout`, { method: 'POST', form: { _csrf: csrf } })
  expect(out.status).toBe(303)
  const names = browser.setCookies.map((c) => c.slice(0, c.indexOf('=')))
  expect(names).toEqual(expect.arrayContaining(['quire_sign_in', 'dev_oidc_interaction', 'dev_oidc_session', 'quire_session']))
  return browser.setCookies
}

const secure = /;\s*secure\s*(;|$)/i

describe('behind a TLS-terminating proxy (https WEB_URL, TRUST_PROXY)', () => {
  let runtime: Runtime
  let app: FastifyInstance
  let proxy: Server
  let origin: string
  let trustedBefore: string[]

  beforeAll(async () => {
    const { key, cert } = selfSignedCertificate()
    trustedBefore = tls.getCACertificates('default')
    tls.setDefaultCACertificates([...trustedBefore, cert])
    const database = await testDatabase()
    const [proxyPort, appPort] = [await freePort(), await freePort()]
    origin = `https://127.0.0.1:${proxyPort}`
    const { web: webEnv, runtime: runtimeEnv } = readServerEnv({
      WEB_URL: origin,
      API_URL: 'https://api.quire.test',
      // The proxy, as the app sees it.
      TRUST_PROXY: '127.0.0.1',
      SESSION_SECRET: randomBytes(32).toString('base64url'),
      LOG_LEVEL: 'silent',
      ...(database.url ? { DATABASE_URL: database.url } : {}),
    })
    runtime = await createRuntime(runtimeEnv, { database })
    app = await buildWebApp(runtime, serverWebAppOptions(webEnv, runtimeEnv, webEnv.SESSION_SECRET ?? ''))
    await app.listen({ port: appPort, host: '127.0.0.1' })
    proxy = await startTlsProxy({ port: proxyPort, upstream: appPort, key, cert })
  })
  afterAll(async () => {
    proxy?.closeAllConnections()
    await new Promise((done) => (proxy ? proxy.close(done) : done(undefined)))
    await app?.close()
    await runtime?.close()
    if (trustedBefore) tls.setDefaultCACertificates(trustedBefore)
  })

  it('marks every cookie of a whole sign-in and sign-out Secure, the development provider’s included', async () => {
    const cookies = await signInAndOut(origin, 'proxied@example.com')
    expect(cookies.filter((c) => !secure.test(c))).toEqual([])
  })

  it('counts the per-address limits by the client the proxy names, not by the proxy', async () => {
    // From the proxy's address (inject's 127.0.0.1), as the proxy forwards them.
    const viaProxy = (client: string) =>
      app.inject({ url: '/login', headers: { accept: 'text/html', 'x-forwarded-for': client, 'x-forwarded-proto': 'https' } })
    for (let i = 0; i < webRateLimits.signIn.max; i++) expect((await viaProxy('198.51.100.7')).statusCode).toBe(303)
    expect((await viaProxy('198.51.100.7')).statusCode).toBe(429)
    // Another client behind the same proxy has its own budget.
    expect((await viaProxy('198.51.100.8')).statusCode).toBe(303)
    // A caller that is not the proxy cannot pass for another client by sending the header itself:
    // it counts as its own address (still under its limit, though it names the spent client).
    const forged = await app.inject({
      url: '/login',
      remoteAddress: '203.0.113.50',
      headers: { accept: 'text/html', 'x-forwarded-for': '198.51.100.7' },
    })
    expect(forged.statusCode).toBe(303)
  })
})

describe('plain-http local mode', () => {
  let web: TestWeb

  beforeAll(async () => {
    web = await startTestWeb()
  })
  afterAll(async () => {
    await web?.close()
  })

  it('signs in and out with no Secure cookie at all (a browser would drop them on http)', async () => {
    const cookies = await signInAndOut(web.url, 'local@example.com')
    expect(cookies.filter((c) => secure.test(c))).toEqual([])
  })
})
