import type { Kysely } from 'kysely'
import { type Migration, type MigrationProvider, Migrator } from 'kysely/migration'
import type { Database } from '../schema.ts'
import * as foundation from './0001-foundation.ts'
import * as sharingAndAudit from './0002-sharing-and-audit.ts'
import * as rateLimits from './0003-rate-limits.ts'
import * as accounts from './0004-accounts.ts'
import * as signInAndOAuth from './0005-sign-in-and-oauth.ts'
import * as idempotencyWindow from './0006-idempotency-window.ts'
import * as agentAuth from './0007-agent-auth.ts'

/** Every migration, in order. One set runs on PostgreSQL and on PGlite alike. */
const migrations: Record<string, Migration> = {
  '0001-foundation': foundation,
  '0002-sharing-and-audit': sharingAndAudit,
  '0003-rate-limits': rateLimits,
  '0004-accounts': accounts,
  '0005-sign-in-and-oauth': signInAndOAuth,
  '0006-idempotency-window': idempotencyWindow,
  '0007-agent-auth': agentAuth,
}

const provider: MigrationProvider = { getMigrations: async () => migrations }

/** Brings the schema to the latest migration; throws with the failing migration's error. */
export async function migrateToLatest(db: Kysely<Database>): Promise<string[]> {
  // Migrations are written against no schema type: they define it.
  const migrator = new Migrator({ db: db as unknown as Kysely<unknown>, provider })
  const { error, results } = await migrator.migrateToLatest()
  if (error) throw error instanceof Error ? error : new Error(String(error))
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName)
}
