/**
 * The API as an OAuth protected resource: it names its authorization server, challenges with the
 * metadata URL, and accepts the server's access tokens for itself only.
 *
 * Tokens come from the real use-cases the web app serves (a person signs in, consents, the client
 * exchanges the code with its PKCE verifier), run here without the browser part.
 */
import {
  approveAuthorization,
  checkAuthorizationRequest,
  exchangeToken,
  oauthServerConfig,
  registerOAuthClient,
  revokeOAuthToken,
  sessionPrincipal,
  sha256Base64Url,
  signInWithOidc,
} from '@quire/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { engine, startTestApi, type TestApi } from './helper.ts'

let api: TestApi

beforeAll(async () => {
  api = await startTestApi()
})
afterAll(() => api?.close())

/** Signs a person in, has them approve a client, and exchanges the code: an access token for `resource`. */
async function tokenFor(email: string, resource?: string): Promise<{ access_token: string; refresh_token: string; clientId: string }> {
  const deps = api.runtime.deps
  const config = oauthServerConfig(deps.config)
  const session = await signInWithOidc(deps, { issuer: 'https://idp.test', subject: email, email, emailVerified: true })
  const principal = await sessionPrincipal(deps, session.sessionSecret)
  if (principal === null) throw new Error('no session')
  const registered = await registerOAuthClient(deps, { client_name: 'test client', redirect_uris: ['http://127.0.0.1/callback'] })
  if (!registered.ok) throw new Error(registered.error.error_description)
  const verifier = 'v'.repeat(43)
  const checked = await checkAuthorizationRequest(deps, config, {
    client_id: registered.value.client_id,
    redirect_uri: 'http://127.0.0.1:4567/callback',
    response_type: 'code',
    code_challenge: await sha256Base64Url(verifier),
    code_challenge_method: 'S256',
    ...(resource ? { resource } : {}),
  })
  if (!checked.ok) throw new Error(checked.refusal.error_description)
  const { redirectTo } = await approveAuthorization(deps, config, principal, checked.request)
  const code = new URL(redirectTo).searchParams.get('code') ?? ''
  const tokens = await exchangeToken(deps, {
    grant_type: 'authorization_code',
    client_id: registered.value.client_id,
    code,
    redirect_uri: 'http://127.0.0.1:4567/callback',
    code_verifier: verifier,
  })
  if (!tokens.ok) throw new Error(tokens.error.error_description)
  return { ...tokens.value, clientId: registered.value.client_id }
}

describe(`the API as an OAuth protected resource (${engine})`, () => {
  it('publishes its metadata, naming the web app as its authorization server', async () => {
    const res = await api.request('GET', '/.well-known/oauth-protected-resource')
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({
      resource: 'https://api.quire.test',
      authorization_servers: ['https://quire.test'],
      bearer_methods_supported: ['header'],
    })
  })

  it('every 401 names the metadata, a bad key included', async () => {
    const metadata = 'resource_metadata="https://api.quire.test/.well-known/oauth-protected-resource"'
    expect((await api.request('GET', '/api/profile/me')).headers['www-authenticate']).toBe(`Bearer realm="quire", ${metadata}`)
    expect((await api.request('GET', '/api/profile/me', { token: 'qk_nonsense' })).headers['www-authenticate']).toBe(
      `Bearer realm="quire", ${metadata}, error="invalid_token"`,
    )
  })

  it('accepts an access token issued for the API, until it is revoked', async () => {
    const { access_token, clientId } = await tokenFor('oauth.user@example.com')
    const me = await api.request('GET', '/api/profile/me', { token: access_token })
    expect(me.statusCode).toBe(200)
    expect(me.json().email).toBe('oauth.user@example.com')
    const revoked = await revokeOAuthToken(api.runtime.deps, { token: access_token, client_id: clientId })
    expect(revoked.ok).toBe(true)
    expect((await api.request('GET', '/api/profile/me', { token: access_token })).statusCode).toBe(401)
  })

  it('refuses a token issued for another resource (the MCP endpoint)', async () => {
    const { access_token } = await tokenFor('mcp.user@example.com', 'https://quire.test/mcp')
    const res = await api.request('GET', '/api/profile/me', { token: access_token })
    expect(res.statusCode).toBe(401)
    expect(res.json().detail).toContain('issued for another resource')
  })
})
