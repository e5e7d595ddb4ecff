import type { AuditEventDraft, CredentialRecord, CredentialStore, PresentedCredential } from '@quire/core'
import { type Kysely, sql } from 'kysely'
import { insertAudit } from '../audit.ts'
import { coalesce } from '../coalesce.ts'
import type { RawQuery } from '../database.ts'
import { isDataException } from '../pg-errors.ts'
import type { Database } from '../schema.ts'
import { type CredentialField, credentialFields, credentialFrom } from './credential-projection.ts'

const MINUTE_MS = 60_000
/** A refused credential is recorded on its owner's trail at most once in this long, per process. */
const REJECTION_EVERY_MS = 10 * MINUTE_MS

/**
 * A bounded memory of when something was last done per credential: `due` says whether it is time
 * again (and remembers now), forgetting the entry written longest ago beyond `entries`.
 */
function throttle(entries: number, everyMs: number) {
  const last = new Map<string, number>()
  return (credentialId: string, at: Date): boolean => {
    const now = at.getTime()
    const before = last.get(credentialId)
    if (before !== undefined && now - before < everyMs) return false
    // Re-inserting moves the entry to the end: the Map's order is the order of writes.
    last.delete(credentialId)
    last.set(credentialId, now)
    if (last.size > entries) {
      const oldest = last.keys().next().value
      if (oldest !== undefined) last.delete(oldest)
    }
    return true
  }
}

/**
 * `last_used_at`, to the minute, off the request's path. `touch` runs on every API-key request, so
 * a process remembers when it last wrote each credential and sends nothing more within a minute;
 * the UPDATE's own condition keeps several processes (or a forgotten entry) from rewriting a row
 * that was touched less than a minute ago. The memory is bounded: beyond `entries`, the credential
 * written longest ago is forgotten (at worst it costs one UPDATE that changes nothing).
 */
function usageRecorder(db: Kysely<Database>, entries: number) {
  const due = throttle(entries, MINUTE_MS)
  return (credentialId: string, at: Date) => {
    if (!due(credentialId, at)) return
    sql`UPDATE credentials SET last_used_at = ${at}::timestamptz
      WHERE id = ${credentialId}::text AND (last_used_at IS NULL OR last_used_at < ${at}::timestamptz - interval '1 minute')`
      .execute(db)
      // A usage stamp is a convenience for the key's owner, not part of the request: a failure
      // (a busy pool, a closing database) must neither fail nor delay the request that used the
      // key, and the next use a minute later writes it again.
      .catch(() => {})
  }
}

/**
 * `credential.rejected` on the owner's trail, off the request's path and at most once per
 * credential every ten minutes per process: someone replaying a revoked key learns nothing from
 * it and cannot flood the trail, and its owner still sees that it is being tried.
 */
function rejectionRecorder(db: Kysely<Database>, entries: number) {
  const due = throttle(entries, REJECTION_EVERY_MS)
  return (event: AuditEventDraft) => {
    const credentialId = event.via.credentialId
    if (credentialId === null || !due(credentialId, event.at)) return
    insertAudit(db, event).catch(() => {})
  }
}

/**
 * Credentials presented in one event-loop turn, looked up by one prepared statement (see
 * coalesce.ts): every edge that must know the caller before it dispatches (the MCP endpoint's
 * 401 and 403 challenges, the web app's pages) costs the database one statement per turn, not one
 * per request. One JSON array per credential, as the version reads do.
 */
export const credentialLookupStatement = `SELECT q.i::int AS i, json_build_array(${credentialFields.join(', ')}) AS r
  FROM unnest($1::text[]) WITH ORDINALITY AS q(secret_hash, i)
  JOIN credentials c ON c.secret_hash = q.secret_hash
  LEFT JOIN users u ON u.id = c.user_id`

const fieldAt = new Map<CredentialField, number>(credentialFields.map((field, i) => [field, i]))

export function credentialStore(db: Kysely<Database>, raw: RawQuery, options: { touchEntries: number }): CredentialStore {
  const lookup = coalesce<string, unknown[]>(
    async (hashes) => {
      const rows = await raw<{ i: number; r: unknown[] }>(credentialLookupStatement, [hashes])
      const results: (unknown[] | undefined)[] = new Array(hashes.length)
      for (const row of rows) results[row.i - 1] = row.r
      return results
    },
    { maxBatch: 100, isolate: isDataException },
  )
  return {
    async find(credential: PresentedCredential): Promise<CredentialRecord | null> {
      const row = await lookup(credential.secretHash)
      return row === undefined ? null : credentialFrom((field) => row[fieldAt.get(field) ?? -1])
    },
    touch: usageRecorder(db, options.touchEntries),
    rejected: rejectionRecorder(db, options.touchEntries),
  }
}
