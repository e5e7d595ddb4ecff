import { redirectUriProblem } from '../../domain/oauth-rules.ts'
import type { CoreDeps } from '../deps.ts'
import { type OAuthResult, oauthFail, oauthOk } from './oauth-result.ts'

/** The registration response (RFC 7591 §3.2.1). Every client is public: PKCE, no secret. */
export interface RegisteredClient {
  readonly client_id: string
  readonly client_id_issued_at: number
  readonly client_name: string
  readonly redirect_uris: string[]
  readonly grant_types: string[]
  readonly response_types: string[]
  readonly token_endpoint_auth_method: 'none'
}

const MAX_REDIRECT_URIS = 10

function stringList(value: unknown): string[] | null {
  return Array.isArray(value) && value.every((v) => typeof v === 'string') ? value : null
}

/**
 * Dynamic client registration (RFC 7591), open to anyone, as MCP hosts need: the client names
 * its redirect URIs (https, loopback on any port, or a private-use scheme) and gets an id.
 */
export async function registerOAuthClient(deps: CoreDeps, metadata: unknown): Promise<OAuthResult<RegisteredClient>> {
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
    return oauthFail('invalid_client_metadata', 'The registration request must be a JSON object.')
  }
  const fields = metadata as Record<string, unknown>
  const redirectUris = stringList(fields.redirect_uris)
  if (redirectUris === null || redirectUris.length === 0) {
    return oauthFail('invalid_redirect_uri', 'redirect_uris must be a non-empty list of URIs.')
  }
  if (redirectUris.length > MAX_REDIRECT_URIS) return oauthFail('invalid_redirect_uri', `At most ${MAX_REDIRECT_URIS} redirect URIs.`)
  for (const uri of redirectUris) {
    const problem = redirectUriProblem(uri)
    if (problem) return oauthFail('invalid_redirect_uri', `The redirect URI ${JSON.stringify(uri)} ${problem}.`)
  }
  const grantTypes = fields.grant_types === undefined ? ['authorization_code', 'refresh_token'] : stringList(fields.grant_types)
  if (grantTypes === null || !grantTypes.every((g) => g === 'authorization_code' || g === 'refresh_token')) {
    return oauthFail('invalid_client_metadata', 'grant_types may hold authorization_code and refresh_token only.')
  }
  const responseTypes = fields.response_types === undefined ? ['code'] : stringList(fields.response_types)
  if (responseTypes === null || !responseTypes.every((r) => r === 'code')) {
    return oauthFail('invalid_client_metadata', 'response_types may hold code only.')
  }
  const name =
    typeof fields.client_name === 'string' && fields.client_name.trim() !== '' ? fields.client_name.trim().slice(0, 100) : 'Unnamed client'
  const at = deps.clock.now()
  const id = deps.ids.next('cli')
  await deps.oauth.registerClient({ id, name, redirectUris, createdAt: at }, null)
  return oauthOk({
    client_id: id,
    client_id_issued_at: Math.floor(at.getTime() / 1000),
    client_name: name,
    redirect_uris: redirectUris,
    grant_types: grantTypes,
    response_types: ['code'],
    // Whatever was asked for: confidential clients are not offered (RFC 7591 lets the server decide).
    token_endpoint_auth_method: 'none',
  })
}
