/**
 * A scripted OAuth client, openid-client, against the authorization server and the real API, as
 * the "done" asks: it discovers the server (RFC 8414), registers (RFC 7591), sends a person
 * through sign-in and consent in headless Chromium, exchanges the code with PKCE, uses the access
 * token on the API, refreshes, and revokes. Then what the provider vouches for: invitations and
 * viewer emails go by the verified email a person signed in with; an unverified one never signs in.
 */
import * as oidc from 'openid-client'
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

let web: TestWeb
let browser: Browser
let loopback: LoopbackListener

beforeAll(async () => {
  web = await startTestWeb({ api: true })
  browser = await launchChromium()
  loopback = await startLoopbackListener()
}, browserTimeout())
afterAll(async () => {
  await browser?.close()
  await web?.close()
  await loopback?.close()
})

/** Discovery and dynamic registration, as an MCP host or the CLI does on first contact. */
async function registerClient(): Promise<oidc.Configuration> {
  return oidc.dynamicClientRegistration(
    new URL(web.url),
    { client_name: 'Scripted client', redirect_uris: [loopback.redirectUri], token_endpoint_auth_method: 'none' },
    oidc.None(),
    // RFC 8414 metadata (not OpenID discovery); plain http is allowed on loopback in tests only.
    { algorithm: 'oauth2', execute: [oidc.allowInsecureRequests] },
  )
}

/** One person signs in (in a fresh browser), consents, and the client exchanges the code. */
async function authorize(config: oidc.Configuration, email: string) {
  const verifier = oidc.randomPKCECodeVerifier()
  const state = oidc.randomState()
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: loopback.redirectUri,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    resource: web.apiUrl,
  })
  const context = await browser.newContext()
  try {
    const page = await context.newPage()
    await signInWithBrowser(page, web, email)
    loopback.landed = null
    await page.goto(url.href)
    await page.getByText('Scripted client').first().waitFor()
    await Promise.all([page.waitForURL((to) => to.href.startsWith(loopback.redirectUri)), page.click('button[value="approve"]')])
  } finally {
    await context.close()
  }
  if (loopback.landed === null) throw new Error('the browser never came back to the client')
  return oidc.authorizationCodeGrant(config, loopback.landed, { pkceCodeVerifier: verifier, expectedState: state })
}

async function api(token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${web.apiUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await res.text()
  return { status: res.status, body: text === '' ? null : JSON.parse(text), challenge: res.headers.get('www-authenticate') }
}

/** The OAuth error an openid-client call was refused with. */
async function refusal(call: Promise<unknown>): Promise<string> {
  try {
    await call
  } catch (error) {
    if (error instanceof oidc.ResponseBodyError) return error.error
    // A 401 with a challenge (RFC 6749 §5.2, invalid_client): the error is in the body still.
    if (error instanceof oidc.WWWAuthenticateChallengeError) return ((await error.response.json()) as { error: string }).error
    throw error
  }
  throw new Error('the call was not refused')
}

describe('an OAuth client driven by openid-client', { timeout: browserTimeout() }, () => {
  it('discovers, registers, gets tokens by code + PKCE, and uses them on the API; refresh rotates; revoke stops access', async () => {
    const config = await registerClient()
    expect(config.serverMetadata().issuer).toBe(web.url)
    expect(config.clientMetadata().client_id).toMatch(/^cli_/)

    const tokens = await authorize(config, 'ada@example.com')
    expect(tokens.token_type).toBe('bearer')
    expect(tokens.expiresIn()).toBeGreaterThan(0)
    const me = await api(tokens.access_token, 'GET', '/api/profile/me')
    expect(me.status).toBe(200)
    expect(me.body).toMatchObject({ email: 'ada@example.com', emailVerified: true })

    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token ?? '')
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token)
    expect((await api(refreshed.access_token, 'GET', '/api/profile/me')).status).toBe(200)
    // The rotated-out refresh token again: a reuse. The grant is gone, including the fresh pair.
    expect(await refusal(oidc.refreshTokenGrant(config, tokens.refresh_token ?? ''))).toBe('invalid_grant')
    const afterReuse = await api(refreshed.access_token, 'GET', '/api/profile/me')
    expect(afterReuse.status).toBe(401)
    expect(afterReuse.challenge).toContain(`resource_metadata="${web.apiUrl}/.well-known/oauth-protected-resource"`)
    expect(await refusal(oidc.refreshTokenGrant(config, refreshed.refresh_token ?? ''))).toBe('invalid_grant')

    const again = await authorize(config, 'ada@example.com')
    await oidc.tokenRevocation(config, again.refresh_token ?? '')
    await oidc.tokenRevocation(config, again.refresh_token ?? '')
    expect((await api(again.access_token, 'GET', '/api/profile/me')).status).toBe(401)

    // All of it is on Ada's account-level trail, newest first; the replay's revocation is Quire's,
    // and so is each refused use of a revoked access token (credential.rejected, once per token).
    const last = await authorize(config, 'ada@example.com')
    const trail = (await api(last.access_token, 'GET', '/api/audit-events?limit=100')).body.items as {
      action: string
      actor: { kind: string }
      data: { reason?: string }
    }[]
    expect(trail.map((e) => `${e.action} ${e.actor.kind} ${e.data.reason ?? ''}`.trim()).reverse()).toEqual([
      'user.created user',
      'session.started user',
      'oauth.token_issued user',
      'oauth.token_refreshed user',
      'oauth.grant_revoked system refresh_token_reused',
      'credential.rejected system revoked',
      'session.started user',
      'oauth.token_issued user',
      'oauth.grant_revoked user revoked_by_client',
      'credential.rejected system revoked',
      'session.started user',
      'oauth.token_issued user',
    ])
  })

  it('a refresh may narrow the access token; the grant keeps its scopes for the next refresh', async () => {
    const config = await registerClient()
    const tokens = await authorize(config, 'narrow@example.com')
    const all = (tokens.scope ?? '').split(' ')
    expect(all).toContain('artifacts:create')
    const narrowed = await oidc.refreshTokenGrant(config, tokens.refresh_token ?? '', { scope: 'artifacts:read' })
    expect(narrowed.scope).toBe('artifacts:read')
    const refused = await api(narrowed.access_token, 'POST', '/api/projects', { ownerUsername: 'narrow', slug: 'n', title: 'N', icon: 'N' })
    expect(refused.status).toBe(403)
    const widened = await oidc.refreshTokenGrant(config, narrowed.refresh_token ?? '')
    expect((widened.scope ?? '').split(' ').sort()).toEqual([...all].sort())
  })

  it('a client not registered here is refused with invalid_client', async () => {
    const registered = await registerClient()
    const stranger = new oidc.Configuration(registered.serverMetadata(), 'cli_stranger', undefined, oidc.None())
    oidc.allowInsecureRequests(stranger)
    expect(await refusal(oidc.refreshTokenGrant(stranger, 'rt_whatever'))).toBe('invalid_client')
  })
})

describe('what the sign-in provider vouches for', { timeout: browserTimeout() }, () => {
  it('invitations and viewer emails go by the verified email signed in with; an unverified address cannot sign in', async () => {
    const config = await registerClient()
    const ada = (await authorize(config, 'ada.owner@example.com')).access_token
    const profile = (await api(ada, 'GET', '/api/profile/me')).body
    const team = await api(ada, 'POST', '/api/workspaces', { slug: 'verified-team', name: 'Verified team' })
    expect(team.status).toBe(201)
    const invite = async (email: string) => {
      const created = await api(ada, 'POST', `/api/workspaces/${team.body.id}/invitations`, { email })
      expect(created.status).toBe(201)
      return created.body.id as string
    }
    const toBob = await invite('bob@example.com')
    const toCarol = await invite('carol@example.com')
    const project = await api(ada, 'POST', '/api/projects', { ownerUsername: profile.username, slug: 'notes', title: 'Notes', icon: 'N' })
    expect(project.body).toMatchObject({ slug: 'notes' })
    const artifact = await api(ada, 'POST', '/api/artifacts', {
      ownerUsername: profile.username,
      projectSlug: 'notes',
      slug: 'plan',
      type: 'md',
      title: 'Plan',
      content: '# Plan\n',
      changelog: 'first',
      access: { publicView: false, publicEdit: false, viewerEmails: ['bob@example.com', 'carol@example.com'] },
    })
    expect(artifact.body).toMatchObject({ slug: 'plan' })

    // Bob signed in with an address the provider vouches for.
    const bob = (await authorize(config, 'bob@example.com')).access_token
    expect((await api(bob, 'GET', '/api/profile/invitations')).body.items.map((i: { id: string }) => i.id)).toEqual([toBob])
    expect((await api(bob, 'POST', `/api/workspace-invitations/${toBob}/accept`)).status).toBe(200)
    expect((await api(bob, 'GET', `/api/artifacts/${artifact.body.id}`)).status).toBe(200)

    // Carol's address is the one invited, but the provider does not vouch for it: Quire refuses
    // the sign-in, so nothing can act on her address: no user, no session, no token.
    const context = await browser.newContext()
    const page = await context.newPage()
    await page.goto(`${web.url}/login`)
    await page.fill('#email', 'carol@example.com')
    await page.check('#unverified')
    await Promise.all([page.waitForURL((to) => to.pathname === '/auth/callback'), page.click('button[value="sign-in"]')])
    expect(await page.getByRole('heading', { name: 'Email not verified' }).count()).toBe(1)
    expect((await context.cookies(web.url)).some((c) => c.name === 'quire_session')).toBe(false)
    await context.close()
    const invitations = (await api(ada, 'GET', `/api/workspaces/${team.body.id}/invitations`)).body.items
    expect(invitations.find((i: { id: string }) => i.id === toCarol)).toMatchObject({ status: 'pending' })
    const members = (await api(ada, 'GET', `/api/workspaces/${team.body.id}/members`)).body.items.map((m: { email: string }) => m.email)
    expect(members.sort()).toEqual(['ada.owner@example.com', 'bob@example.com'])
  })
})
