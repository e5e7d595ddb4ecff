import { readMetadata } from '../credentials/metadata.ts'
import { forgetCredential, readSecret, revocableGrant, revokeGrant, type StoredSecret } from '../credentials/store.ts'
import type { Handler } from '../run/context.ts'

/**
 * `quire logout`: revokes the stored OAuth grant at the authorization server (RFC 7009: the
 * refresh token, which takes its access tokens with it), then forgets the credential here: the
 * secret in the OS store and its metadata. Idempotent. A server that cannot be reached, or a store
 * that cannot be opened, does not stop the local clean-up; both are reported on standard error.
 */
export const logout: Handler = async (context) => {
  const { globals, env, io } = context
  const baseUrl = globals.baseUrl
  const metadata = await readMetadata(env, baseUrl)
  let secret: StoredSecret | null = null
  let storeError: string | null = null
  try {
    secret = await readSecret(baseUrl)
  } catch (error) {
    storeError = error instanceof Error ? error.message : String(error)
  }
  const grant = revocableGrant(metadata, secret)

  if (globals.dryRun) {
    return {
      kind: 'value',
      value: { dryRun: true, baseUrl, wouldRevoke: grant?.webUrl ?? null, wouldForget: secret !== null || metadata !== null },
    }
  }

  const revoked = grant !== null && (await revokeGrant(grant, (message) => io.stderr(`warning: ${message}\n`)))
  const forgotten = await forgetCredential(env, baseUrl)
  storeError ??= forgotten.storeError ?? null
  if (storeError !== null)
    io.stderr(`warning: the OS credential store could not be reached (${storeError}); only the metadata was removed.\n`)
  if (env.token !== undefined) context.progress('AGENT_SERVICE_TOKEN is still set: commands keep using it.')
  return {
    kind: 'value',
    value: {
      loggedOut: true,
      baseUrl,
      revoked,
      removed: { secret: forgotten.secretDeleted, metadata: forgotten.metadataDeleted },
    },
  }
}
