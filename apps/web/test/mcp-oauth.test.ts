/**
 * The MCP endpoint's OAuth fallback end to end, as an MCP host runs it: the SDK's client meets a
 * 401, follows the challenge to the protected resource metadata and the authorization server,
 * registers itself (dynamic client registration, nothing pre-registered), sends the person to the
 * authorization URL (headless Chromium: sign-in through the development OpenID provider, then the
 * consent page), reads the code off its loopback redirect, exchanges it (PKCE), and connects again
 * with a token bound to `{web_url}/mcp` that the REST API refuses.
 */
import { createHash } from 'node:crypto'
import { type OAuthClientProvider, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js'
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js'
import { getProfile } from '@quire/core'
import { settleAll } from '@quire/testing/processes'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  browserTimeout,
  type LoopbackListener,
  launchChromium,
  sessionSecretIn,
  startLoopbackListener,
  startTestWeb,
  type TestWeb,
} from './helper.ts'
import { call } from './mcp-helper.ts'

let web: TestWeb
let browser: Browser
let loopback: LoopbackListener

beforeAll(async () => {
  await settleAll([
    startTestWeb({ api: true }).then((started) => {
      web = started
    }),
    launchChromium().then((started) => {
      browser = started
    }),
    startLoopbackListener().then((started) => {
      loopback = started
    }),
  ])
}, browserTimeout())
afterAll(async () => {
  await browser?.close()
  await web?.close()
  await loopback?.close()
})

/** One HTTP exchange the SDK made (through the transport's `fetch`, which its OAuth steps use too). */
interface Exchange {
  readonly method: string
  readonly url: string
  readonly status: number
  readonly wwwAuthenticate: string | null
  /** The form body of a POST to the token endpoint. */
  readonly form: URLSearchParams | null
}

/** `fetch`, recording every exchange. */
function recordingFetch(log: Exchange[]): FetchLike {
  return async (input, init) => {
    const response = await fetch(input, init)
    const url = typeof input === 'string' ? input : input.href
    const form = typeof init?.body === 'string' || init?.body instanceof URLSearchParams ? new URLSearchParams(init.body.toString()) : null
    log.push({
      method: init?.method ?? 'GET',
      url,
      status: response.status,
      wwwAuthenticate: response.headers.get('www-authenticate'),
      form,
    })
    return response
  }
}

/**
 * An MCP host's OAuth state, in memory: no client information until the SDK registers one, the
 * PKCE verifier, the tokens. `redirectToAuthorization` is the person's side: the browser opens
 * the URL, signs in through the development provider as `email`, allows the client on the consent
 * page, and lands on the loopback redirect, whose `code` is kept for `finishAuth`.
 */
class BrowserOAuthHost implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined
  saved: OAuthTokens | undefined
  verifier: string | undefined
  authorizationUrl: URL | null = null
  landed: URL | null = null
  consentText = ''
  sessionUsername: string | null = null
  registrations = 0
  private readonly email: string
  private readonly expectedState: string

  constructor(email: string, expectedState: string) {
    this.email = email
    this.expectedState = expectedState
  }

  get redirectUrl(): string {
    return loopback.redirectUri
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Quire MCP OAuth test host',
      redirect_uris: [loopback.redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }
  }

  state(): string {
    return this.expectedState
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.client
  }

  saveClientInformation(information: OAuthClientInformationMixed): void {
    this.registrations++
    this.client = information
  }

  tokens(): OAuthTokens | undefined {
    return this.saved
  }

  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier
  }

  codeVerifier(): string {
    if (this.verifier === undefined) throw new Error('no PKCE verifier saved')
    return this.verifier
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    this.authorizationUrl = url
    const context = await browser.newContext()
    try {
      const page = await context.newPage()
      loopback.landed = null
      await page.goto(url.href)
      // No session yet: the authorization endpoint sends the person to sign in first.
      await page.waitForURL(/\/dev-oidc\/interaction\//)
      await page.fill('#email', this.email)
      await Promise.all([page.waitForURL((to) => to.pathname === '/oauth2/authorize'), page.click('button[value="sign-in"]')])
      const approve = page.locator('button[value="approve"]')
      await approve.waitFor()
      this.consentText = (await page.locator('main').textContent()) ?? ''
      const secret = await sessionSecretIn(context, web)
      if (secret !== null) {
        const secretHash = createHash('sha256').update(secret).digest('hex')
        const profile = await getProfile(web.runtime.deps, { credential: { secretHash, sessionCookie: true }, surface: 'web' })
        this.sessionUsername = profile.ok ? profile.value.username : null
      }
      await Promise.all([page.waitForURL((to) => to.href.startsWith(loopback.redirectUri)), approve.click()])
      this.landed = loopback.landed
    } finally {
      await context.close()
    }
  }

  /** The code the loopback redirect carried, after checking state and issuer (RFC 9207). */
  code(): string {
    const landed = this.landed
    if (landed === null) throw new Error('the browser never reached the loopback redirect')
    expect(landed.searchParams.get('error')).toBeNull()
    expect(landed.searchParams.get('state')).toBe(this.expectedState)
    expect(landed.searchParams.get('iss')).toBe(web.url)
    const code = landed.searchParams.get('code')
    if (!code) throw new Error(`no code in ${landed.href}`)
    return code
  }
}

function mcpTransport(host: OAuthClientProvider, log: Exchange[]): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(new URL(`${web.url}/mcp`), { authProvider: host, fetch: recordingFetch(log) })
}

describe('the MCP endpoint through the OAuth fallback', { timeout: browserTimeout() }, () => {
  it('registers, signs the person in through the browser, exchanges the code, and connects with a token only /mcp accepts', async () => {
    const email = 'mcp.oauth.person@example.com'
    const host = new BrowserOAuthHost(email, 'state-of-the-test')
    const log: Exchange[] = []
    const started = performance.now()

    // First connect: a 401 with the challenge; discovery, registration, the browser; then UnauthorizedError.
    const transport = mcpTransport(host, log)
    const first = new Client({ name: 'quire-oauth-test', version: '0.0.0' })
    const refused = await first.connect(transport).then(
      () => null,
      (error: unknown) => error,
    )
    expect(refused).toBeInstanceOf(UnauthorizedError)

    const challenge = log[0]
    expect(challenge).toMatchObject({ method: 'POST', url: `${web.url}/mcp`, status: 401 })
    const resourceMetadata = /resource_metadata="([^"]+)"/.exec(challenge?.wwwAuthenticate ?? '')?.[1]
    expect(resourceMetadata).toBe(`${web.url}/.well-known/oauth-protected-resource/mcp`)
    // The SDK followed the challenge's URL, then the authorization server's metadata, then registered.
    const fetched = log.map((e) => `${e.method} ${e.url} ${e.status}`)
    expect(fetched).toContain(`GET ${web.url}/.well-known/oauth-protected-resource/mcp 200`)
    expect(fetched).toContain(`GET ${web.url}/.well-known/oauth-authorization-server 200`)
    expect(fetched).toContain(`POST ${web.url}/oauth2/register 201`)
    expect(host.registrations).toBe(1)
    expect(host.client?.client_id).toMatch(/\S/)

    // The authorization request: this client, PKCE S256, the resource from the metadata verbatim.
    const asked = host.authorizationUrl
    if (asked === null) throw new Error('the SDK never sent the person to the authorization endpoint')
    expect(`${asked.origin}${asked.pathname}`).toBe(`${web.url}/oauth2/authorize`)
    expect(Object.fromEntries(asked.searchParams)).toMatchObject({
      client_id: host.client?.client_id,
      response_type: 'code',
      code_challenge_method: 'S256',
      redirect_uri: loopback.redirectUri,
      resource: `${web.url}/mcp`,
      state: 'state-of-the-test',
    })
    // The consent page named the client and the resource the token is for.
    expect(host.consentText).toContain('Quire MCP OAuth test host')
    expect(host.consentText).toContain(`${web.url}/mcp`)

    // The code, exchanged on the transport that met the 401 (it keeps the resource metadata URL).
    await transport.finishAuth(host.code())
    const exchange = log.find((e) => e.method === 'POST' && e.url === `${web.url}/oauth2/token`)
    expect(exchange?.status).toBe(200)
    expect(exchange?.form?.get('grant_type')).toBe('authorization_code')
    expect(exchange?.form?.get('resource')).toBe(`${web.url}/mcp`)
    expect(exchange?.form?.get('code_verifier')).toBe(host.verifier)
    const tokens = host.saved
    if (!tokens) throw new Error('the SDK saved no tokens')
    expect(tokens).toMatchObject({ token_type: 'Bearer' })
    expect(tokens.refresh_token).toMatch(/\S/)
    await first.close()

    // Connected again, with a fresh transport: the token works.
    const client = new Client({ name: 'quire-oauth-test', version: '0.0.0' })
    const before = log.length
    await client.connect(mcpTransport(host, log))
    try {
      const { tools } = await client.listTools()
      expect(tools).toHaveLength(26)
      const me = await call(client, 'get_current_principal')
      expect(me.email).toBe(email)
      expect(host.sessionUsername).toMatch(/\S/)
      expect(me.username).toBe(host.sessionUsername)
      // The second connection only spoke to /mcp: every POST carried the token and was answered (no
      // new 401, no re-registration); the SDK's GET for a server-sent stream got the stateless 405.
      const after = log.slice(before)
      expect(after.filter((e) => e.method === 'POST').length).toBeGreaterThan(1)
      expect(after.filter((e) => e.url !== `${web.url}/mcp` || (e.method === 'POST' ? e.status >= 300 : e.status !== 405))).toEqual([])
      expect(host.registrations).toBe(1)
    } finally {
      await client.close()
    }

    // The token's audience is `{web_url}/mcp`: the REST API (another resource of the same server) refuses it.
    const api = await fetch(`${web.apiUrl}/api/profile/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } })
    expect(api.status).toBe(401)
    expect(api.headers.get('www-authenticate')).toContain('invalid_token')
    // …while /mcp takes it, as a plain bearer.
    const direct = await fetch(`${web.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tokens.access_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    })
    expect(direct.status).toBe(200)
    console.info(`mcp-oauth: the OAuth fallback end to end took ${Math.round(performance.now() - started)} ms`)
  })
})
