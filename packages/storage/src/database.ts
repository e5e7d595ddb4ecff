import { mkdirSync } from 'node:fs'
import { PGlite } from '@electric-sql/pglite'
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm'
import { CompiledQuery, Kysely, PostgresDialect } from 'kysely'
import { PGliteDialect } from 'kysely-pglite-dialect'
import pg from 'pg'
import { lockDataDir } from './data-dir-lock.ts'
import { preparingPool, statementName } from './prepared-pool.ts'
import type { Database } from './schema.ts'

/** Where the data lives: a PostgreSQL URL, or an embedded PGlite directory (or memory). */
export type DatabaseConfig =
  | {
      readonly kind: 'postgres'
      readonly url: string
      readonly poolSize?: number
      /** Prepare statements per connection (default true). Turn off behind a transaction-pooling proxy. */
      readonly preparedStatements?: boolean
      /** Told when the server ends an idle pooled connection (the pool replaces it). */
      readonly onIdleConnectionError?: (error: Error) => void
    }
  | { readonly kind: 'pglite'; readonly dataDir?: string; readonly snapshot?: Blob | File }

/** Runs one statement and returns its rows: the hot path's way around the query builder. */
export type RawQuery = <R>(text: string, parameters: readonly unknown[]) => Promise<R[]>

export interface DatabaseHandle {
  readonly db: Kysely<Database>
  /** One statement, straight to the driver (prepared on PostgreSQL). */
  readonly query: RawQuery
  readonly kind: DatabaseConfig['kind']
  /** The embedded instance, when PGlite (for snapshots). */
  readonly pglite: PGlite | null
  close(): Promise<void>
}

/** Raw statements through a Kysely instance (and whatever it logs or serialises). */
export function queryThrough(db: Kysely<Database>): RawQuery {
  return async <R>(text: string, parameters: readonly unknown[]) =>
    (await db.executeQuery<R>(CompiledQuery.raw(text, [...parameters]))).rows as R[]
}

/** Opens the database. Nothing is migrated here; call `migrateToLatest`. */
export async function openDatabase(config: DatabaseConfig): Promise<DatabaseHandle> {
  if (config.kind === 'postgres') {
    const prepared = config.preparedStatements !== false
    const pool = new pg.Pool({ connectionString: config.url, max: config.poolSize ?? 10 })
    // An idle connection the server ends (restart, failover, pg_terminate_backend) errors on the
    // pool; unheard, that error would end the process. The pool has already dropped the client
    // and the next checkout opens a fresh one, so there is nothing to do but to tell.
    pool.on('error', (error) => config.onIdleConnectionError?.(error))
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: prepared ? preparingPool(pool) : pool }) })
    const query: RawQuery = async <R>(text: string, parameters: readonly unknown[]) => {
      const values = parameters as unknown[]
      const result = await pool.query(prepared ? { name: statementName(text), text, values } : { text, values })
      return result.rows as R[]
    }
    return { db, query, kind: 'postgres', pglite: null, close: () => db.destroy() }
  }
  let release = () => {}
  if (config.dataDir) {
    mkdirSync(config.dataDir, { recursive: true })
    release = lockDataDir(config.dataDir)
  }
  try {
    const pglite = await PGlite.create({
      // Trigram indexes serve substring search (migration 0010-search).
      extensions: { pg_trgm },
      ...(config.dataDir ? { dataDir: config.dataDir } : {}),
      ...(config.snapshot ? { loadDataDir: config.snapshot } : {}),
    })
    const db = new Kysely<Database>({ dialect: new PGliteDialect(pglite) })
    // PGlite has one connection, serialised by the dialect (transactions included): raw
    // statements go through it too, so they never land inside someone else's transaction.
    const close = async () => {
      await db.destroy()
      release()
    }
    return { db, query: queryThrough(db), kind: 'pglite', pglite, close }
  } catch (error) {
    release()
    throw error
  }
}
