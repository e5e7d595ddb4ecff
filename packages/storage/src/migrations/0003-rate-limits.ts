import { type Kysely, sql } from 'kysely'

/**
 * Rate-limit counters shared by every API process on one database: one row per key (a credential's
 * hash or a client address) holding the hits of its current window and when that window ends.
 *
 * UNLOGGED: a counter is worth nothing after a crash (PostgreSQL empties the table then, and
 * everyone starts a fresh window), so its writes skip the WAL. Fillfactor 70 leaves room on each
 * page so that counting a hit is a HOT update that touches no index.
 */
const statements = [
  `CREATE UNLOGGED TABLE rate_limits (
    key text COLLATE "C" PRIMARY KEY,
    hits integer NOT NULL,
    resets_at timestamptz NOT NULL
  ) WITH (fillfactor = 70)`,
]

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw('DROP TABLE rate_limits').execute(db)
}
