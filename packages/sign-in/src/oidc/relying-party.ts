import type { OidcIdentity } from '@quire/core'
import * as client from 'openid-client'

/** The external provider, as configured (OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET). */
export interface OidcClientSettings {
  readonly issuer: string
  readonly clientId: string
  readonly clientSecret: string
}

/** What one sign-in attempt must find again when the provider sends the person back. */
export interface PendingSignIn {
  readonly state: string
  readonly nonce: string
  readonly codeVerifier: string
  readonly returnTo: string
}

/** A sign-in that did not complete, told for a person (`message`) and for the log (`detail`). */
export class SignInFailure extends Error {
  readonly title: string
  readonly detail: string | undefined
  /** 400 when the attempt itself failed; 502 when the provider could not be reached or misbehaved. */
  readonly status: 400 | 502

  constructor(title: string, message: string, detail?: string, options?: ErrorOptions & { status?: 400 | 502 }) {
    super(message, options)
    this.name = 'SignInFailure'
    this.title = title
    this.detail = detail
    this.status = options?.status ?? 400
  }
}

export interface RelyingParty {
  /** The provider's authorization URL for a fresh attempt, with what the callback must check. */
  begin(returnTo: string): Promise<{ url: URL; pending: PendingSignIn }>
  /** Checks the provider's answer (state, PKCE, ID token and nonce) and says who signed in. */
  finish(callbackUrl: URL, pending: PendingSignIn): Promise<OidcIdentity>
}

/**
 * Quire as an OpenID Connect relying party (authorization code + PKCE + state + nonce, client
 * authentication by client_secret_basic). The provider's metadata is discovered on first use and
 * kept; a failed discovery is retried on the next sign-in rather than failing the boot, so a
 * provider that is briefly down (or, locally, the bundled one not yet listening) costs nothing.
 */
export function relyingParty(settings: OidcClientSettings & { redirectUri: string; allowHttp: boolean }): RelyingParty {
  let discovered: Promise<client.Configuration> | null = null
  const configuration = (): Promise<client.Configuration> => {
    discovered ??= client
      .discovery(
        new URL(settings.issuer),
        settings.clientId,
        undefined,
        client.ClientSecretBasic(settings.clientSecret),
        settings.allowHttp ? { execute: [client.allowInsecureRequests] } : undefined,
      )
      .catch((error: unknown) => {
        discovered = null
        throw new SignInFailure(
          'The sign-in provider is unavailable',
          'Quire could not reach its sign-in provider. Try again in a moment.',
          `discovery of ${settings.issuer} failed: ${messageOf(error)}`,
          { cause: error, status: 502 },
        )
      })
    return discovered
  }

  return {
    async begin(returnTo) {
      const config = await configuration()
      const pending: PendingSignIn = {
        state: client.randomState(),
        nonce: client.randomNonce(),
        codeVerifier: client.randomPKCECodeVerifier(),
        returnTo,
      }
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: settings.redirectUri,
        scope: 'openid email',
        code_challenge: await client.calculatePKCECodeChallenge(pending.codeVerifier),
        code_challenge_method: 'S256',
        state: pending.state,
        nonce: pending.nonce,
      })
      return { url, pending }
    },

    async finish(callbackUrl, pending) {
      const config = await configuration()
      let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>
      try {
        tokens = await client.authorizationCodeGrant(config, callbackUrl, {
          pkceCodeVerifier: pending.codeVerifier,
          expectedState: pending.state,
          expectedNonce: pending.nonce,
          idTokenExpected: true,
        })
      } catch (error) {
        throw failureOf(error)
      }
      const idToken = tokens.claims()
      if (!idToken) throw new SignInFailure('Sign-in failed', 'The sign-in provider sent no ID token.', 'no id_token')
      let claims: Record<string, unknown> = idToken
      // Many providers (the bundled one too) put email only in UserInfo unless asked otherwise.
      if (typeof claims.email !== 'string' || claims.email_verified !== true) {
        try {
          claims = { ...claims, ...(await client.fetchUserInfo(config, tokens.access_token, idToken.sub)) }
        } catch (error) {
          throw failureOf(error)
        }
      }
      if (typeof claims.email !== 'string' || claims.email === '')
        throw new SignInFailure(
          'No email address',
          'Your sign-in provider did not tell Quire your email address, which Quire needs to know who you are.',
          'the email claim is missing',
        )
      if (claims.email_verified !== true)
        throw new SignInFailure(
          'Email not verified',
          `Your sign-in provider has not verified ${claims.email}. Verify it with the provider, then sign in again.`,
          'email_verified is not true',
        )
      return { issuer: config.serverMetadata().issuer, subject: idToken.sub, email: claims.email.toLowerCase(), emailVerified: true }
    },
  }
}

/** Turns what openid-client throws into a failure a person can read. */
function failureOf(error: unknown): SignInFailure {
  if (error instanceof SignInFailure) return error
  if (error instanceof client.AuthorizationResponseError) {
    const denied = error.error === 'access_denied'
    return new SignInFailure(
      denied ? 'Sign-in cancelled' : 'Sign-in refused',
      denied
        ? 'The sign-in was cancelled or refused at the provider. You are not signed in.'
        : 'The sign-in provider refused the sign-in. You are not signed in.',
      [error.error, error.error_description].filter(Boolean).join(': '),
      { cause: error },
    )
  }
  if (error instanceof client.ResponseBodyError)
    return new SignInFailure(
      'Sign-in failed',
      'The sign-in provider would not complete the sign-in. Start again.',
      [error.error, error.error_description].filter(Boolean).join(': '),
      { cause: error },
    )
  if (error instanceof client.ClientError)
    return new SignInFailure(
      'Sign-in failed',
      'The answer from the sign-in provider did not check out, so Quire did not sign you in. Start again.',
      `${error.code ?? 'client error'}: ${error.message}`,
      { cause: error },
    )
  return new SignInFailure(
    'The sign-in provider is unavailable',
    'Quire could not complete the sign-in with its provider. Try again in a moment.',
    messageOf(error),
    { cause: error, status: 502 },
  )
}

function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : ''
  return `${error.message}${cause}`
}
