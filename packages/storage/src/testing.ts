import { randomBytes } from 'node:crypto'
import { readFile, writeFile } from 'node:fs/promises'
import { Kysely, PostgresDialect, sql } from 'kysely'
import pg from 'pg'
import { type DatabaseHandle, openDatabase } from './database.ts'
import { migrateToLatest } from './migrations/index.ts'

/**
 * `@quire/storage/testing`: fresh, migrated databases for tests, on both engines. A run
 * prepares once (a PGlite snapshot file, a PostgreSQL template database); each test file then
 * gets its own copy in well under a second.
 */
export type TestEngine = 'pglite' | 'postgres'

export interface TestRun {
  readonly runId: string
  readonly pgAdminUrl: string
  readonly pgliteSnapshot: string
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url)
  u.pathname = `/${name}`
  return u.toString()
}

function admin(url: string): Kysely<unknown> {
  return new Kysely<unknown>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1 }) }) })
}

const templateOf = (run: TestRun) => `quire_tpl_${run.runId}`

/** Once per run: a migrated PGlite snapshot file and, if asked, a migrated PostgreSQL template. */
export async function prepareTestRun(options: {
  runId?: string
  pgAdminUrl: string
  snapshotPath: string
  engines: readonly TestEngine[]
}): Promise<TestRun> {
  const run: TestRun = {
    runId: options.runId ?? randomBytes(4).toString('hex'),
    pgAdminUrl: options.pgAdminUrl,
    pgliteSnapshot: options.snapshotPath,
  }
  if (options.engines.includes('pglite')) {
    const handle = await openDatabase({ kind: 'pglite' })
    await migrateToLatest(handle.db)
    const dump = await handle.pglite?.dumpDataDir('none')
    if (!dump) throw new Error('PGlite did not produce a snapshot')
    await writeFile(options.snapshotPath, Buffer.from(await dump.arrayBuffer()))
    await handle.close()
  }
  if (options.engines.includes('postgres')) {
    const db = admin(options.pgAdminUrl)
    try {
      await sql`SELECT 1`.execute(db)
    } catch (error) {
      await db.destroy()
      throw new Error(
        `PostgreSQL is not reachable at ${options.pgAdminUrl} (${(error as Error).message}). Start it (e.g. \`pg_ctlcluster 15 main start\`) or set QUIRE_TEST_PG_URL.`,
      )
    }
    await sql.raw(`CREATE DATABASE ${templateOf(run)}`).execute(db)
    await db.destroy()
    const handle = await openDatabase({ kind: 'postgres', url: withDatabase(options.pgAdminUrl, templateOf(run)), poolSize: 1 })
    await migrateToLatest(handle.db)
    await handle.close()
  }
  return run
}

/** After the run: drops every database it created. */
export async function finishTestRun(run: TestRun): Promise<void> {
  const db = admin(run.pgAdminUrl)
  try {
    const { rows } = await sql<{ datname: string }>`SELECT datname FROM pg_database WHERE datname LIKE ${`quire_%_${run.runId}%`}`.execute(
      db,
    )
    for (const { datname } of rows) await sql.raw(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`).execute(db)
  } catch {
    // PostgreSQL was never used in this run.
  } finally {
    await db.destroy()
  }
}

export interface TestDatabase extends DatabaseHandle {
  /** For PostgreSQL: the URL of this test's own database (to start other processes on it). */
  readonly url: string | null
}

/**
 * A fresh migrated database of the given engine, private to the caller; with `empty` (PostgreSQL
 * only), a database with no schema at all, for tests of the migrations themselves.
 */
export async function freshTestDatabase(
  run: TestRun,
  engine: TestEngine,
  options: { poolSize?: number; empty?: boolean } = {},
): Promise<TestDatabase> {
  if (engine === 'pglite') {
    if (options.empty) throw new Error('an empty database is PostgreSQL only: a fresh PGlite is empty already')
    const snapshot = new Blob([await readFile(run.pgliteSnapshot)])
    const handle = await openDatabase({ kind: 'pglite', snapshot })
    return { ...handle, url: null }
  }
  const name = `quire_t_${run.runId}_${randomBytes(4).toString('hex')}`
  const db = admin(run.pgAdminUrl)
  await sql.raw(`CREATE DATABASE ${name}${options.empty ? '' : ` TEMPLATE ${templateOf(run)}`}`).execute(db)
  await db.destroy()
  const url = withDatabase(run.pgAdminUrl, name)
  const handle = await openDatabase({ kind: 'postgres', url, poolSize: options.poolSize ?? 10 })
  return {
    ...handle,
    url,
    close: async () => {
      await handle.close()
      const dropper = admin(run.pgAdminUrl)
      // A closed pool's connections say goodbye after close() resolves; FORCE would cut them off
      // mid-goodbye, and the dying client would raise an error nobody listens to any more. Give
      // them (and those of other pools on this database, closed just before) a moment.
      for (let waited = 0; waited < 2_000; waited += 10) {
        const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = ${name}`.execute(dropper)
        if ((rows[0]?.n ?? 0) === 0) break
        await new Promise((done) => setTimeout(done, 10))
      }
      await sql.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).execute(dropper)
      await dropper.destroy()
    },
  }
}
