import type { Scope } from '../../contract/scopes.ts'
import { oauthLifetimes, parseScopes, redirectUriMatches, sameResource } from '../../domain/oauth-rules.ts'
import { type Principal, userOf } from '../../domain/principal.ts'
import { newSecret, secretPrefixes } from '../../domain/secrets.ts'
import type { OAuthClientRecord } from '../../ports/sign-in.ts'
import type { CoreDeps } from '../deps.ts'
import type { OAuthError, OAuthErrorCode, OAuthServerConfig } from './oauth-result.ts'

/** A checked authorization request, ready for the consent page. */
export interface AuthorizationRequest {
  readonly client: OAuthClientRecord
  readonly redirectUri: string
  readonly scopes: readonly Scope[]
  readonly resource: string
  readonly state: string | null
  readonly codeChallenge: string
}

/**
 * A refused authorization request. `redirectTo` is where to send the browser with the error; null
 * when the client or its redirect URI cannot be trusted, so the error must be shown, not sent
 * (RFC 6749 §4.1.2.1: never redirect to an unverified URI).
 */
export interface AuthorizationRefusal extends OAuthError {
  readonly redirectTo: string | null
}

type Query = Readonly<Record<string, string | undefined>>

function withParams(uri: string, params: Record<string, string | null>): string {
  const url = new URL(uri)
  for (const [name, value] of Object.entries(params)) if (value !== null) url.searchParams.set(name, value)
  return url.toString()
}

/** Where the browser goes with an error for the client (state and issuer included, RFC 9207). */
export function authorizationErrorRedirect(
  config: OAuthServerConfig,
  request: Pick<AuthorizationRequest, 'redirectUri' | 'state'>,
  error: OAuthErrorCode,
  description: string,
): string {
  return withParams(request.redirectUri, { error, error_description: description, state: request.state, iss: config.issuer })
}

/** Checks `/oauth2/authorize`'s query: the client, its redirect URI, PKCE (S256 only), scopes and the resource. */
export async function checkAuthorizationRequest(
  deps: CoreDeps,
  config: OAuthServerConfig,
  query: Query,
): Promise<{ readonly ok: true; readonly request: AuthorizationRequest } | { readonly ok: false; readonly refusal: AuthorizationRefusal }> {
  const shown = (error: OAuthErrorCode, description: string) => ({
    ok: false as const,
    refusal: { error, error_description: description, status: 400 as const, redirectTo: null },
  })
  const clientId = query.client_id
  if (!clientId) return shown('invalid_request', 'The request names no client (client_id).')
  const client = await deps.oauth.findClient(clientId)
  if (client === null) return shown('invalid_client', 'No client is registered with this client_id.')
  const redirectUri = query.redirect_uri ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined)
  if (redirectUri === undefined) return shown('invalid_request', 'The client registered several redirect URIs; name one (redirect_uri).')
  if (!redirectUriMatches(client.redirectUris, redirectUri)) {
    return shown('invalid_request', 'The redirect_uri is not one this client registered.')
  }
  const state = query.state ?? null
  const sent = (error: OAuthErrorCode, description: string) => ({
    ok: false as const,
    refusal: {
      error,
      error_description: description,
      status: 400 as const,
      redirectTo: authorizationErrorRedirect(config, { redirectUri, state }, error, description),
    },
  })
  if (query.response_type !== 'code') return sent('unsupported_response_type', 'Only response_type=code is supported.')
  if (!query.code_challenge || !/^[A-Za-z0-9_-]{43}$/.test(query.code_challenge)) {
    return sent('invalid_request', 'PKCE is required: send code_challenge (S256 of the verifier, base64url).')
  }
  if (query.code_challenge_method !== 'S256') return sent('invalid_request', 'code_challenge_method must be S256.')
  const scopes = parseScopes(query.scope)
  if (scopes === null) return sent('invalid_scope', 'The scope names an unknown scope.')
  const resource = query.resource ?? config.defaultResource
  const known = config.resources.find((r) => sameResource(r, resource))
  if (known === undefined) return sent('invalid_target', `This server issues no tokens for the resource ${JSON.stringify(resource)}.`)
  return { ok: true, request: { client, redirectUri, scopes, resource: known, state, codeChallenge: query.code_challenge } }
}

/** The signed-in person consented: a single-use code, bound to the PKCE challenge, sent to the client. */
export async function approveAuthorization(
  deps: CoreDeps,
  config: OAuthServerConfig,
  principal: Principal,
  request: AuthorizationRequest,
): Promise<{ readonly redirectTo: string }> {
  const user = userOf(principal)
  if (principal.kind !== 'session' || user === null) throw new Error('authorization needs a signed-in browser session')
  const at = deps.clock.now()
  const code = await newSecret(secretPrefixes.authorizationCode)
  await deps.oauth.saveCode({
    codeHash: code.hash,
    clientId: request.client.id,
    userId: user.id,
    redirectUri: request.redirectUri,
    codeChallenge: request.codeChallenge,
    scopes: request.scopes,
    resource: request.resource,
    expiresAt: new Date(at.getTime() + oauthLifetimes.codeSeconds * 1000),
    createdAt: at,
  })
  return { redirectTo: withParams(request.redirectUri, { code: code.secret, state: request.state, iss: config.issuer }) }
}

/** The person said no. */
export function denyAuthorization(config: OAuthServerConfig, request: AuthorizationRequest): { readonly redirectTo: string } {
  return { redirectTo: authorizationErrorRedirect(config, request, 'access_denied', 'The user denied the request.') }
}
