import type { ActorRef, ChangeKind, ChangeRecord, ChangeScope, ChangeStore, ChangesAfter } from '@quire/core'
import { type Kysely, sql } from 'kysely'
import type { DatabaseHandle } from '../database.ts'
import type { Database } from '../schema.ts'

/**
 * The ordered stream of changes (migration 0011): numbering what has committed, reading a
 * scope's changes after a position, and each process's feed that wakes the followers waiting on it.
 */

/** The key of the transaction-scoped advisory lock under which changes are numbered, one numberer at a time. */
const SEQUENCE_LOCK_KEY = 7_291_404_113_520_441_033n

/** The notification the trigger sends at the commit of each change. */
export const CHANGES_CHANNEL = 'quire_changes'

/**
 * Numbers the committed changes that have no position yet, in the order they happened, after the
 * highest position given. One transaction under one lock: a numbering commits before the next
 * begins, so a follower that has seen position P has seen every position below it, and a change
 * committing later is numbered later. Changes still uncommitted are invisible here and wait.
 */
export async function sequenceChanges(db: Kysely<Database>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(${SEQUENCE_LOCK_KEY}::bigint)`.execute(trx)
    await sql`WITH base AS (SELECT coalesce(max(position), 0) AS top FROM change_events),
        todo AS (SELECT ctid AS row, row_number() OVER (ORDER BY at, id) AS n FROM change_events WHERE position IS NULL)
      UPDATE change_events c SET position = base.top + todo.n FROM base, todo WHERE c.ctid = todo.row`.execute(trx)
  })
}

interface Row {
  head: string | number
  pending: boolean
  position: string | number | null
  id: string | null
  at: Date | string | null
  kind: string | null
  artifact_id: string | null
  project_id: string | null
  workspace_id: string | null
  version_number: number | null
  actor_kind: string | null
  actor_id: string | null
  actor_label: string | null
}

function recordOf(row: Row): ChangeRecord | null {
  if (row.position === null || row.id === null || row.at === null) return null
  return {
    position: Number(row.position),
    eventId: row.id,
    at: new Date(row.at),
    kind: row.kind as ChangeKind,
    artifactId: row.artifact_id ?? '',
    projectId: row.project_id ?? '',
    workspaceId: row.workspace_id ?? '',
    versionNumber: row.version_number,
    actor: { kind: row.actor_kind as ActorRef['kind'], id: row.actor_id ?? '', label: row.actor_label ?? '' },
  }
}

function scopeFilter(scope: ChangeScope) {
  if ('artifactId' in scope) return sql`artifact_id = ${scope.artifactId}::text`
  if ('projectId' in scope) return sql`project_id = ${scope.projectId}::text`
  if ('workspaceId' in scope) return sql`workspace_id = ${scope.workspaceId}::text`
  return sql`true`
}

function inScope(scope: ChangeScope, change: ChangeRecord): boolean {
  if ('artifactId' in scope) return change.artifactId === scope.artifactId
  if ('projectId' in scope) return change.projectId === scope.projectId
  if ('workspaceId' in scope) return change.workspaceId === scope.workspaceId
  return true
}

/**
 * A scope's numbered changes after a position, with the stream's head, in one snapshot. Changes
 * committed but not yet numbered (no feed has woken since) are numbered first, so a reader never
 * depends on some process following.
 */
async function changesAfter(db: Kysely<Database>, scope: ChangeScope | null, position: number, limit: number): Promise<ChangesAfter> {
  const read = await numberedAfter(db, scope, position, limit)
  if (!read.pending) return read
  await sequenceChanges(db)
  return numberedAfter(db, scope, position, limit)
}

async function numberedAfter(
  db: Kysely<Database>,
  scope: ChangeScope | null,
  position: number,
  limit: number,
): Promise<ChangesAfter & { pending: boolean }> {
  const { rows } = await sql<Row>`WITH h AS (SELECT coalesce(max(position), 0) AS head,
        EXISTS (SELECT 1 FROM change_events WHERE position IS NULL) AS pending FROM change_events)
    SELECT h.head, h.pending, e.* FROM h LEFT JOIN LATERAL (
      SELECT * FROM change_events
      WHERE ${scope === null ? sql`true` : scopeFilter(scope)} AND position > ${position}::bigint AND position <= h.head
      ORDER BY position LIMIT ${limit}::int
    ) e ON true`.execute(db)
  return {
    head: Number(rows[0]?.head ?? 0),
    pending: rows[0]?.pending === true,
    rows: rows.map(recordOf).filter((r): r is ChangeRecord => r !== null),
  }
}

export interface ChangeFeedOptions {
  /** How often the feed looks for changes when no notification came (default 2,000 ms). */
  readonly pollMs?: number
  /** Told when the `LISTEN` connection is lost (the feed polls, and listens again a second later). */
  readonly onListenLost?: (error: Error) => void
}

/** The database a feed reads; without `listen` (a test's bare connection) it only polls. */
export type ChangeDatabase = Pick<DatabaseHandle, 'db'> & Partial<Pick<DatabaseHandle, 'listen'>>

interface Waiter {
  readonly scope: ChangeScope
  readonly position: number
  readonly done: () => void
}

/** How many of the latest changes a feed keeps, to answer a wait that starts just after they came. */
const RECENT = 1024

/**
 * The changes as one process hears of them. Started by the first wait (a process nobody follows
 * listens to nothing): it listens for the trigger's notification, polls meanwhile, and on each
 * wake numbers what has committed, reads what is new in order and wakes the waits it concerns.
 */
class ChangeFeed {
  private started = false
  private closed = false
  private head = 0
  private readonly recent: ChangeRecord[] = []
  private readonly waiters = new Set<Waiter>()
  private running: Promise<void> | null = null
  private again = false
  private stopListening: (() => Promise<void>) | null = null
  private poll: NodeJS.Timeout | null = null
  private relisten: NodeJS.Timeout | null = null
  private ready: Promise<void> | null = null

  private readonly database: ChangeDatabase
  private readonly options: ChangeFeedOptions

  constructor(database: ChangeDatabase, options: ChangeFeedOptions) {
    this.database = database
    this.options = options
  }

  private start(): Promise<void> {
    this.ready ??= (async () => {
      this.started = true
      this.head = (await changesAfter(this.database.db, null, 0, 0)).head
      await this.listen()
      this.poll = setInterval(() => this.wake(), this.options.pollMs ?? 2000)
      this.poll.unref()
    })()
    return this.ready
  }

  private async listen(): Promise<void> {
    if (this.closed || !this.database.listen) return
    try {
      this.stopListening = await this.database.listen(
        CHANGES_CHANNEL,
        () => this.wake(),
        (error) => this.lost(error),
      )
      // What committed while nobody listened.
      this.wake()
    } catch (error) {
      this.lost(error as Error)
    }
  }

  private lost(error: Error): void {
    this.stopListening = null
    if (this.closed) return
    this.options.onListenLost?.(error)
    this.relisten = setTimeout(() => void this.listen(), 1000)
    this.relisten.unref()
  }

  /** Reads what is new; a wake during a read runs one more read after it. */
  wake(): void {
    if (!this.started || this.closed) return
    if (this.running) {
      this.again = true
      return
    }
    this.running = (async () => {
      try {
        do {
          this.again = false
          await sequenceChanges(this.database.db)
          let batch: ChangesAfter
          do {
            batch = await numberedAfter(this.database.db, null, this.head, 500)
            this.publish(batch.rows)
          } while (batch.rows.length === 500)
        } while (this.again && !this.closed)
      } catch {
        // A failed read (the database restarting) is retried by the next notification or poll.
      } finally {
        this.running = null
      }
    })()
  }

  private publish(rows: readonly ChangeRecord[]): void {
    for (const change of rows) {
      this.head = change.position
      this.recent.push(change)
    }
    if (this.recent.length > RECENT) this.recent.splice(0, this.recent.length - RECENT)
    if (rows.length === 0) return
    for (const waiter of this.waiters) if (this.concerns(waiter.scope, waiter.position)) waiter.done()
  }

  /** Whether a change of the scope past the position may have come: true when the feed cannot tell. */
  private concerns(scope: ChangeScope, position: number): boolean {
    const oldest = this.recent[0]
    if (oldest === undefined || this.head <= position) return false
    if (oldest.position > position + 1) return true
    return this.recent.some((change) => change.position > position && inScope(scope, change))
  }

  async wait(scope: ChangeScope, position: number, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    if (this.closed || signal?.aborted || timeoutMs <= 0) return
    await this.start()
    // Closed or aborted while the feed started: an abort already past fires no listener.
    if (this.closed || signal?.aborted || this.concerns(scope, position)) return
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer)
        signal?.removeEventListener('abort', done)
        this.waiters.delete(waiter)
        resolve()
      }
      const waiter: Waiter = { scope, position, done }
      const timer = setTimeout(done, timeoutMs)
      signal?.addEventListener('abort', done, { once: true })
      this.waiters.add(waiter)
    })
  }

  async close(): Promise<void> {
    this.closed = true
    if (this.poll) clearInterval(this.poll)
    if (this.relisten) clearTimeout(this.relisten)
    for (const waiter of this.waiters) waiter.done()
    await this.running
    await this.stopListening?.()
  }
}

/** The change store over one database, with this process's feed; `close` stops the feed before the database closes. */
export function changeStore(database: ChangeDatabase, options: ChangeFeedOptions = {}): ChangeStore & { close(): Promise<void> } {
  const feed = new ChangeFeed(database, options)
  return {
    after: (scope, position, limit) => changesAfter(database.db, scope, position, limit),
    wait: (scope, position, timeoutMs, signal) => feed.wait(scope, position, timeoutMs, signal),
    close: () => feed.close(),
  }
}
