import type { CredentialRecord, CredentialStore, PresentedCredential } from '@quire/core'
import { type Kysely, sql } from 'kysely'
import type { Row } from '../rows.ts'
import type { Database } from '../schema.ts'
import { credentialFromColumns } from './credential-projection.ts'
import { credentialColumns, credentialJoins } from './fragments.ts'

const MINUTE_MS = 60_000

/**
 * `last_used_at`, to the minute, off the request's path. `touch` runs on every API-key request, so
 * a process remembers when it last wrote each credential and sends nothing more within a minute;
 * the UPDATE's own condition keeps several processes (or a forgotten entry) from rewriting a row
 * that was touched less than a minute ago. The memory is bounded: beyond `entries`, the credential
 * written longest ago is forgotten (at worst it costs one UPDATE that changes nothing).
 */
function usageRecorder(db: Kysely<Database>, entries: number) {
  const lastWrite = new Map<string, number>()
  return (credentialId: string, at: Date) => {
    const now = at.getTime()
    const last = lastWrite.get(credentialId)
    if (last !== undefined && now - last < MINUTE_MS) return
    // Re-inserting moves the entry to the end: the Map's order is the order of writes.
    lastWrite.delete(credentialId)
    lastWrite.set(credentialId, now)
    if (lastWrite.size > entries) {
      const oldest = lastWrite.keys().next().value
      if (oldest !== undefined) lastWrite.delete(oldest)
    }
    sql`UPDATE credentials SET last_used_at = ${at}::timestamptz
      WHERE id = ${credentialId}::text AND (last_used_at IS NULL OR last_used_at < ${at}::timestamptz - interval '1 minute')`
      .execute(db)
      // A usage stamp is a convenience for the key's owner, not part of the request: a failure
      // (a busy pool, a closing database) must neither fail nor delay the request that used the
      // key, and the next use a minute later writes it again.
      .catch(() => {})
  }
}

export function credentialStore(db: Kysely<Database>, options: { touchEntries: number }): CredentialStore {
  return {
    async find(credential: PresentedCredential): Promise<CredentialRecord | null> {
      const { rows } = await sql<Row>`SELECT ${credentialColumns} FROM (SELECT 1) AS one ${credentialJoins(credential.secretHash)}`.execute(
        db,
      )
      return rows[0] ? credentialFromColumns(rows[0]) : null
    },
    touch: usageRecorder(db, options.touchEntries),
  }
}
