import { randomBytes } from 'node:crypto'
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { CliEnvironment } from '../config.ts'

/**
 * `credentials.json` under the CLI's config directory: what `quire login` knows about each base
 * URL's credential that is not secret (who, what kind, until when, which OAuth client), and the
 * OAuth client registered at each web URL, reused by the next login. Secrets never go here: they
 * live in the OS credential store (keyring.ts). Written whole, atomically (a temporary file
 * renamed over the old one), readable by its owner only.
 */
export interface StoredUser {
  readonly id: string
  readonly username: string
  readonly email: string
}

export interface CredentialMetadata {
  /** `oauth`: from the browser login (refreshable); `token`: an API key or token given to `login --token-stdin`. */
  readonly kind: 'oauth' | 'token'
  /** The authorization server that issued an OAuth credential. */
  readonly webUrl?: string
  /** The OAuth client the tokens were issued to (refresh and revocation need it). */
  readonly clientId?: string
  readonly user?: StoredUser
  /** When the access token expires (ISO 8601), when known. */
  readonly expiresAt?: string
  readonly savedAt: string
}

interface MetadataFile {
  readonly version: 1
  /** By API base URL. */
  readonly credentials: Record<string, CredentialMetadata>
  /** The OAuth client registered at each web URL (authorization server). */
  readonly clients: Record<string, { readonly clientId: string; readonly registeredAt: string }>
}

export function metadataPath(env: CliEnvironment): string {
  return join(env.configDir, 'credentials.json')
}

const empty = (): MetadataFile => ({ version: 1, credentials: {}, clients: {} })

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The whole file; a missing or unreadable one is empty (it holds nothing that cannot be re-learnt). */
async function readMetadataFile(env: CliEnvironment): Promise<MetadataFile> {
  let text: string
  try {
    text = await readFile(metadataPath(env), 'utf8')
  } catch {
    return empty()
  }
  try {
    const parsed: unknown = JSON.parse(text)
    if (!isRecord(parsed)) return empty()
    return {
      version: 1,
      credentials: isRecord(parsed.credentials) ? (parsed.credentials as MetadataFile['credentials']) : {},
      clients: isRecord(parsed.clients) ? (parsed.clients as MetadataFile['clients']) : {},
    }
  } catch {
    return empty()
  }
}

async function writeMetadataFile(env: CliEnvironment, file: MetadataFile): Promise<void> {
  await mkdir(env.configDir, { recursive: true, mode: 0o700 })
  await chmod(env.configDir, 0o700)
  const target = metadataPath(env)
  const temporary = `${target}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`
  try {
    await writeFile(temporary, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600, flag: 'wx' })
    await rename(temporary, target)
  } catch (error) {
    await rm(temporary, { force: true })
    throw error
  }
}

/** Reads, changes and writes the file back (the change gets a copy it may mutate). */
async function updateMetadataFile(env: CliEnvironment, change: (file: MetadataFile) => void): Promise<void> {
  const current = await readMetadataFile(env)
  const next: MetadataFile = { version: 1, credentials: { ...current.credentials }, clients: { ...current.clients } }
  change(next)
  await writeMetadataFile(env, next)
}

export async function readMetadata(env: CliEnvironment, baseUrl: string): Promise<CredentialMetadata | null> {
  return (await readMetadataFile(env)).credentials[baseUrl] ?? null
}

export async function saveMetadata(env: CliEnvironment, baseUrl: string, metadata: CredentialMetadata): Promise<void> {
  await updateMetadataFile(env, (file) => {
    file.credentials[baseUrl] = metadata
  })
}

/** Forgets the base URL's credential metadata; false when there was none. */
export async function deleteMetadata(env: CliEnvironment, baseUrl: string): Promise<boolean> {
  const current = await readMetadataFile(env)
  if (!(baseUrl in current.credentials)) return false
  await updateMetadataFile(env, (file) => {
    delete file.credentials[baseUrl]
  })
  return true
}

/** The OAuth client id registered at this web URL by an earlier login, if any. */
export async function cachedClientId(env: CliEnvironment, webUrl: string): Promise<string | null> {
  return (await readMetadataFile(env)).clients[webUrl]?.clientId ?? null
}

export async function cacheClientId(env: CliEnvironment, webUrl: string, clientId: string | null): Promise<void> {
  await updateMetadataFile(env, (file) => {
    if (clientId === null) delete file.clients[webUrl]
    else file.clients[webUrl] = { clientId, registeredAt: new Date().toISOString() }
  })
}
