import { isQuireApiError, QuireNetworkError } from '@quire/client'
import { inspectStored } from '../credentials/store.ts'
import type { Handler } from '../run/context.ts'

/** What the OS credential store is on this platform. */
function storeBackend(): string {
  switch (process.platform) {
    case 'darwin':
      return 'macos-keychain'
    case 'win32':
      return 'windows-credential-manager'
    default:
      return 'secret-service'
  }
}

/**
 * `quire auth status`: which credential a command would use for the base URL and where it comes
 * from (the documented precedence: flag or stdin, then AGENT_SERVICE_TOKEN, then the OS store),
 * who it acts for (asked of the API), what is stored and whether the store answers. Never the
 * secret itself.
 */
export const authStatus: Handler = async (context) => {
  const { globals, env } = context
  const resolved = await context.token()
  const stored = await inspectStored(env, globals.baseUrl)

  let valid: boolean | null = null
  let user: { id: string; username: string; email: string } | null = null
  let problem: string | null = null
  if (resolved.token !== null) {
    try {
      const profile = await (await context.client()).call('getProfile')
      user = { id: profile.id, username: profile.username, email: profile.email }
      valid = true
    } catch (error) {
      if (isQuireApiError(error) && error.status === 401) {
        valid = false
        problem = `${error.code}: ${error.detail || error.title}`
      } else if (error instanceof QuireNetworkError) {
        problem = `not checked: ${error.message}`
      } else if (isQuireApiError(error)) {
        problem = `not checked: ${error.status} ${error.code}`
      } else {
        throw error
      }
    }
  }

  const meta = stored.metadata
  const fromStore = resolved.source === 'keyring'
  return {
    kind: 'value',
    value: {
      baseUrl: globals.baseUrl,
      source: resolved.source,
      authenticated: valid === true,
      /** true: the API accepted it; false: it answered 401; null: no credential, or not checked. */
      valid,
      user,
      kind: fromStore ? (meta?.kind ?? 'token') : resolved.source === 'none' ? null : 'token',
      expiresAt: fromStore ? (meta?.expiresAt ?? null) : null,
      webUrl: fromStore ? (meta?.webUrl ?? null) : null,
      ...(problem !== null ? { problem } : {}),
      store: {
        backend: storeBackend(),
        reachable: stored.storeReachable,
        ...(stored.storeError ? { error: stored.storeError } : {}),
        /** A credential is stored for the base URL (null: the store did not answer). */
        stored: stored.hasSecret,
        storedKind: meta?.kind ?? null,
        storedUser: meta?.user ?? null,
        storedExpiresAt: meta?.expiresAt ?? null,
      },
      ...(resolved.source === 'none'
        ? { hint: 'No credential: run quire login, or give one with AGENT_SERVICE_TOKEN or --token-stdin.' }
        : valid === false
          ? { hint: 'The credential was refused: run quire login again.' }
          : {}),
    },
  }
}
