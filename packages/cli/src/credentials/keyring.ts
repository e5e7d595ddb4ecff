import type { AsyncEntry } from '@napi-rs/keyring'

/**
 * The OS credential store, through @napi-rs/keyring: the Keychain on macOS, the Credential
 * Manager on Windows, and on Linux the Secret Service over D-Bus (gnome-keyring, KWallet,
 * KeePassXC), pinned: never the kernel keyutils keyring (in memory only, gone at reboot) and never
 * a plaintext file. Every call is bounded by `storeTimeoutMs` (as gh does), so a store that hangs
 * costs three seconds, not a stuck terminal.
 */
export const storeService = 'quire'
export const storeTimeoutMs = 3_000
/** The entry a write probe uses; never holds a real credential. */
const probeAccount = 'quire-cli-probe'

/** Why the store could not be used: its own words, one line. */
export class CredentialStoreError extends Error {
  override readonly name = 'CredentialStoreError'
}

type Keyring = typeof import('@napi-rs/keyring')
let keyring: Promise<Keyring> | null = null

/** The native module is loaded only by commands that touch the store. */
function loadKeyring(): Promise<Keyring> {
  keyring ??= import('@napi-rs/keyring')
  return keyring
}

function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  return message.replace(/\s+/g, ' ').trim()
}

/**
 * One call to the store, settled by `deadline` (epoch ms): the AbortSignal stops the native
 * call's promise, and a timer of our own settles the race in case the binding ever ignored it.
 */
async function bounded<T>(what: string, call: (signal: AbortSignal) => Promise<T>, deadline = Date.now() + storeTimeoutMs): Promise<T> {
  const left = Math.max(0, deadline - Date.now())
  const timedOut = () => new CredentialStoreError(`${what} timed out after ${storeTimeoutMs / 1000} s.`)
  const signal = AbortSignal.timeout(left)
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, fail) => {
    timer = setTimeout(() => fail(timedOut()), left + 100)
    timer.unref()
  })
  try {
    return await Promise.race([call(signal), late])
  } catch (error) {
    if (error instanceof CredentialStoreError) throw error
    if (signal.aborted) throw timedOut()
    throw new CredentialStoreError(`${what} failed: ${oneLine(error)}`)
  } finally {
    clearTimeout(timer)
  }
}

async function entryFor(account: string): Promise<AsyncEntry> {
  const { AsyncEntry } = await loadKeyring()
  try {
    // On Linux the constructor already connects to the session bus: without one it throws here.
    return new AsyncEntry(storeService, account, { linux: { store: 'secret-service' } })
  } catch (error) {
    throw new CredentialStoreError(`Opening the credential store failed: ${oneLine(error)}`)
  }
}

/** The secret stored under this account, or null. Throws `CredentialStoreError`. */
export async function readEntry(account: string): Promise<string | null> {
  const entry = await entryFor(account)
  return bounded('Reading the credential store', (signal) => entry.getPassword(signal))
}

/** Stores the secret under this account (replacing any). Throws `CredentialStoreError`. */
export async function writeEntry(account: string, secret: string): Promise<void> {
  const entry = await entryFor(account)
  await bounded('Writing to the credential store', (signal) => entry.setPassword(secret, signal))
}

/** Deletes the account's secret; false when there was none. Throws `CredentialStoreError`. */
export async function deleteEntry(account: string): Promise<boolean> {
  const entry = await entryFor(account)
  return bounded('Deleting from the credential store', (signal) => entry.deleteCredential(signal))
}

export type StoreCheck = { readonly available: true } | { readonly available: false; readonly reason: string }

/**
 * Can a credential be kept? A real write, read back and deleted (a Secret Service with no unlocked
 * collection reads fine and refuses writes), within one time limit for the whole probe.
 */
export async function probeStore(): Promise<StoreCheck> {
  const deadline = Date.now() + storeTimeoutMs
  try {
    const entry = await entryFor(probeAccount)
    const value = `probe-${process.pid}-${deadline}`
    await bounded('Writing to the credential store', (signal) => entry.setPassword(value, signal), deadline)
    const read = await bounded('Reading the credential store', (signal) => entry.getPassword(signal), deadline)
    await bounded('Deleting from the credential store', (signal) => entry.deleteCredential(signal), deadline)
    if (read !== value) return { available: false, reason: 'The credential store did not return what was written to it.' }
    return { available: true }
  } catch (error) {
    return { available: false, reason: oneLine(error) }
  }
}
