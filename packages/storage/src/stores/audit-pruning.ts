import type { AuditPruner, Retention } from '@quire/core'
import { type Kysely, sql } from 'kysely'
import type { Database } from '../schema.ts'
import { latestWindowStart, retained } from './retention.ts'

/**
 * The advisory-lock key that only one pruner holds at a time, on every process sharing the
 * database: the ASCII bytes of "QUIREAUD" read as a big-endian 64-bit integer (0x5155495245415544).
 * Fixed, so that every version of Quire on one database agrees on it; nothing else uses it.
 */
export const AUDIT_PRUNING_LOCK_KEY = '5860671107790624068'

/** Events per deleting transaction: short transactions, short row locks, bounded WAL per commit. */
const BATCH = 5_000

type Executor = Kysely<Database>

/**
 * Deletes one batch of events past their plan's retention, oldest first, in a transaction that
 * declares itself the pruner: the only way past the immutability trigger of migration 0002. The
 * `at` bounds let `audit_by_time` skip everything younger than the shortest retention, and
 * everything older than where the previous batch ended (what it passed over is kept by a longer
 * plan), so a run reads each kept event once, not once per batch.
 */
async function deleteBatch(db: Executor, retention: Retention, from: Date | null): Promise<{ deleted: number; reached: Date | null }> {
  return db.transaction().execute(async (trx) => {
    await sql`SELECT set_config('quire.audit_pruning', 'on', true)`.execute(trx)
    const { rows } = await sql<{ n: number; reached: Date | string | null }>`WITH doomed AS (
        SELECT e.id FROM audit_events e
        WHERE e.at < ${latestWindowStart(retention)}::timestamptz AND e.at >= ${from ?? '-infinity'}::timestamptz
          AND NOT ${retained(retention, 'e')}
        ORDER BY e.at LIMIT ${BATCH}::int
      ), deleted AS (DELETE FROM audit_events WHERE id IN (SELECT id FROM doomed) RETURNING at)
      SELECT count(*)::int AS n, max(at) AS reached FROM deleted`.execute(trx)
    const reached = rows[0]?.reached ?? null
    return { deleted: rows[0]?.n ?? 0, reached: reached === null ? null : new Date(reached) }
  })
}

/**
 * Batches until one comes back short: events only age into pruning, so whatever becomes due
 * meanwhile (the clock moved, a plan was lowered) is the next run's.
 */
async function deleteAll(db: Executor, retention: Retention): Promise<number> {
  let pruned = 0
  let from: Date | null = null
  for (;;) {
    const batch = await deleteBatch(db, retention, from)
    pruned += batch.deleted
    if (batch.deleted < BATCH) return pruned
    from = batch.reached
  }
}

/**
 * PostgreSQL: the session-level advisory lock is held on one dedicated connection for the whole
 * run, and the batches run on that connection too (a lock is its session's; releasing it on
 * another connection would not release it). A process that cannot take it skips.
 */
async function pruneExclusively(db: Executor, retention: Retention): Promise<{ pruned: number; skipped: boolean }> {
  return db.connection().execute(async (conn) => {
    const { rows } = await sql<{ locked: boolean }>`SELECT pg_try_advisory_lock(${AUDIT_PRUNING_LOCK_KEY}::bigint) AS locked`.execute(conn)
    if (rows[0]?.locked !== true) return { pruned: 0, skipped: true }
    try {
      return { pruned: await deleteAll(conn, retention), skipped: false }
    } finally {
      await sql`SELECT pg_advisory_unlock(${AUDIT_PRUNING_LOCK_KEY}::bigint)`.execute(conn)
    }
  })
}

/**
 * Only one pruner at a time. Within a process a flag decides; across processes the advisory lock.
 *
 * PGlite has advisory locks, but one session for everything, and a session may take its own lock
 * again, so there the lock would exclude nothing; the data directory belongs to one process
 * anyway (data-dir-lock.ts), so the flag is the whole exclusion. Its batches go through the shared
 * connection one transaction at a time, so requests get their turn between batches instead of
 * waiting for the whole run.
 */
export function auditPruner(db: Kysely<Database>, engine: 'postgres' | 'pglite'): AuditPruner {
  let running = false
  return {
    async prune(retention) {
      if (running) return { pruned: 0, skipped: true }
      running = true
      try {
        if (engine === 'pglite') return { pruned: await deleteAll(db, retention), skipped: false }
        return await pruneExclusively(db, retention)
      } finally {
        running = false
      }
    },
  }
}
