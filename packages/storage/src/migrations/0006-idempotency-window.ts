import { type Kysely, sql } from 'kysely'

/**
 * Idempotency records live for a window (24 hours, `idempotencyWindowMs` in core) and never hold
 * a secret. Records written before this migration may: the answers to creating an API key or a
 * share link carried the secret, so they are deleted here (a retry of such a request within the
 * window now runs again instead of replaying: the key or link is created a second time, never
 * shown twice). The index lets expiry find old records without reading the table.
 */
const statements = [
  `DELETE FROM idempotency_keys WHERE response ? 'secret'`,
  `CREATE INDEX idempotency_keys_by_time ON idempotency_keys (created_at)`,
]

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw('DROP INDEX idempotency_keys_by_time').execute(db)
}
