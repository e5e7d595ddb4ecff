import { createHash, randomBytes } from 'node:crypto'
import { mkdir, open, readFile, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { CliEnvironment } from '../config.ts'
import type { Io } from '../run/context.ts'
import type { CredentialMetadata } from './metadata.ts'

/**
 * The credential `quire login` keeps for a base URL: the secret (`{accessToken, refreshToken?}`,
 * JSON) in the OS credential store under service `quire`, account = the base URL; the rest
 * (kind, user, expiry, OAuth client) in credentials.json (metadata.ts). An OAuth access token
 * that has expired, or is about to, is renewed with the refresh token on first use, and the
 * rotated pair is stored again. The native keyring module and openid-client load only when a
 * command gets this far.
 */
export interface StoredSecret {
  readonly accessToken: string
  readonly refreshToken?: string
}

/** An access token this close to its expiry is renewed before use. */
const refreshMarginMs = 60_000

const keyring = () => import('./keyring.ts')
const metadata = () => import('./metadata.ts')

function parseSecret(text: string | null): StoredSecret | null {
  if (text === null || text === '') return null
  try {
    const value: unknown = JSON.parse(text)
    if (typeof value !== 'object' || value === null) return null
    const { accessToken, refreshToken } = value as Record<string, unknown>
    if (typeof accessToken !== 'string' || accessToken === '') return null
    return { accessToken, ...(typeof refreshToken === 'string' && refreshToken !== '' ? { refreshToken } : {}) }
  } catch {
    return null
  }
}

/** The stored secret for a base URL, or null. Throws `CredentialStoreError` when the store cannot be read. */
export async function readSecret(baseUrl: string): Promise<StoredSecret | null> {
  return parseSecret(await (await keyring()).readEntry(baseUrl))
}

/** Stores the secret in the OS store, then the metadata (a secret that failed to store leaves no metadata). */
export async function saveCredential(env: CliEnvironment, baseUrl: string, secret: StoredSecret, meta: CredentialMetadata): Promise<void> {
  await (await keyring()).writeEntry(baseUrl, JSON.stringify(secret))
  await (await metadata()).saveMetadata(env, baseUrl, meta)
}

export interface Forgotten {
  /** A secret was deleted from the store; null when the store could not be reached. */
  readonly secretDeleted: boolean | null
  readonly metadataDeleted: boolean
  /** Why the store could not be reached. */
  readonly storeError?: string
}

/** Deletes the base URL's secret (when the store answers) and its metadata (always). */
export async function forgetCredential(env: CliEnvironment, baseUrl: string): Promise<Forgotten> {
  const { deleteEntry, CredentialStoreError } = await keyring()
  let secretDeleted: boolean | null = null
  let storeError: string | undefined
  try {
    secretDeleted = await deleteEntry(baseUrl)
  } catch (error) {
    if (!(error instanceof CredentialStoreError)) throw error
    storeError = error.message
  }
  const metadataDeleted = await (await metadata()).deleteMetadata(env, baseUrl)
  return { secretDeleted, metadataDeleted, ...(storeError ? { storeError } : {}) }
}

/** Can the store keep a credential (a real write, within the time limit)? */
export async function probeCredentialStore(): Promise<{ readonly available: boolean; readonly reason?: string }> {
  return (await keyring()).probeStore()
}

export interface StoredState {
  /** The store answered a read for this base URL. */
  readonly storeReachable: boolean
  readonly storeError?: string
  /** A secret is stored for the base URL (null: unknown, the store did not answer). */
  readonly hasSecret: boolean | null
  readonly metadata: CredentialMetadata | null
}

/** What is stored for a base URL, read-only: for `auth status`. Never returns the secret. */
export async function inspectStored(env: CliEnvironment, baseUrl: string): Promise<StoredState> {
  const meta = await (await metadata()).readMetadata(env, baseUrl)
  try {
    const secret = await readSecret(baseUrl)
    return { storeReachable: true, hasSecret: secret !== null, metadata: meta }
  } catch (error) {
    return { storeReachable: false, storeError: error instanceof Error ? error.message : String(error), hasSecret: null, metadata: meta }
  }
}

const expiresAtMs = (meta: CredentialMetadata | null) => (meta?.expiresAt ? Date.parse(meta.expiresAt) : Number.NaN)

/** An OAuth access token near or past its expiry, with what it takes to renew it. */
function renewable(
  meta: CredentialMetadata | null,
  secret: StoredSecret,
): meta is CredentialMetadata & { webUrl: string; clientId: string } {
  const expires = expiresAtMs(meta)
  return (
    meta?.kind === 'oauth' &&
    Number.isFinite(expires) &&
    expires - Date.now() < refreshMarginMs &&
    secret.refreshToken !== undefined &&
    meta.webUrl !== undefined &&
    meta.clientId !== undefined
  )
}

/**
 * Only one process renews a base URL's tokens at a time: refresh tokens rotate, and the server
 * treats a rotated-out token presented again as theft and revokes the whole grant. A lock file
 * (created exclusively, holding its owner's nonce) serialises the renewals. A lock is stale only
 * when older than any renewal can take (the OAuth calls are bounded to 15 s each, the keyring's to
 * 3 s), and a process removes only its own: a slow renewal is never broken into.
 */
const STALE_LOCK_MS = 120_000

async function withRenewalLock<T>(env: CliEnvironment, baseUrl: string, work: () => Promise<T>): Promise<T> {
  await mkdir(env.configDir, { recursive: true, mode: 0o700 })
  const lock = join(env.configDir, `renew-${createHash('sha256').update(baseUrl).digest('hex').slice(0, 16)}.lock`)
  const giveUp = Date.now() + 20_000
  const nonce = randomBytes(16).toString('hex')
  for (;;) {
    try {
      const file = await open(lock, 'wx', 0o600)
      await file.writeFile(nonce)
      await file.close()
      break
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const age = await stat(lock).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      )
      if (age > STALE_LOCK_MS) await rm(lock, { force: true })
      else if (Date.now() > giveUp) throw new Error('another quire process is renewing the stored sign-in')
      else await new Promise((done) => setTimeout(done, 100))
    }
  }
  try {
    return await work()
  } finally {
    if ((await readFile(lock, 'utf8').catch(() => '')) === nonce) await rm(lock, { force: true })
  }
}

/** Renews the stored OAuth tokens and stores the new pair; the new access token. */
async function renew(env: CliEnvironment, baseUrl: string, seen: StoredSecret): Promise<string> {
  return withRenewalLock(env, baseUrl, async () => {
    // Another process may have renewed while this one waited: then its tokens are the current ones.
    const current = (await readSecret(baseUrl)) ?? seen
    const meta = await (await metadata()).readMetadata(env, baseUrl)
    if (current.refreshToken !== seen.refreshToken || !renewable(meta, current)) return current.accessToken
    const { refreshTokens } = await import('./oauth.ts')
    const fresh = await refreshTokens(meta.webUrl, meta.clientId, current.refreshToken ?? '')
    const refreshToken = fresh.refreshToken ?? current.refreshToken
    const secret: StoredSecret = { accessToken: fresh.accessToken, ...(refreshToken ? { refreshToken } : {}) }
    const { expiresAt: _, ...rest } = meta
    await saveCredential(env, baseUrl, secret, {
      ...rest,
      ...(fresh.expiresAt ? { expiresAt: fresh.expiresAt } : {}),
      savedAt: new Date().toISOString(),
    })
    return fresh.accessToken
  })
}

/**
 * The access token stored for this base URL, renewed first when it is an OAuth token at or near
 * its expiry; null when nothing usable is stored, the store cannot be reached, or the renewal was
 * refused (the API then answers 401 and the CLI says to run `quire login`). Never throws for an
 * unavailable store: commands with a token from a flag or the environment do not need one.
 */
export async function readStoredToken(
  env: CliEnvironment,
  baseUrl: string,
  io: Io,
  /** `renew: false` (a dry run): never renew an expired token, which would be a write at the server. */
  options: { readonly debug?: boolean; readonly renew?: boolean } = {},
): Promise<string | null> {
  const note = (message: string) => {
    if (options.debug ?? env.debug) io.stderr(`debug: ${message}\n`)
  }
  let secret: StoredSecret | null
  try {
    secret = await readSecret(baseUrl)
  } catch (error) {
    note(`no stored credential used: ${error instanceof Error ? error.message : String(error)}`)
    return null
  }
  if (secret === null) return null
  const meta = await (await metadata()).readMetadata(env, baseUrl)
  if (!renewable(meta, secret) || options.renew === false) return secret.accessToken
  try {
    note(`renewing the stored sign-in for ${baseUrl} (the access token expires at ${meta?.expiresAt})`)
    return await renew(env, baseUrl, secret)
  } catch (error) {
    const { describeOAuthFailure } = await import('./oauth.ts')
    note(`renewing the stored sign-in failed: ${describeOAuthFailure(error)}`)
    return expiresAtMs(meta) > Date.now() ? secret.accessToken : null
  }
}

/** A stored OAuth sign-in the authorization server can revoke: its refresh token, client and server. */
export interface RevocableGrant {
  readonly webUrl: string
  readonly clientId: string
  readonly refreshToken: string
}

export function revocableGrant(meta: CredentialMetadata | null, secret: StoredSecret | null): RevocableGrant | null {
  if (meta?.kind !== 'oauth' || !meta.webUrl || !meta.clientId || !secret?.refreshToken) return null
  return { webUrl: meta.webUrl, clientId: meta.clientId, refreshToken: secret.refreshToken }
}

/**
 * Revokes a sign-in at its server (RFC 7009: the refresh token takes its access tokens with it).
 * A server that cannot be reached is reported through `warn` and is not an error: the grant then
 * expires on its own.
 */
export async function revokeGrant(grant: RevocableGrant, warn: (message: string) => void): Promise<boolean> {
  const { describeOAuthFailure, revokeToken } = await import('./oauth.ts')
  try {
    await revokeToken(grant.webUrl, grant.clientId, grant.refreshToken, 'refresh_token')
    return true
  } catch (error) {
    warn(`could not revoke the sign-in at ${grant.webUrl} (${describeOAuthFailure(error)}); it expires on its own.`)
    return false
  }
}
