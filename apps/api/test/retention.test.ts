import { pruneAuditEvents, setWorkspacePlan } from '@quire/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { engine, startTestApi, type TestApi } from './helper.ts'

const start = new Date('2026-11-23T10:00:00.000Z').getTime()
let now = new Date(start)
const clock = { now: () => now }
const at = (days: number) => {
  now = new Date(start + days * 86_400_000)
}
let api: TestApi

beforeAll(async () => {
  api = await startTestApi({ clock })
})
afterAll(() => api?.close())

const ids = async (url: string, token: string): Promise<string[]> =>
  (await api.call('GET', url, token)).items.map((e: { id: string }) => e.id)

describe(`audit retention by plan (${engine}): the clock moves, not the calendar`, () => {
  it('reads never return events older than the plan keeps; the pruner deletes them; a better plan keeps more', async () => {
    at(0)
    const owner = await api.user('retention.owner@example.com')
    const free = await api.call('POST', '/api/workspaces', owner.token, { slug: 'keeps-a-week', name: 'Free' })
    const pro = await api.call('POST', '/api/workspaces', owner.token, { slug: 'keeps-a-quarter', name: 'Pro' })
    expect(await setWorkspacePlan(api.runtime.operator, { slug: 'keeps-a-quarter', plan: 'pro' })).toMatchObject({ plan: 'pro' })
    for (const ws of [free, pro])
      await api.call('POST', `/api/workspaces/${ws.id}/invitations`, owner.token, { email: `old-${ws.slug}@example.com` })
    const oldFree = await ids(`/api/workspaces/${free.id}/audit-events`, owner.token)
    const oldPro = await ids(`/api/workspaces/${pro.id}/audit-events`, owner.token)
    expect(oldFree).toHaveLength(2)
    expect(oldPro).toHaveLength(3) // created, plan changed, invitation

    at(6)
    for (const ws of [free, pro])
      await api.call('POST', `/api/workspaces/${ws.id}/invitations`, owner.token, { email: `new-${ws.slug}@example.com` })

    at(8) // a week and a day: the free workspace's first events are out of reach, the pro one's are not
    const freeNow = await ids(`/api/workspaces/${free.id}/audit-events`, owner.token)
    expect(freeNow).toHaveLength(1)
    expect(freeNow.some((id) => oldFree.includes(id))).toBe(false)
    expect(await ids(`/api/workspaces/${pro.id}/audit-events`, owner.token)).toHaveLength(4)
    const account = await ids('/api/audit-events', owner.token)
    expect(account.some((id) => oldFree.includes(id))).toBe(false)
    // The owner's own day-0 events in the pro workspace (its creation, the invitation) are still there.
    expect(account.filter((id) => oldPro.includes(id))).toHaveLength(2)

    const rows = async (workspaceId: string) =>
      (await api.runtime.database.db.selectFrom('audit_events').select('id').where('workspace_id', '=', workspaceId).execute()).length
    expect(await rows(free.id)).toBe(3)
    const first = await pruneAuditEvents(api.runtime.operator)
    expect(first.skipped).toBe(false)
    expect(first.pruned).toBeGreaterThanOrEqual(2)
    expect(await rows(free.id)).toBe(1)
    expect(await rows(pro.id)).toBe(4)

    // Upgrading later brings nothing back: pruned is gone. Downgrading hides at once.
    await setWorkspacePlan(api.runtime.operator, { slug: 'keeps-a-week', plan: 'team' })
    expect(await ids(`/api/workspaces/${free.id}/audit-events`, owner.token)).toHaveLength(2) // the survivor and the plan change
    await setWorkspacePlan(api.runtime.operator, { slug: 'keeps-a-quarter', plan: 'free' })
    expect(await ids(`/api/workspaces/${pro.id}/audit-events`, owner.token)).toHaveLength(2) // the day-6 invitation and the downgrade

    at(100)
    expect(await ids(`/api/workspaces/${pro.id}/audit-events`, owner.token)).toHaveLength(0)
    await pruneAuditEvents(api.runtime.operator)
    expect(await rows(pro.id)).toBe(0)
    expect(await rows(free.id)).toBe(2) // team plan: a year
  })

  it('an artifact trail obeys its workspace plan too', async () => {
    at(200)
    const owner = await api.user('retention.artifact@example.com')
    await api.call('POST', '/api/projects', owner.token, { ownerUsername: 'retention-artifact', slug: 'notes', title: 'N', icon: 'n' })
    const artifact = await api.call('POST', '/api/artifacts', owner.token, {
      ownerUsername: 'retention-artifact',
      projectSlug: 'notes',
      slug: 'a',
      type: 'md',
      title: 'A',
      content: 'x',
      changelog: '',
      access: { publicView: false, publicEdit: false },
    })
    at(205)
    await api.call('POST', `/api/artifacts/${artifact.id}/versions`, owner.token, { content: 'y', expectedLatestVersion: 1 })
    at(209)
    const trail = (await api.call('GET', `/api/audit-events?artifactId=${artifact.id}`, owner.token)).items
    expect(trail.map((e: { action: string }) => e.action)).toEqual(['artifact.version_created'])
  })
})
