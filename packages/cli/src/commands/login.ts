import { isQuireApiError } from '@quire/client'
import * as oidc from 'openid-client'
import { CredentialStoreError } from '../credentials/keyring.ts'
import { listenForCallback } from '../credentials/loopback.ts'
import type { CredentialMetadata, StoredUser } from '../credentials/metadata.ts'
import { cacheClientId, cachedClientId, readMetadata } from '../credentials/metadata.ts'
import {
  authorizationServerOf,
  describeOAuthFailure,
  discoverServer,
  oauthErrorOf,
  registerClient,
  type TokenSet,
  tokenSetOf,
} from '../credentials/oauth.ts'
import { openBrowser } from '../credentials/open-browser.ts'
import {
  probeCredentialStore,
  type RevocableGrant,
  readSecret,
  revocableGrant,
  revokeGrant,
  type StoredSecret,
  saveCredential,
} from '../credentials/store.ts'
import { cliClient } from '../run/cli-client.ts'
import { CliError } from '../run/cli-error.ts'
import type { CommandContext, CommandResult, Handler } from '../run/context.ts'

/**
 * `quire login`: keeps a credential for the base URL in the OS credential store. With
 * `--token-stdin` (or `--token`) it checks the given token and stores it; otherwise it signs the
 * person in through the browser: authorization code + PKCE (S256) against the web app, with a
 * loopback redirect. Without a credential store it stops before anything else, and it never
 * writes a secret anywhere but the store.
 */
export const login: Handler = async (context) =>
  context.globals.tokenStdin || context.globals.token !== undefined ? storeGivenToken(context) : signInWithBrowser(context)

/** How long the browser has to come back. */
const callbackTimeoutMs = 5 * 60_000

const credentialRemedy = 'or skip the store: give each command a token with AGENT_SERVICE_TOKEN or --token-stdin.'

function storeUnavailable(reason: string | undefined): CliError {
  const fix =
    process.platform === 'linux'
      ? 'Install and unlock a Secret Service (gnome-keyring, KWallet or KeePassXC) in your D-Bus session'
      : 'Unlock the system keychain (credential manager)'
  return new CliError(
    'credential_store',
    `The OS credential store is not available, so quire login cannot keep a credential; nothing was stored. ${reason ?? ''}`.trim(),
    {
      hint: `${fix}, ${credentialRemedy}`,
      details: { reason: reason ?? null },
    },
  )
}

function userOf(profile: { readonly id: string; readonly username: string; readonly email: string }): StoredUser {
  return { id: profile.id, username: profile.username, email: profile.email }
}

async function requireStore(): Promise<void> {
  const store = await probeCredentialStore()
  if (!store.available) throw storeUnavailable(store.reason)
}

/** Whoever the token acts for (the API refuses a bad token with 401: exit 4). */
async function whoIs(context: CommandContext, token: string): Promise<StoredUser> {
  return userOf(await cliClient(context.globals, context.io, token).call('getProfile'))
}

/**
 * The sign-in a new login replaces: revoked once the new credential is stored (a refresh token
 * lives 30 days; forgetting it here would leave it valid there).
 */
async function previousGrant(context: CommandContext): Promise<RevocableGrant | null> {
  try {
    const baseUrl = context.globals.baseUrl
    return revocableGrant(await readMetadata(context.env, baseUrl), await readSecret(baseUrl))
  } catch {
    return null
  }
}

async function retire(context: CommandContext, previous: RevocableGrant | null, keep: StoredSecret): Promise<void> {
  if (previous && previous.refreshToken !== keep.refreshToken)
    await revokeGrant(previous, (message) => context.progress(`Note: ${message}`))
}

/** Stores the credential; says so when AGENT_SERVICE_TOKEN will still be used before it. */
async function keep(context: CommandContext, secret: StoredSecret, metadata: CredentialMetadata): Promise<void> {
  try {
    await saveCredential(context.env, context.globals.baseUrl, secret, metadata)
  } catch (error) {
    throw error instanceof CredentialStoreError ? storeUnavailable(error.message) : error
  }
  if (context.env.token !== undefined)
    context.progress('Stored. Note: AGENT_SERVICE_TOKEN is set, and commands use it before the stored credential.')
}

async function storeGivenToken(context: CommandContext): Promise<CommandResult> {
  const { globals } = context
  const resolved = await context.token()
  const source = resolved.source as 'stdin' | 'flag'
  if (globals.dryRun) {
    return { kind: 'value', value: { dryRun: true, wouldStore: true, baseUrl: globals.baseUrl, source, store: 'os-credential-store' } }
  }
  await requireStore()
  context.progress(`Checking the token with ${globals.baseUrl}…`)
  const user = await whoIs(context, resolved.token ?? '').catch((error: unknown) => {
    if (isQuireApiError(error) && error.status === 401) {
      throw new CliError('auth_required', `${globals.baseUrl} refused this token (${error.code}); nothing was stored.`, {
        hint: 'Check the token (an API key, or a token from quire login on another machine), or run quire login for the browser sign-in.',
        code: error.code,
      })
    }
    throw error
  })
  const previous = await previousGrant(context)
  const secret: StoredSecret = { accessToken: resolved.token ?? '' }
  await keep(context, secret, { kind: 'token', user, savedAt: new Date().toISOString() })
  await retire(context, previous, secret)
  return { kind: 'value', value: { stored: true, baseUrl: globals.baseUrl, user, source } }
}

/** The OAuth client for this web URL: the one an earlier login registered, else a new registration. */
async function oauthClient(
  context: CommandContext,
  webUrl: string,
  fresh: boolean,
): Promise<{ config: oidc.Configuration; cached: boolean }> {
  const cached = fresh ? null : await cachedClientId(context.env, webUrl)
  if (cached) return { config: await discoverServer(webUrl, cached), cached: true }
  context.progress(`Registering quire with ${webUrl}…`)
  const config = await registerClient(webUrl)
  await cacheClientId(context.env, webUrl, config.clientMetadata().client_id)
  return { config, cached: false }
}

/**
 * Asks the authorization endpoint, without a browser, whether it accepts the request: an unknown
 * client (a server reset, a deleted registration) gets an error page there, never a redirect, and
 * the person would be left looking at it while the CLI waits.
 */
async function accepted(url: URL): Promise<boolean> {
  const response = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(15_000) })
  await response.body?.cancel()
  return response.status >= 300 && response.status < 400
}

async function waitForBrowser(callback: Promise<URL>): Promise<URL> {
  let onInterrupt: () => void = () => {}
  let timer: NodeJS.Timeout | undefined
  const interrupted = new Promise<never>((_, fail) => {
    onInterrupt = () => fail(new CliError('cancelled', 'Sign-in cancelled; nothing was stored.'))
    process.once('SIGINT', onInterrupt)
  })
  const late = new Promise<never>((_, fail) => {
    timer = setTimeout(
      () =>
        fail(
          new CliError('auth_required', 'No sign-in arrived within 5 minutes; nothing was stored.', {
            hint: 'Run quire login again.',
            code: 'login_timeout',
          }),
        ),
      callbackTimeoutMs,
    )
  })
  try {
    return await Promise.race([callback, interrupted, late])
  } finally {
    process.off('SIGINT', onInterrupt)
    clearTimeout(timer)
  }
}

function unreachable(what: string, error: unknown, hint: string): CliError {
  return new CliError('unavailable', `${what}: ${describeOAuthFailure(error)}`, { hint, code: 'unreachable' })
}

/** The authorization request's URL, after checking that the server takes it; re-registers once when a cached client is refused. */
async function authorizationRequest(
  context: CommandContext,
  webUrl: string,
  request: { readonly redirectUri: string; readonly challenge: string; readonly state: string },
): Promise<{ config: oidc.Configuration; url: URL }> {
  const build = (config: oidc.Configuration) =>
    oidc.buildAuthorizationUrl(config, {
      redirect_uri: request.redirectUri,
      code_challenge: request.challenge,
      code_challenge_method: 'S256',
      state: request.state,
      resource: context.globals.baseUrl,
    })
  const reachable = <T>(work: Promise<T>) =>
    work.catch((error: unknown) => {
      if (error instanceof CliError) throw error
      throw unreachable(
        `Could not reach the sign-in server ${webUrl}`,
        error,
        'Check --web-url (AGENT_SERVICE_WEB_URL), or that Quire is running.',
      )
    })
  let client = await reachable(oauthClient(context, webUrl, false))
  let url = build(client.config)
  if (await reachable(accepted(url))) return { config: client.config, url }
  if (client.cached) {
    // The server no longer knows the cached client (invalid_client): register again, once.
    client = await reachable(oauthClient(context, webUrl, true))
    url = build(client.config)
    if (await reachable(accepted(url))) return { config: client.config, url }
  }
  throw new CliError('error', `${webUrl} refused the sign-in request (open ${url.href} to see why).`)
}

async function signInWithBrowser(context: CommandContext): Promise<CommandResult> {
  const { globals, env, io } = context
  const baseUrl = globals.baseUrl
  if (!globals.input) {
    throw new CliError('auth_required', 'quire login signs in through a browser, and --no-input (AGENT_SERVICE_NO_INPUT) rules that out.', {
      hint: 'Set AGENT_SERVICE_TOKEN, or pipe a token to --token-stdin (printf %s "$TOKEN" | quire login --token-stdin keeps it), or run quire login in a terminal.',
      code: 'login_needs_input',
    })
  }
  if (globals.dryRun) return { kind: 'value', value: { dryRun: true, wouldSignIn: true, baseUrl, webUrl: globals.webUrl ?? null } }
  await requireStore()

  const webUrl =
    globals.webUrl ??
    (await authorizationServerOf(baseUrl).catch((error: unknown) => {
      throw unreachable(
        `Could not find the sign-in server of ${baseUrl}`,
        error,
        `Is Quire running at ${baseUrl}? Or name the web app with --web-url.`,
      )
    }))
  const state = oidc.randomState()
  const verifier = oidc.randomPKCECodeVerifier()
  const listener = await listenForCallback(state)
  try {
    const challenge = await oidc.calculatePKCECodeChallenge(verifier)
    const { config, url } = await authorizationRequest(context, webUrl, { redirectUri: listener.redirectUri, challenge, state })
    // Waiting (and Ctrl-C) starts before the person can act on the URL; awaited below.
    const arrival = waitForBrowser(listener.callback)
    arrival.catch(() => {})
    io.stderr(`Open this URL to sign in: ${url.href}\n`)
    const launch = await openBrowser(env, url.href)
    context.progress(
      launch.opened
        ? 'Opened your browser; waiting for the sign-in (Ctrl-C cancels)…'
        : `Waiting for the sign-in (no browser opened: ${launch.reason}; Ctrl-C cancels)…`,
    )
    const callback = await arrival

    let tokens: TokenSet
    try {
      tokens = tokenSetOf(await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state }))
    } catch (error) {
      throw new CliError('auth_required', `The sign-in did not complete: ${describeOAuthFailure(error)}`, {
        hint: 'Run quire login again.',
        code: oauthErrorOf(error) === 'access_denied' ? 'access_denied' : 'login_failed',
      })
    }
    const user = await whoIs(context, tokens.accessToken)
    const previous = await previousGrant(context)
    const secret: StoredSecret = { accessToken: tokens.accessToken, ...(tokens.refreshToken ? { refreshToken: tokens.refreshToken } : {}) }
    const metadata: CredentialMetadata = {
      kind: 'oauth',
      webUrl,
      clientId: config.clientMetadata().client_id,
      user,
      ...(tokens.expiresAt ? { expiresAt: tokens.expiresAt } : {}),
      savedAt: new Date().toISOString(),
    }
    await keep(context, secret, metadata)
    await retire(context, previous, secret)
    return { kind: 'value', value: { loggedIn: true, baseUrl, webUrl, user, expiresAt: tokens.expiresAt ?? null } }
  } finally {
    await listener.close()
  }
}
