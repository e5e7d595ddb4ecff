/**
 * The API as an OAuth protected resource: it names its authorization server, challenges with the
 * metadata URL, and accepts the server's access tokens for itself only.
 *
 * Tokens come from the real use-cases the web app serves (a person signs in, consents, the client
 * exchanges the code with its PKCE verifier), run here without the browser part.
 */
import { revokeOAuthToken } from '@quire/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { engine, oauthTokensFor, startTestApi, type TestApi } from './helper.ts'

const tokenFor = (email: string, resource?: string) => oauthTokensFor(api, email, resource)

let api: TestApi

beforeAll(async () => {
  api = await startTestApi()
})
afterAll(() => api?.close())

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
    // The one answer of every refused credential (the reason, another audience, goes to the log).
    const unknown = await api.request('GET', '/api/profile/me', { token: 'qat_unknown' })
    const answer = (r: typeof res) => ({ status: r.statusCode, code: r.json().code, detail: r.json().detail })
    expect(answer(res)).toEqual(answer(unknown))
    expect(res.json().code).toBe('invalid_token')
  })
})
