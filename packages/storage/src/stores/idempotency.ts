import type { IdempotencyRecord, IdempotencyStore } from '@quire/core'
import type { Kysely } from 'kysely'
import type { Database } from '../schema.ts'

export function idempotencyStore(db: Kysely<Database>): IdempotencyStore {
  return {
    async find(scope: string, key: string): Promise<IdempotencyRecord | null> {
      const row = await db
        .selectFrom('idempotency_keys')
        .select(['request_hash', 'status', 'response'])
        .where('scope', '=', scope)
        .where('key', '=', key)
        .executeTakeFirst()
      return row ? { requestHash: row.request_hash, status: row.status, response: row.response } : null
    },
  }
}
