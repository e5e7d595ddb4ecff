import { auditRetentionDays, type Retention, retentionAt } from '@quire/core'
import { testEngine } from '@quire/testing/test-database'
import { sql } from 'kysely'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AUDIT_PRUNING_LOCK_KEY } from '../src/stores/audit-pruning.ts'
import type { TestDatabase } from '../src/testing.ts'
import { type Deps, event, ids, openStores, type SeededUser, seedUser } from './fixtures.ts'

let handle: TestDatabase
let deps: Deps

beforeAll(async () => {
  ;({ handle, deps } = await openStores())
})
afterAll(async () => {
  await handle.close()
})

const DAY = 86_400_000
const page = { limit: 100, after: null }

/** Events of a workspace (or of none) aged 5, 10 and 100 days at `now`, and one a moment old. */
async function agedEvents(workspaceId: string | null, now: Date, artifactId: string | null = null) {
  const made: Record<'d0' | 'd5' | 'd10' | 'd100', string> = { d0: '', d5: '', d10: '', d100: '' }
  for (const [name, days] of [
    ['d100', 100],
    ['d10', 10],
    ['d5', 5],
    ['d0', 0],
  ] as const) {
    const e = event('artifact.version_created', { workspaceId, artifactId, at: new Date(now.getTime() - days * DAY - 1000) })
    await handle.db
      .insertInto('audit_events')
      .values({
        id: e.id,
        at: e.at,
        action: e.action,
        actor_kind: e.actor.kind,
        actor_id: e.actor.id,
        actor_label: e.actor.label,
        via_surface: e.via.surface,
        workspace_id: e.workspaceId,
        artifact_id: e.artifactId,
        data: '{}',
      })
      .execute()
    made[name] = e.id
  }
  return made
}

const ids_ = (events: { id: string }[]) => events.map((e) => e.id).sort()
const remaining = async (eventIds: string[]) =>
  ids_(await handle.db.selectFrom('audit_events').select('id').where('id', 'in', eventIds).execute())

/** A user whose personal workspace is on `free`, and a team workspace of theirs on `pro`. */
async function freeAndPro(): Promise<{ owner: SeededUser; pro: string }> {
  const owner = await seedUser(deps)
  const workspace = { id: ids.next('ws'), slug: `pro-${Math.random().toString(36).slice(2, 10)}`, name: 'Pro', createdAt: new Date() }
  await deps.workspaces.create({
    workspace,
    ownerId: owner.user.id,
    guard: { credentialId: null, at: new Date() },
    audit: event('workspace.created'),
    idempotency: null,
  })
  await deps.workspaces.setPlan({ slug: workspace.slug, plan: 'pro', audit: () => event('workspace.plan_changed') })
  return { owner, pro: workspace.id }
}

describe(`audit retention (${testEngine})`, () => {
  it('reads only events within their workspace plan’s retention', async () => {
    const now = new Date()
    const retention = retentionAt(now)
    const { owner, pro } = await freeAndPro()
    const free = await agedEvents(owner.workspaceId, now, 'art_free')
    const paid = await agedEvents(pro, now, 'art_pro')
    const none = await agedEvents(null, now, 'art_none')

    const inFree = await deps.audit.listForWorkspace(owner.workspaceId, page, retention)
    expect(ids_(inFree).filter((id) => Object.values(free).includes(id))).toEqual([free.d0, free.d5].sort())
    expect(ids_(await deps.audit.listForWorkspace(pro, page, retention)).filter((id) => Object.values(paid).includes(id))).toEqual(
      [paid.d0, paid.d5, paid.d10].sort(),
    )
    expect(ids_(await deps.audit.listForArtifact('art_free', page, retention))).toEqual([free.d0, free.d5].sort())
    expect(ids_(await deps.audit.listForArtifact('art_pro', page, retention))).toEqual([paid.d0, paid.d5, paid.d10].sort())
    // No workspace counts as free.
    expect(ids_(await deps.audit.listForArtifact('art_none', page, retention))).toEqual([none.d0, none.d5].sort())
    // The account's view: its personal (free) workspace's events.
    const account = ids_(await deps.audit.listForAccount(owner.user.id, page, retention))
    expect(account).toEqual(expect.arrayContaining([free.d0, free.d5]))
    expect(account).not.toContain(free.d10)
    // Another policy (say, longer days) is the caller's to pass: nothing is fixed in SQL.
    const generous: Retention = { now, days: { ...auditRetentionDays, free: 1000 } }
    expect(ids_(await deps.audit.listForArtifact('art_free', page, generous))).toEqual(Object.values(free).sort())
    // Pages run newest first over what is kept.
    const newest = await deps.audit.listForArtifact('art_pro', { limit: 1, after: null }, retention)
    expect(newest.map((e) => e.id)).toEqual([paid.d0, paid.d5])
    const older = await deps.audit.listForArtifact('art_pro', { limit: 1, after: paid.d5 }, retention)
    expect(older.map((e) => e.id)).toEqual([paid.d10])
  })

  it('prunes what reads leave out, per plan, and keeps the rest', async () => {
    const now = new Date()
    const { owner, pro } = await freeAndPro()
    const free = await agedEvents(owner.workspaceId, now)
    const paid = await agedEvents(pro, now)
    const none = await agedEvents(null, now)
    const all = [...Object.values(free), ...Object.values(paid), ...Object.values(none)]

    const outcome = await deps.auditPruner.prune(retentionAt(now))
    expect(outcome.skipped).toBe(false)
    expect(await remaining(all)).toEqual([free.d0, free.d5, paid.d0, paid.d5, paid.d10, none.d0, none.d5].sort())
    expect(outcome.pruned).toBeGreaterThanOrEqual(5)
    expect(await deps.auditPruner.prune(retentionAt(now))).toEqual({ pruned: 0, skipped: false })
  })

  it('prunes in batches until none is left, passing over what a longer plan keeps', async () => {
    const now = new Date()
    const { owner, pro } = await freeAndPro()
    await deps.auditPruner.prune(retentionAt(now)) // whatever was due already: the count below is the batches' alone
    // Free events a second apart from 30 days back, and among them (every 50th second) kept pro events.
    const start = new Date(now.getTime() - 30 * DAY)
    await sql`INSERT INTO audit_events (id, at, action, actor_kind, actor_id, actor_label, via_surface, workspace_id)
      SELECT 'evt_bulk_' || n, ${start}::timestamptz - make_interval(secs => n), 'artifact.version_created', 'operator', 'o', 'o', 'operator',
        CASE WHEN n % 50 = 0 THEN ${pro}::text ELSE ${owner.workspaceId}::text END
      FROM generate_series(1, 12500) AS n`.execute(handle.db)
    const outcome = await deps.auditPruner.prune(retentionAt(now))
    expect(outcome).toEqual({ pruned: 12250, skipped: false })
    const { rows } = await sql<{ workspace_id: string; n: number }>`SELECT workspace_id, count(*)::int AS n FROM audit_events
      WHERE id LIKE 'evt_bulk_%' GROUP BY workspace_id`.execute(handle.db)
    expect(rows).toEqual([{ workspace_id: pro, n: 250 }])
  })

  it('lets one prune run at a time in a process', async () => {
    const now = new Date(Date.now() + 800 * DAY)
    const [first, second] = await Promise.all([deps.auditPruner.prune(retentionAt(now)), deps.auditPruner.prune(retentionAt(now))])
    expect(first?.skipped).toBe(false)
    expect(second).toEqual({ pruned: 0, skipped: true })
  })

  it.runIf(testEngine === 'postgres')('skips, deleting nothing, while another connection holds the pruning lock', async () => {
    const now = new Date(Date.now() + 1200 * DAY)
    const { owner } = await freeAndPro()
    const old = await agedEvents(owner.workspaceId, now)
    const other = new pg.Client({ connectionString: handle.url ?? '' })
    await other.connect()
    try {
      await other.query('SELECT pg_advisory_lock($1::bigint)', [AUDIT_PRUNING_LOCK_KEY])
      expect(await deps.auditPruner.prune(retentionAt(now))).toEqual({ pruned: 0, skipped: true })
      expect(await remaining(Object.values(old))).toEqual(Object.values(old).sort())
      await other.query('SELECT pg_advisory_unlock($1::bigint)', [AUDIT_PRUNING_LOCK_KEY])
      const after = await deps.auditPruner.prune(retentionAt(now))
      expect(after.skipped).toBe(false)
      expect(await remaining(Object.values(old))).toEqual([old.d0, old.d5].sort())
      // The lock was let go: another session takes it at once.
      const { rows } = await other.query('SELECT pg_try_advisory_lock($1::bigint) AS locked', [AUDIT_PRUNING_LOCK_KEY])
      expect(rows[0]?.locked).toBe(true)
    } finally {
      await other.end()
    }
  })
})

describe(`audit immutability (${testEngine})`, () => {
  it('refuses a plain UPDATE, DELETE or TRUNCATE of audit events', async () => {
    const { owner } = await freeAndPro()
    const [one] = await deps.audit.listForAccount(owner.user.id, { limit: 1, after: null }, retentionAt(new Date()))
    if (!one) throw new Error('no event')
    await expect(sql`UPDATE audit_events SET action = 'x' WHERE id = ${one.id}`.execute(handle.db)).rejects.toThrow(/immutable/)
    await expect(sql`DELETE FROM audit_events WHERE id = ${one.id}`.execute(handle.db)).rejects.toThrow(/immutable/)
    await expect(sql`TRUNCATE audit_events`.execute(handle.db)).rejects.toThrow(/immutable/)
    // Even the pruner's transaction may not update, and its setting ends with it.
    await expect(
      handle.db.transaction().execute(async (trx) => {
        await sql`SELECT set_config('quire.audit_pruning', 'on', true)`.execute(trx)
        await sql`UPDATE audit_events SET action = 'x' WHERE id = ${one.id}`.execute(trx)
      }),
    ).rejects.toThrow(/immutable/)
    await expect(sql`DELETE FROM audit_events WHERE id = ${one.id}`.execute(handle.db)).rejects.toThrow(/immutable/)
    const still = await handle.db.selectFrom('audit_events').select('action').where('id', '=', one.id).executeTakeFirstOrThrow()
    expect(still.action).toBe(one.action)
  })
})
