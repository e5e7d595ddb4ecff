/**
 * The ordered stream of changes (migration 0011): an audit event of a kind a reader cares about
 * becomes a change in its own transaction; positions are given in commit order, after commit; a
 * change feed wakes its waiters by notification and, with none, by polling.
 */
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { insertAudit } from '../src/audit.ts'
import { sequenceChanges } from '../src/index.ts'
import { changeStore } from '../src/stores/change-events.ts'
import type { TestDatabase } from '../src/testing.ts'
import { type Deps, event, openStores, seedUser } from './fixtures.ts'

let handle: TestDatabase
let deps: Deps
let workspaceId: string
const artifactId = 'art_changes000000000000000001'

beforeAll(async () => {
  ;({ handle, deps } = await openStores())
  workspaceId = (await seedUser(deps)).workspaceId
  await sql`INSERT INTO projects (id, workspace_id, slug, title, icon, created_at, created_by_kind, created_by_id, created_by_label)
    VALUES ('prj_changes', ${workspaceId}, 'p', 'P', 'p', now(), 'user', 'u', 'u')`.execute(handle.db)
  await sql`INSERT INTO artifacts (id, workspace_id, project_id, slug, type, title, latest_version, created_at, updated_at,
      created_by_kind, created_by_id, created_by_label)
    VALUES (${artifactId}, ${workspaceId}, 'prj_changes', 'a', 'md', 'A', 1, now(), now(), 'user', 'u', 'u')`.execute(handle.db)
})
afterAll(async () => {
  await deps.changes.close()
  await handle.close()
})

const audited = (action: Parameters<typeof event>[0], data: Record<string, unknown> = {}) =>
  event(action, { workspaceId, artifactId, data })

describe(`change events (${process.env.QUIRE_TEST_ENGINE})`, () => {
  it('derives a thin change from each audit event a reader cares about, and none from the others', async () => {
    const before = await deps.changes.after({ artifactId }, 0, 100)
    await insertAudit(handle.db, audited('artifact.version_created', { versionNumber: 7 }))
    await insertAudit(handle.db, audited('share_link.created'))
    await insertAudit(handle.db, event('api_key.created'))
    await insertAudit(handle.db, event('project.created', { workspaceId }))
    const after = await deps.changes.after({ artifactId }, before.head, 100)
    expect(after.rows.map((r) => [r.kind, r.versionNumber, r.projectId, r.workspaceId])).toEqual([
      ['artifact.version_created', 7, 'prj_changes', workspaceId],
      ['share_link.created', null, 'prj_changes', workspaceId],
    ])
    expect(after.head).toBe(after.rows.at(-1)?.position)
    // By project and by workspace, the same rows.
    expect((await deps.changes.after({ projectId: 'prj_changes' }, before.head, 100)).rows).toEqual(after.rows)
    expect((await deps.changes.after({ workspaceId }, before.head, 100)).rows).toEqual(after.rows)
  })

  it('numbers changes in the order they commit, not the order they began', async (context) => {
    if (handle.kind !== 'postgres') return context.skip() // PGlite has one connection: no two transactions overlap.
    const head = (await deps.changes.after({ artifactId }, 0, 0)).head
    const first = audited('artifact.version_created', { versionNumber: 100 })
    const second = audited('artifact.version_created', { versionNumber: 101 })
    await handle.db.transaction().execute(async (trx) => {
      await insertAudit(trx, first)
      // Another transaction begins later and commits first; a reader numbers it meanwhile.
      await insertAudit(handle.db, second)
      const seen = await deps.changes.after({ artifactId }, head, 100)
      expect(seen.rows.map((r) => r.versionNumber)).toEqual([101])
    })
    await sequenceChanges(handle.db)
    const all = await deps.changes.after({ artifactId }, head, 100)
    expect(all.rows.map((r) => r.versionNumber)).toEqual([101, 100])
    // A follower that had read up to the first numbered one still gets the later commit.
    const resumed = await deps.changes.after({ artifactId }, all.rows[0]?.position ?? 0, 100)
    expect(resumed.rows.map((r) => r.versionNumber)).toEqual([100])
  })

  it('wakes a waiter on the notification of the commit', async () => {
    const store = changeStore(handle, { pollMs: 60_000 })
    try {
      const head = (await store.after({ artifactId }, 0, 0)).head
      const started = performance.now()
      const waiting = store.wait({ artifactId }, head, 20_000)
      await new Promise((resolve) => setTimeout(resolve, 100))
      await insertAudit(handle.db, audited('artifact.access_changed'))
      await waiting
      expect(performance.now() - started).toBeLessThan(10_000)
      expect((await store.after({ artifactId }, head, 10)).rows.map((r) => r.kind)).toEqual(['artifact.access_changed'])
      // A waiter on another artifact is not woken by it: it runs to its timeout.
      const other = performance.now()
      const head2 = (await store.after({ artifactId }, 0, 0)).head
      const elsewhere = store.wait({ artifactId: 'art_elsewhere00000000000000001' }, head2, 700)
      await insertAudit(handle.db, audited('share_link.revoked'))
      await elsewhere
      expect(performance.now() - other).toBeGreaterThanOrEqual(650)
    } finally {
      await store.close()
    }
  })

  it('without notifications, wakes a waiter by polling', async () => {
    const store = changeStore({ db: handle.db }, { pollMs: 200 })
    try {
      const head = (await store.after({ artifactId }, 0, 0)).head
      const waiting = store.wait({ artifactId }, head, 20_000)
      await new Promise((resolve) => setTimeout(resolve, 100))
      const started = performance.now()
      await insertAudit(handle.db, audited('artifact.deleted'))
      await waiting
      expect(performance.now() - started).toBeLessThan(10_000)
      expect((await store.after({ artifactId }, head, 10)).rows.map((r) => r.kind)).toEqual(['artifact.deleted'])
    } finally {
      await store.close()
    }
  })

  it('ends every wait when the feed closes, and an aborted wait at once', async () => {
    const store = changeStore(handle, { pollMs: 60_000 })
    const head = (await store.after({ artifactId }, 0, 0)).head
    const aborted = new AbortController()
    const waits = [store.wait({ artifactId }, head, 60_000), store.wait({ artifactId }, head, 60_000, aborted.signal)]
    aborted.abort()
    await waits[1]
    const started = performance.now()
    await store.close()
    await Promise.all(waits)
    expect(performance.now() - started).toBeLessThan(5_000)
  })
})
