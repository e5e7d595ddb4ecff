import * as oidc from 'openid-client'

/**
 * The CLI as an OAuth 2.1 client of the web app (docs/decisions.md, "The OAuth 2.1 authorization
 * server"): RFC 8414 discovery, dynamic registration (RFC 7591) as a public client with a loopback
 * redirect (RFC 8252), rotating refresh tokens, and revocation (RFC 7009). openid-client does
 * the protocol; this file holds the CLI's choices.
 */

/** The redirect URI the CLI registers; a loopback URI matches on any port (RFC 8252 §7.3). */
export const loopbackRedirectUri = 'http://127.0.0.1/callback'
export const clientName = 'Quire CLI'
/** Seconds for each request to the authorization server. */
const requestTimeoutSeconds = 15

export interface TokenSet {
  readonly accessToken: string
  readonly refreshToken?: string
  /** When the access token expires (ISO 8601), when the server says. */
  readonly expiresAt?: string
}

export function isLoopbackHost(url: URL): boolean {
  return url.hostname === '127.0.0.1' || url.hostname === 'localhost' || url.hostname === '[::1]'
}

/** Plain http is allowed only to this machine (a local Quire); anywhere else, https. */
function requestOptions(server: URL): oidc.DiscoveryRequestOptions {
  const insecure = server.protocol === 'http:' && isLoopbackHost(server)
  return { algorithm: 'oauth2', timeout: requestTimeoutSeconds, ...(insecure ? { execute: [oidc.allowInsecureRequests] } : {}) }
}

/** The authorization server's metadata, with this client id. */
export function discoverServer(webUrl: string, clientId: string): Promise<oidc.Configuration> {
  const server = new URL(webUrl)
  return oidc.discovery(server, clientId, { token_endpoint_auth_method: 'none' }, oidc.None(), requestOptions(server))
}

/** Registers the CLI as a new public client (discovery included). */
export function registerClient(webUrl: string): Promise<oidc.Configuration> {
  const server = new URL(webUrl)
  return oidc.dynamicClientRegistration(
    server,
    {
      client_name: clientName,
      redirect_uris: [loopbackRedirectUri],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    },
    oidc.None(),
    requestOptions(server),
  )
}

export function tokenSetOf(response: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers): TokenSet {
  const expiresIn = response.expiresIn()
  return {
    accessToken: response.access_token,
    ...(response.refresh_token ? { refreshToken: response.refresh_token } : {}),
    ...(expiresIn !== undefined ? { expiresAt: new Date(Date.now() + expiresIn * 1000).toISOString() } : {}),
  }
}

/** A new access token (and the rotated refresh token) for a refresh token. */
export async function refreshTokens(webUrl: string, clientId: string, refreshToken: string): Promise<TokenSet> {
  const config = await discoverServer(webUrl, clientId)
  return tokenSetOf(await oidc.refreshTokenGrant(config, refreshToken))
}

/** Revokes a token at the authorization server (RFC 7009); a refresh token takes its whole grant with it. */
export async function revokeToken(webUrl: string, clientId: string, token: string, hint: 'refresh_token' | 'access_token'): Promise<void> {
  const config = await discoverServer(webUrl, clientId)
  await oidc.tokenRevocation(config, token, { token_type_hint: hint })
}

/** The OAuth error code an openid-client call was refused with (`invalid_grant`…), or null. */
export function oauthErrorOf(error: unknown): string | null {
  if (error instanceof oidc.ResponseBodyError) return error.error
  if (error instanceof oidc.WWWAuthenticateChallengeError) {
    const cause = error.cause as readonly { readonly parameters?: { readonly error?: string } }[] | undefined
    return cause?.[0]?.parameters?.error ?? 'invalid_client'
  }
  if (error instanceof oidc.AuthorizationResponseError) return error.error
  return null
}

/** One line for a failed call to the authorization server. */
export function describeOAuthFailure(error: unknown): string {
  if (error instanceof oidc.ResponseBodyError || error instanceof oidc.AuthorizationResponseError) {
    return error.error_description ? `${error.error}: ${error.error_description}` : error.error
  }
  const message = error instanceof Error ? error.message : String(error)
  const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : ''
  return `${message}${cause}`
}

/**
 * The authorization server for an API, from its protected-resource metadata (RFC 9728):
 * `authorization_servers[0]`.
 */
export async function authorizationServerOf(baseUrl: string): Promise<string> {
  const url = `${baseUrl}/.well-known/oauth-protected-resource`
  const response = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(requestTimeoutSeconds * 1000) })
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}.`)
  const metadata = (await response.json()) as { authorization_servers?: unknown }
  const first = Array.isArray(metadata.authorization_servers) ? metadata.authorization_servers[0] : undefined
  if (typeof first !== 'string' || first === '') throw new Error(`${url} names no authorization server.`)
  return first.replace(/\/+$/, '')
}
