import { mkdirSync } from 'node:fs'
import { PGlite } from '@electric-sql/pglite'
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm'
import { CompiledQuery, Kysely, PostgresDialect, sql } from 'kysely'
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
      /**
       * Where `LISTEN` goes (default `url`): a session of its own, straight to PostgreSQL. A pooler
       * in transaction mode (PgBouncer) cannot carry it.
       */
      readonly listenUrl?: string
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
  /**
   * Hears `NOTIFY channel` on a connection of its own until the returned stop is called. A lost
   * connection is told to `onLost` and not reopened here: the caller decides (the change feed
   * listens again and polls meanwhile).
   */
  listen(channel: string, onNotify: () => void, onLost: (error: Error) => void): Promise<() => Promise<void>>
  close(): Promise<void>
}

/** `LISTEN` on a client of its own (never one of the pool's: the session must outlive a query). */
async function listenOn(url: string, channel: string, onNotify: () => void, onLost: (error: Error) => void): Promise<() => Promise<void>> {
  const client = new pg.Client({ connectionString: url })
  let stopped = false
  const lost = (error: Error) => {
    if (stopped) return
    stopped = true
    client.end().catch(() => {})
    onLost(error)
  }
  client.on('error', lost)
  client.on('end', () => lost(new Error('The LISTEN connection ended.')))
  client.on('notification', (message) => {
    if (message.channel === channel) onNotify()
  })
  await client.connect()
  await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`)
  return async () => {
    if (stopped) return
    stopped = true
    await client.end().catch(() => {})
  }
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
    const listenUrl = config.listenUrl ?? config.url
    return {
      db,
      query,
      kind: 'postgres',
      pglite: null,
      listen: (channel, onNotify, onLost) => listenOn(listenUrl, channel, onNotify, onLost),
      close: () => db.destroy(),
    }
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
    // PGlite's one connection hears its own notifications, delivered after each commit. `LISTEN`
    // goes through the dialect like any statement, so it never lands inside another transaction.
    const listen = async (channel: string, onNotify: () => void) => {
      const off = pglite.onNotification((heard) => {
        if (heard === channel) onNotify()
      })
      await sql.raw(`LISTEN ${pg.escapeIdentifier(channel)}`).execute(db)
      return async () => {
        off()
        if (!pglite.closed) await sql.raw(`UNLISTEN ${pg.escapeIdentifier(channel)}`).execute(db)
      }
    }
    return { db, query: queryThrough(db), kind: 'pglite', pglite, listen, close }
  } catch (error) {
    release()
    throw error
  }
}
