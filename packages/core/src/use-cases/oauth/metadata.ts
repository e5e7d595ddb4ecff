import { scopes } from '../../contract/scopes.ts'
import type { OAuthServerConfig } from './oauth-result.ts'

/** RFC 8414 authorization server metadata, served at `/.well-known/oauth-authorization-server`. */
export function authorizationServerMetadata(config: OAuthServerConfig) {
  const at = (path: string) => `${config.issuer}${path}`
  return {
    issuer: config.issuer,
    authorization_endpoint: at('/oauth2/authorize'),
    token_endpoint: at('/oauth2/token'),
    registration_endpoint: at('/oauth2/register'),
    revocation_endpoint: at('/oauth2/revoke'),
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    scopes_supported: [...scopes],
    authorization_response_iss_parameter_supported: true,
  }
}

/** RFC 9728 protected resource metadata for one resource this server issues tokens for. */
export function protectedResourceMetadata(config: OAuthServerConfig, resource: string) {
  return {
    resource,
    authorization_servers: [config.issuer],
    scopes_supported: [...scopes],
    bearer_methods_supported: ['header'],
  }
}
