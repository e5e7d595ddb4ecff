import type { InvitationRecord, Role, WriteGuard } from '@quire/core'
import { testEngine } from '@quire/testing/test-database'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
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

/** An owner's team workspace. */
async function team(owner: SeededUser) {
  const workspace = { id: ids.next('ws'), slug: `team-${Math.random().toString(36).slice(2, 10)}`, name: 'T', createdAt: new Date() }
  await deps.workspaces.create({
    workspace,
    ownerId: owner.user.id,
    guard: { credentialId: null, at: new Date() },
    audit: event('workspace.created'),
    idempotency: null,
  })
  return workspace
}

const guardOf = (u: SeededUser, role: Role = 'owner', at = new Date()): WriteGuard => ({
  credentialId: u.credentialId,
  userId: u.user.id,
  grant: { kind: 'role', role },
  at,
})

function invitation(
  workspace: { id: string; slug: string },
  email: string,
  at = new Date(),
  fields: Partial<InvitationRecord> = {},
): InvitationRecord {
  return {
    id: ids.next('inv'),
    workspaceId: workspace.id,
    workspaceSlug: workspace.slug,
    email,
    role: 'member',
    createdAt: at,
    createdBy: { kind: 'user', id: 'usr_x', label: 'x' },
    expiresAt: new Date(at.getTime() + 14 * DAY),
    acceptedAt: null,
    acceptedBy: null,
    revokedAt: null,
    ...fields,
  }
}

async function invite(inviter: SeededUser, record: InvitationRecord, guard = guardOf(inviter, 'owner', record.createdAt)) {
  return deps.invitations.create({
    invitation: record,
    guard,
    audit: event('workspace.invitation_created', { workspaceId: record.workspaceId, data: { invitationId: record.id } }),
    idempotency: null,
  })
}

const eventsFor = async (invitationId: string, action: string) =>
  handle.db
    .selectFrom('audit_events')
    .select('id')
    .where('action', '=', action)
    .where((eb) => eb(eb.ref('data', '->>').key('invitationId'), '=', invitationId))
    .execute()

describe(`invitations (${testEngine})`, () => {
  it('creates one pending invitation per workspace and email, with its event', async () => {
    const owner = await seedUser(deps)
    const ws = await team(owner)
    const first = invitation(ws, 'new@example.com')
    expect(await invite(owner, first)).toEqual({ ok: true })
    expect(await eventsFor(first.id, 'workspace.invitation_created')).toHaveLength(1)
    const ctx = await deps.invitations.loadForCaller({ credential: owner.credential, invitationId: first.id })
    expect(ctx.invitation).toEqual(first)
    expect(ctx).toMatchObject({ workspace: { id: ws.id, slug: ws.slug }, role: 'owner', credential: { id: owner.credentialId } })

    const second = invitation(ws, 'new@example.com')
    expect(await invite(owner, second)).toEqual({ ok: false, reason: 'invitation_pending' })
    expect(await eventsFor(second.id, 'workspace.invitation_created')).toHaveLength(0)
    // Another workspace may invite the same email.
    const elsewhere = await team(owner)
    expect(await invite(owner, invitation(elsewhere, 'new@example.com'))).toEqual({ ok: true })
  })

  it('refuses members, missing workspaces and callers whose role or credential changed', async () => {
    const owner = await seedUser(deps)
    const member = await seedUser(deps)
    const ws = await team(owner)
    await handle.db
      .insertInto('memberships')
      .values({ workspace_id: ws.id, user_id: member.user.id, role: 'member', created_at: new Date() })
      .execute()
    expect(await invite(owner, invitation(ws, member.user.email))).toEqual({ ok: false, reason: 'already_member' })
    expect(await invite(owner, invitation({ id: 'ws_missing', slug: 'x' }, 'a@example.com'))).toEqual({ ok: false, reason: 'gone' })
    // Admitted as an admin, but the caller is the owner (the grant no longer matches): refused.
    const asAdmin = invitation(ws, 'b@example.com')
    expect(await invite(owner, asAdmin, guardOf(owner, 'admin'))).toEqual({ ok: false, reason: 'refused' })
    expect(await invite(member, invitation(ws, 'c@example.com'), guardOf(member, 'member'))).toEqual({ ok: true })
    await handle.db.updateTable('credentials').set({ revoked_at: new Date() }).where('id', '=', member.credentialId).execute()
    expect(await invite(member, invitation(ws, 'd@example.com'), guardOf(member, 'member'))).toEqual({ ok: false, reason: 'refused' })
    const listed = await deps.invitations.listForWorkspace(ws.id, { limit: 10, after: null })
    expect(listed.map((i) => i.email)).toEqual(['c@example.com'])
  })

  it('lets a new invitation take the place of an expired one, which stays expired (not revoked)', async () => {
    const owner = await seedUser(deps)
    const ws = await team(owner)
    const longAgo = new Date(Date.now() - 30 * DAY)
    const old = invitation(ws, 'late@example.com', longAgo)
    expect(await invite(owner, old)).toEqual({ ok: true })
    const fresh = invitation(ws, 'late@example.com')
    expect(await invite(owner, fresh)).toEqual({ ok: true })
    const all = await deps.invitations.listForWorkspace(ws.id, { limit: 10, after: null })
    expect(all.map((i) => i.id)).toEqual([fresh.id, old.id])
    expect(all[1]).toEqual(old) // no revocation recorded
    const row = await handle.db
      .selectFrom('workspace_invitations')
      .select('superseded_by')
      .where('id', '=', old.id)
      .executeTakeFirstOrThrow()
    expect(row.superseded_by).toBe(fresh.id)
    expect(await eventsFor(old.id, 'workspace.invitation_revoked')).toHaveLength(0)
    // The expired one cannot be accepted; the fresh one holds the pending slot.
    expect(await invite(owner, invitation(ws, 'late@example.com'))).toEqual({ ok: false, reason: 'invitation_pending' })
  })

  it('lists pending invitations for an email newest first, leaving out the rest', async () => {
    const owner = await seedUser(deps)
    const email = `p${Math.random().toString(36).slice(2, 8)}@example.com`
    const [a, b, c, d] = [await team(owner), await team(owner), await team(owner), await team(owner)]
    if (!a || !b || !c || !d) throw new Error('no teams')
    const pending = [invitation(a, email), invitation(b, email)]
    for (const i of pending) await invite(owner, i)
    const expired = invitation(c, email, new Date(Date.now() - 20 * DAY))
    await invite(owner, expired)
    const revoked = invitation(d, email)
    await invite(owner, revoked)
    await deps.invitations.revoke({
      invitationId: revoked.id,
      workspaceId: d.id,
      guard: guardOf(owner),
      audit: event('workspace.invitation_revoked'),
    })
    const now = new Date()
    const listed = await deps.invitations.listPendingForEmail(email, now, { limit: 1, after: null })
    expect(listed.map((i) => i.id)).toEqual([pending[1]?.id, pending[0]?.id])
    const next = await deps.invitations.listPendingForEmail(email, now, { limit: 1, after: pending[1]?.id ?? null })
    expect(next.map((i) => i.id)).toEqual([pending[0]?.id])
  })

  it('revokes a pending invitation once; an accepted one cannot be revoked', async () => {
    const owner = await seedUser(deps)
    const joiner = await seedUser(deps)
    const ws = await team(owner)
    const pending = invitation(ws, 'r@example.com')
    await invite(owner, pending)
    const revoke = (id: string, guard = guardOf(owner), workspaceId = ws.id) =>
      deps.invitations.revoke({
        invitationId: id,
        workspaceId,
        guard,
        audit: event('workspace.invitation_revoked', { data: { invitationId: id } }),
      })
    expect(await revoke(pending.id, guardOf(owner, 'admin'))).toEqual({ ok: false, reason: 'refused' })
    const first = await revoke(pending.id)
    expect(first).toMatchObject({ ok: true, changed: true, invitation: { id: pending.id, revokedAt: expect.any(Date) } })
    expect(await revoke(pending.id)).toMatchObject({ ok: true, changed: false, invitation: { id: pending.id } })
    expect(await eventsFor(pending.id, 'workspace.invitation_revoked')).toHaveLength(1)
    expect(await revoke('inv_missing')).toEqual({ ok: false, reason: 'gone' })
    expect(await revoke(pending.id, guardOf(owner), joiner.workspaceId)).toEqual({ ok: false, reason: 'refused' })

    const accepted = invitation(ws, joiner.user.email)
    await invite(owner, accepted)
    await deps.invitations.accept({
      invitationId: accepted.id,
      userId: joiner.user.id,
      guard: { credentialId: joiner.credentialId, at: new Date() },
      audit: event('workspace.member_joined', { data: { invitationId: accepted.id } }),
    })
    expect(await revoke(accepted.id)).toEqual({ ok: false, reason: 'already_member' })
    expect(await eventsFor(accepted.id, 'workspace.invitation_revoked')).toHaveLength(0)
  })

  it('accepts a pending invitation: membership with its role, acceptance and event together', async () => {
    const owner = await seedUser(deps)
    const joiner = await seedUser(deps)
    const ws = await team(owner)
    const inv = invitation(ws, joiner.user.email, new Date(), { role: 'admin' })
    await invite(owner, inv)
    const accept = (guard = { credentialId: joiner.credentialId, at: new Date() }, id = inv.id) =>
      deps.invitations.accept({
        invitationId: id,
        userId: joiner.user.id,
        guard,
        audit: event('workspace.member_joined', { workspaceId: ws.id, data: { invitationId: id } }),
      })

    const outcome = await accept()
    expect(outcome).toMatchObject({
      ok: true,
      invitation: { id: inv.id, workspaceSlug: ws.slug, acceptedBy: joiner.user.id, acceptedAt: expect.any(Date) },
    })
    const ctx = await deps.workspaces.loadForCaller({ credential: joiner.credential, workspaceId: ws.id })
    expect(ctx.role).toBe('admin')
    expect(await eventsFor(inv.id, 'workspace.member_joined')).toHaveLength(1)
    // Again: nothing more is written.
    expect(await accept()).toEqual({ ok: false, reason: 'already_member' })
    expect(await eventsFor(inv.id, 'workspace.member_joined')).toHaveLength(1)
    expect(await accept(undefined, 'inv_missing')).toEqual({ ok: false, reason: 'gone' })
  })

  it('accepts nothing expired, revoked, for a member, or with a dead credential', async () => {
    const owner = await seedUser(deps)
    const joiner = await seedUser(deps)
    const ws = await team(owner)
    const accept = (id: string, at = new Date()) =>
      deps.invitations.accept({
        invitationId: id,
        userId: joiner.user.id,
        guard: { credentialId: joiner.credentialId, at },
        audit: event('workspace.member_joined', { data: { invitationId: id } }),
      })

    const inv = invitation(ws, joiner.user.email)
    await invite(owner, inv)
    expect(await accept(inv.id, new Date(inv.expiresAt.getTime() + 1))).toEqual({ ok: false, reason: 'gone' })
    await deps.invitations.revoke({
      invitationId: inv.id,
      workspaceId: ws.id,
      guard: guardOf(owner),
      audit: event('workspace.invitation_revoked'),
    })
    expect(await accept(inv.id)).toEqual({ ok: false, reason: 'gone' })

    // Joined some other way meanwhile: refused as a member, nothing written.
    const again = invitation(ws, joiner.user.email)
    await invite(owner, again)
    await handle.db
      .insertInto('memberships')
      .values({ workspace_id: ws.id, user_id: joiner.user.id, role: 'member', created_at: new Date() })
      .execute()
    expect(await accept(again.id)).toEqual({ ok: false, reason: 'already_member' })
    const row = await handle.db
      .selectFrom('workspace_invitations')
      .select('accepted_at')
      .where('id', '=', again.id)
      .executeTakeFirstOrThrow()
    expect(row.accepted_at).toBeNull()
    await handle.db.deleteFrom('memberships').where('workspace_id', '=', ws.id).where('user_id', '=', joiner.user.id).execute()

    await handle.db.updateTable('credentials').set({ revoked_at: new Date() }).where('id', '=', joiner.credentialId).execute()
    expect(await accept(again.id)).toEqual({ ok: false, reason: 'refused' })
    expect(await eventsFor(again.id, 'workspace.member_joined')).toHaveLength(0)
  })
})
