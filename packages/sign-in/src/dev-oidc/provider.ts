import { generateKeyPairSync, randomBytes } from 'node:crypto'
import { devProviderPath, errorPage, webRoutes } from '@quire/pages'
import Provider, { type Configuration, type KoaContextWithOIDC } from 'oidc-provider'
import { memoryAdapter } from './memory-adapter.ts'

/** Where the development provider lives inside the web app (a reserved name: no owner can take it). */
export { devProviderPath }

/** The development provider and the one client it knows: the web app itself. */
export interface DevProvider {
  readonly provider: Provider
  readonly issuer: string
  readonly clientId: string
  readonly clientSecret: string
}

/**
 * Production without an external provider: the bundled one signs anyone in as anyone. One line,
 * the same whether the environment check or the provider itself refuses.
 */
export const devProviderInProduction =
  'The bundled development sign-in provider accepts any email address and must never run in production (NODE_ENV=production). ' +
  'Configure your OpenID Connect provider: OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET.'

export class DevProviderRefused extends Error {
  constructor() {
    super(devProviderInProduction)
    this.name = 'DevProviderRefused'
  }
}

/**
 * A real OpenID Connect provider (panva's oidc-provider) for local mode and tests, so that sign-in
 * runs the same code path everywhere. Anyone may sign in as any email address, which the provider
 * vouches for as verified: that is why it refuses to exist when NODE_ENV=production. Its keys,
 * client secret and state are made fresh per process and kept in memory.
 */
export function createDevProvider(options: { webUrl: string; production: boolean; clientSecret?: string }): DevProvider {
  if (options.production) throw new DevProviderRefused()
  const issuer = `${options.webUrl}${devProviderPath}`
  const clientId = 'quire-web'
  // Given when the provider runs alone for several web processes (apps/web/src/dev-oidc/standalone.ts), which must know it.
  const clientSecret = options.clientSecret ?? randomBytes(32).toString('base64url')
  const signingKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' })

  const configuration: Configuration = {
    adapter: memoryAdapter(),
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [`${options.webUrl}${webRoutes.signInCallback.path()}`],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
        id_token_signed_response_alg: 'ES256',
      },
    ],
    jwks: { keys: [{ ...signingKey, kid: 'dev-oidc-1', alg: 'ES256', use: 'sig' }] },
    cookies: {
      keys: [randomBytes(32).toString('base64url')],
      // Not `_session`: the provider shares the web app's origin and cookie jar.
      names: { session: 'dev_oidc_session', interaction: 'dev_oidc_interaction', resume: 'dev_oidc_resume' },
    },
    scopes: ['openid', 'email'],
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    // The account id is the email address: nothing to store, stable across restarts.
    findAccount: (_ctx, accountId) => ({ accountId, claims: () => claimsOf(accountId) }),
    pkce: { required: () => true },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => webRoutes.devSignIn.path({ uid: interaction.uid }) },
    // The one client is the web app itself: no consent screen, every request is granted what it asks.
    loadExistingGrant: async (ctx) => grantFor(ctx),
    renderError: (ctx, out) => {
      ctx.type = 'html'
      ctx.body = errorPage({
        title: 'Sign-in failed',
        message: 'The development sign-in provider could not go on with this request. Start again from Quire.',
        detail: [out.error, out.error_description].filter(Boolean).join(': '),
        retrySignIn: true,
      })
    },
    ttl: {
      AccessToken: 600,
      AuthorizationCode: 60,
      IdToken: 600,
      Interaction: 600,
      Session: 86_400,
      Grant: 86_400,
    },
  }
  return { provider: new Provider(issuer, configuration), issuer, clientId, clientSecret }
}

/**
 * Account ids of people who signed in with "unverified" ticked carry this prefix: to the provider
 * they are another account (another subject), whose address it does not vouch for.
 */
export const unverifiedPrefix = 'unverified:'

function claimsOf(accountId: string) {
  const unverified = accountId.startsWith(unverifiedPrefix)
  const email = unverified ? accountId.slice(unverifiedPrefix.length) : accountId
  return { sub: accountId, email, email_verified: !unverified }
}

async function grantFor(ctx: KoaContextWithOIDC) {
  const { client, session, result, provider } = ctx.oidc
  if (!client || !session?.accountId) return undefined
  const grantId = result?.consent?.grantId ?? session.grantIdFor(client.clientId)
  if (grantId) return provider.Grant.find(grantId)
  const grant = new provider.Grant({ clientId: client.clientId, accountId: session.accountId })
  grant.addOIDCScope('openid email')
  grant.addOIDCClaims(['email', 'email_verified'])
  await grant.save()
  return grant
}
