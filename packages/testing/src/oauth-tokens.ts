import {
  approveAuthorization,
  type CoreDeps,
  checkAuthorizationRequest,
  exchangeToken,
  oauthServerConfig,
  registerOAuthClient,
  sessionPrincipal,
  sha256Base64Url,
  signInWithOidc,
} from '@quire/core'

/**
 * Signs a person in (as the web app's callback does), has them approve a fresh client, and
 * exchanges the code: the web app's use-cases without the browser. Tokens for `resource`, by
 * default the API.
 */
export async function oauthTokensFor(
  deps: CoreDeps,
  email: string,
  resource?: string,
): Promise<{ access_token: string; refresh_token: string; clientId: string }> {
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
  const tokens = await exchangeToken(deps, {
    grant_type: 'authorization_code',
    client_id: registered.value.client_id,
    code: new URL(redirectTo).searchParams.get('code') ?? '',
    redirect_uri: 'http://127.0.0.1:4567/callback',
    code_verifier: verifier,
  })
  if (!tokens.ok) throw new Error(tokens.error.error_description)
  return { ...tokens.value, clientId: registered.value.client_id }
}
