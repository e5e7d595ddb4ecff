/** The error codes of RFC 6749 §4.1.2.1 and §5.2, RFC 7591 §3.2.2 and RFC 8707 §2. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'access_denied'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'

/** An OAuth error as RFC 6749 shapes it (not problem+json): the code, words for humans, the HTTP status. */
export interface OAuthError {
  readonly error: OAuthErrorCode
  readonly error_description: string
  readonly status: 400 | 401
}

export type OAuthResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: OAuthError }

export function oauthOk<T>(value: T): OAuthResult<T> {
  return { ok: true, value }
}

export function oauthFail(error: OAuthErrorCode, description: string, status: 400 | 401 = 400): { ok: false; error: OAuthError } {
  return { ok: false, error: { error, error_description: description, status } }
}

/** Where the authorization server lives and which resources it issues tokens for. */
export interface OAuthServerConfig {
  /** The issuer: the web app's origin, byte-identical in every metadata document. */
  readonly issuer: string
  /** Resource identifiers (RFC 8707) tokens may be bound to: the API, the MCP endpoint. */
  readonly resources: readonly string[]
  /** The resource a token is for when the client names none. */
  readonly defaultResource: string
}

/**
 * The one derivation of the server's OAuth settings, shared by the API (its challenge and
 * metadata) and the web app (the authorization server): the web origin issues tokens for the API
 * and for `/mcp` on the web origin.
 */
export function oauthServerConfig(config: { readonly webUrl: string; readonly apiUrl: string }): OAuthServerConfig {
  const issuer = config.webUrl.replace(/\/+$/, '')
  const api = config.apiUrl.replace(/\/+$/, '')
  return { issuer, resources: [api, `${issuer}/mcp`], defaultResource: api }
}
