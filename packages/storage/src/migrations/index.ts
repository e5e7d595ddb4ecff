import { type Kysely, sql } from 'kysely'
import { type Migration, type MigrationProvider, type MigrationResultSet, Migrator } from 'kysely/migration'
import type { Database } from '../schema.ts'
import * as foundation from './0001-foundation.ts'
import * as sharingAndAudit from './0002-sharing-and-audit.ts'
import * as rateLimits from './0003-rate-limits.ts'
import * as accounts from './0004-accounts.ts'
import * as signInAndOAuth from './0005-sign-in-and-oauth.ts'
import * as idempotencyWindow from './0006-idempotency-window.ts'
import * as agentAuth from './0007-agent-auth.ts'
import * as agentNames from './0008-agent-names.ts'
import * as agentScopeRequests from './0009-agent-scope-requests.ts'
import * as search from './0010-search.ts'
import * as changeEvents from './0011-change-events.ts'
import * as webhooks from './0012-webhooks.ts'

/** Every migration, in order. One set runs on PostgreSQL and on PGlite alike. */
const migrations: Record<string, Migration> = {
  '0001-foundation': foundation,
  '0002-sharing-and-audit': sharingAndAudit,
  '0003-rate-limits': rateLimits,
  '0004-accounts': accounts,
  '0005-sign-in-and-oauth': signInAndOAuth,
  '0006-idempotency-window': idempotencyWindow,
  '0007-agent-auth': agentAuth,
  '0008-agent-names': agentNames,
  '0009-agent-scope-requests': agentScopeRequests,
  '0010-search': search,
  '0011-change-events': changeEvents,
  '0012-webhooks': webhooks,
}

const provider: MigrationProvider = { getMigrations: async () => migrations }

/**
 * The key of the transaction-scoped advisory lock that every migration run holds: processes
 * starting at once migrate one at a time, and the next sees the first's committed result.
 */
const MIGRATION_LOCK_KEY = 7_291_404_113_520_441_001n

/**
 * Brings the schema to the latest migration; throws with the failing migration's error.
 *
 * The whole run is one transaction that first takes `pg_advisory_xact_lock`, and the migrator is
 * handed that transaction. Kysely's own lock is session-level (lock, migrate, unlock as separate
 * statements); behind PgBouncer in transaction mode those statements can land on different server
 * connections, so the unlock fails and the lock stays held on a pooled connection. Inside one
 * transaction every statement reaches the same connection, and our lock ends with the commit.
 */
export async function migrateToLatest(db: Kysely<Database>): Promise<string[]> {
  return migrate(db, (migrator) => migrator.migrateToLatest())
}

/** Brings the schema up to the named migration and no further, as `migrateToLatest` does (tests of a migration's data step). */
export async function migrateTo(db: Kysely<Database>, name: keyof typeof migrations & string): Promise<string[]> {
  return migrate(db, (migrator) => migrator.migrateTo(name))
}

async function migrate(db: Kysely<Database>, run: (migrator: Migrator) => Promise<MigrationResultSet>): Promise<string[]> {
  const { error, results } = await db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY.toString()}::bigint)`.execute(trx)
    // Migrations are written against no schema type: they define it.
    const outcome = await run(new Migrator({ db: trx as unknown as Kysely<unknown>, provider }))
    // A failed migration must roll the transaction back, not commit what came before it.
    if (outcome.error) throw outcome.error instanceof Error ? outcome.error : new Error(String(outcome.error))
    return outcome
  })
  if (error) throw error instanceof Error ? error : new Error(String(error))
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName)
}
