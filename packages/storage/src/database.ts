import { mkdirSync } from 'node:fs'
import { PGlite } from '@electric-sql/pglite'
import { Kysely, PostgresDialect } from 'kysely'
import { PGliteDialect } from 'kysely-pglite-dialect'
import pg from 'pg'
import { preparingPool } from './prepared-pool.ts'
import type { Database } from './schema.ts'

/** Where the data lives: a PostgreSQL URL, or an embedded PGlite directory (or memory). */
export type DatabaseConfig =
  | {
      readonly kind: 'postgres'
      readonly url: string
      readonly poolSize?: number
      /** Prepare statements per connection (default true). Turn off behind a transaction-pooling proxy. */
      readonly preparedStatements?: boolean
    }
  | { readonly kind: 'pglite'; readonly dataDir?: string; readonly snapshot?: Blob | File }

export interface DatabaseHandle {
  readonly db: Kysely<Database>
  readonly kind: DatabaseConfig['kind']
  /** The embedded instance, when PGlite (for snapshots). */
  readonly pglite: PGlite | null
  close(): Promise<void>
}

// timestamptz and arrays are parsed by pg already; bigint counts arrive as strings and are
// converted where read. int4 stays a number.

/** Opens the database. Nothing is migrated here; call `migrateToLatest`. */
export async function openDatabase(config: DatabaseConfig): Promise<DatabaseHandle> {
  if (config.kind === 'postgres') {
    const pool = new pg.Pool({ connectionString: config.url, max: config.poolSize ?? 10 })
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: config.preparedStatements === false ? pool : preparingPool(pool) }) })
    return { db, kind: 'postgres', pglite: null, close: () => db.destroy() }
  }
  if (config.dataDir) mkdirSync(config.dataDir, { recursive: true })
  const pglite = await PGlite.create({
    ...(config.dataDir ? { dataDir: config.dataDir } : {}),
    ...(config.snapshot ? { loadDataDir: config.snapshot } : {}),
  })
  const db = new Kysely<Database>({ dialect: new PGliteDialect(pglite) })
  return { db, kind: 'pglite', pglite, close: () => db.destroy() }
}
