import type { CredentialGuard, IdempotencyDraft } from '@quire/core'
import { testEngine } from '@quire/testing/test-database'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createStores } from '../src/index.ts'
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

const operator = (): CredentialGuard => ({ credentialId: null, at: new Date() })
const slug = (prefix: string) => `${prefix}${Math.random().toString(36).slice(2, 10)}`

async function createTeam(owner: SeededUser, guard: CredentialGuard = operator(), idempotency: IdempotencyDraft | null = null) {
  const workspace = { id: ids.next('ws'), slug: slug('team-'), name: 'A team', createdAt: new Date() }
  const outcome = await deps.workspaces.create({
    workspace,
    ownerId: owner.user.id,
    guard,
    audit: event('workspace.created', { workspaceId: workspace.id }),
    idempotency,
  })
  return { workspace, outcome }
}

describe(`workspaces (${testEngine})`, () => {
  it('creates a team workspace with its owner, event and idempotency record in one go', async () => {
    const owner = await seedUser(deps)
    const draft: IdempotencyDraft = { scope: owner.user.id, key: 'k1', requestHash: 'h', status: 201, response: {}, at: new Date() }
    const { workspace, outcome } = await createTeam(owner, { credentialId: owner.credentialId, at: new Date() }, draft)
    expect(outcome).toEqual({ ok: true })
    const ctx = await deps.workspaces.loadForCaller({ credential: owner.credential, workspaceId: workspace.id })
    expect(ctx.workspace).toEqual({ id: workspace.id, slug: workspace.slug, kind: 'team', name: 'A team' })
    expect(ctx.role).toBe('owner')
    expect(ctx.credential?.user?.id).toBe(owner.user.id)
    const events = await handle.db.selectFrom('audit_events').select('action').where('workspace_id', '=', workspace.id).execute()
    expect(events).toEqual([{ action: 'workspace.created' }])
    expect(await deps.idempotency.find(owner.user.id, 'k1', new Date(0))).not.toBeNull()
    expect((await createTeam(owner, operator(), draft)).outcome).toEqual({ ok: false, reason: 'idempotency_taken' })
  })

  it('refuses a slug held by a user or a workspace, and a dead credential', async () => {
    const owner = await seedUser(deps)
    const other = await seedUser(deps)
    const taken = await deps.workspaces.create({
      workspace: { id: ids.next('ws'), slug: other.user.username, name: 'x', createdAt: new Date() },
      ownerId: owner.user.id,
      guard: operator(),
      audit: event('workspace.created'),
      idempotency: null,
    })
    expect(taken).toEqual({ ok: false, reason: 'slug_taken' })
    await handle.db.updateTable('credentials').set({ revoked_at: new Date() }).where('id', '=', owner.credentialId).execute()
    const { workspace, outcome } = await createTeam(owner, { credentialId: owner.credentialId, at: new Date() })
    expect(outcome).toEqual({ ok: false, reason: 'refused' })
    expect(await handle.db.selectFrom('workspaces').select('id').where('id', '=', workspace.id).execute()).toHaveLength(0)
  })

  it('loads the caller, the workspace and the role in one round trip, whatever is missing', async () => {
    const owner = await seedUser(deps)
    const stranger = await seedUser(deps)
    let queries = 0
    const db = handle.db.withPlugin({
      transformQuery: (args) => args.node,
      transformResult: async (args) => {
        queries++
        return args.result
      },
    })
    const stores = createStores({ db, query: async () => [] })
    const mine = await stores.workspaces.loadForCaller({ credential: owner.credential, workspaceId: owner.workspaceId })
    expect(mine).toMatchObject({ workspace: { id: owner.workspaceId, kind: 'personal' }, role: 'owner' })
    const theirs = await stores.workspaces.loadForCaller({ credential: stranger.credential, workspaceId: owner.workspaceId })
    expect(theirs).toMatchObject({ workspace: { id: owner.workspaceId }, role: null, credential: { id: stranger.credentialId } })
    const none = await stores.workspaces.loadForCaller({ credential: null, workspaceId: 'ws_missing' })
    expect(none).toEqual({ credential: null, workspace: null, role: null })
    const unknown = await stores.workspaces.loadForCaller({ credential: { secretHash: 'nope' }, workspaceId: owner.workspaceId })
    expect(unknown).toMatchObject({ credential: null, role: null })
    expect(queries).toBe(4)
  })

  it('lists a user’s workspaces oldest first with plan and role, and members by user id', async () => {
    const owner = await seedUser(deps)
    const member = await seedUser(deps)
    const teams = [await createTeam(owner), await createTeam(owner)]
    const second = teams[1]?.workspace.id as string
    await handle.db
      .insertInto('memberships')
      .values({ workspace_id: second, user_id: member.user.id, role: 'admin', created_at: new Date() })
      .execute()
    await deps.workspaces.setPlan({ slug: teams[1]?.workspace.slug as string, plan: 'team', audit: () => event('workspace.plan_changed') })

    const all = await deps.workspaces.listForUser(owner.user.id, { limit: 10, after: null })
    expect(all.map((w) => w.id)).toEqual([owner.workspaceId, teams[0]?.workspace.id, second])
    expect(all[0]).toMatchObject({ kind: 'personal', plan: 'free', role: 'owner', createdAt: expect.any(Date) })
    expect(all[2]).toMatchObject({ kind: 'team', plan: 'team', role: 'owner', name: 'A team' })
    const page = await deps.workspaces.listForUser(owner.user.id, { limit: 1, after: owner.workspaceId })
    expect(page.map((w) => w.id)).toEqual([teams[0]?.workspace.id, second])
    expect(await deps.workspaces.listForUser(member.user.id, { limit: 10, after: null })).toEqual([
      expect.objectContaining({ id: member.workspaceId, role: 'owner' }),
      expect.objectContaining({ id: second, role: 'admin' }),
    ])

    const members = await deps.workspaces.listMembers(second, { limit: 10, after: null })
    const byId = [owner, member].sort((a, b) => (a.user.id < b.user.id ? -1 : 1))
    expect(members.map((m) => m.userId)).toEqual(byId.map((u) => u.user.id))
    expect(members.find((m) => m.userId === member.user.id)).toMatchObject({
      username: member.user.username,
      email: member.user.email,
      role: 'admin',
      joinedAt: expect.any(Date),
    })
    const after = await deps.workspaces.listMembers(second, { limit: 10, after: byId[0]?.user.id as string })
    expect(after.map((m) => m.userId)).toEqual([byId[1]?.user.id])
  })

  it('sets a plan by slug with an event naming the plan before', async () => {
    const owner = await seedUser(deps)
    const { workspace } = await createTeam(owner)
    const seen: string[] = []
    const changed = await deps.workspaces.setPlan({
      slug: workspace.slug,
      plan: 'pro',
      audit: (before) => {
        seen.push(before.plan)
        return event('workspace.plan_changed', { workspaceId: before.id, data: { from: before.plan, to: 'pro' } })
      },
    })
    expect(changed).toEqual({ id: workspace.id, slug: workspace.slug, kind: 'team', name: 'A team', plan: 'pro' })
    expect(seen).toEqual(['free'])
    const events = await handle.db
      .selectFrom('audit_events')
      .select('data')
      .where('workspace_id', '=', workspace.id)
      .where('action', '=', 'workspace.plan_changed')
      .execute()
    expect(events.map((e) => e.data)).toEqual([{ from: 'free', to: 'pro' }])
    expect(await deps.workspaces.setPlan({ slug: 'no-such-slug', plan: 'pro', audit: () => event('workspace.plan_changed') })).toBeNull()
  })

  it('lists a workspace’s projects newest first', async () => {
    const owner = await seedUser(deps)
    const made: string[] = []
    for (const s of ['a', 'b', 'c']) {
      const id = ids.next('prj')
      made.push(id)
      const by = { kind: 'operator' as const, id: 'o', label: 'o' }
      await deps.projects.create({
        project: {
          id,
          workspaceId: owner.workspaceId,
          slug: s,
          title: s,
          description: '',
          icon: 'x',
          createdAt: new Date(),
          createdBy: by,
        },
        audit: event('project.created'),
        idempotency: null,
      })
    }
    const elsewhere = await seedUser(deps)
    await deps.projects.create({
      project: {
        id: ids.next('prj'),
        workspaceId: elsewhere.workspaceId,
        slug: 'z',
        title: 'z',
        description: '',
        icon: 'x',
        createdAt: new Date(),
        createdBy: { kind: 'operator', id: 'o', label: 'o' },
      },
      audit: event('project.created'),
      idempotency: null,
    })
    const first = await deps.projects.listForWorkspace(owner.workspaceId, { limit: 2, after: null })
    expect(first.map((p) => p.id)).toEqual([...made].reverse())
    expect(first[0]).toMatchObject({ ownerSlug: owner.user.username, slug: 'c' })
    const rest = await deps.projects.listForWorkspace(owner.workspaceId, { limit: 2, after: made[1] as string })
    expect(rest.map((p) => p.id)).toEqual([made[0]])
  })
})
