import type { IdempotencyRecord, IdempotencyStore } from '@quire/core'
import { type Kysely, sql } from 'kysely'
import type { Database } from '../schema.ts'

/** Records deleted per statement when expiring: short statements, bounded WAL per commit. */
const EXPIRE_BATCH = 5_000

interface Row {
  readonly request_hash: string
  readonly status: number
  readonly response: unknown
}

/**
 * Idempotency records: written by the statement that makes the change (writes.ts), read here.
 * A record lives for the idempotency window only: a lookup never sees an older one (and deletes
 * it, so that the key can be used afresh), and `expire` clears out the rest in the background.
 */
export function idempotencyStore(db: Kysely<Database>): IdempotencyStore {
  return {
    async find(scope, key, notBefore): Promise<IdempotencyRecord | null> {
      // One statement: the expired record (if any) goes, the live one (if any) comes back. Both
      // parts see the same snapshot, so the SELECT's own condition leaves the expired row out.
      const { rows } = await sql<Row>`WITH expired AS (
          DELETE FROM idempotency_keys WHERE scope = ${scope}::text AND key = ${key}::text AND created_at < ${notBefore}::timestamptz
        )
        SELECT request_hash, status, response FROM idempotency_keys
        WHERE scope = ${scope}::text AND key = ${key}::text AND created_at >= ${notBefore}::timestamptz`.execute(db)
      const row = rows[0]
      return row ? { requestHash: row.request_hash, status: row.status, response: row.response } : null
    },
    async expire(before): Promise<number> {
      let expired = 0
      for (;;) {
        const { rows } = await sql<{ n: number }>`WITH doomed AS (
            SELECT scope, key FROM idempotency_keys WHERE created_at < ${before}::timestamptz LIMIT ${EXPIRE_BATCH}::int
          ), deleted AS (
            DELETE FROM idempotency_keys i USING doomed d WHERE i.scope = d.scope AND i.key = d.key RETURNING 1
          ) SELECT count(*)::int AS n FROM deleted`.execute(db)
        const n = rows[0]?.n ?? 0
        expired += n
        if (n < EXPIRE_BATCH) return expired
      }
    },
  }
}
