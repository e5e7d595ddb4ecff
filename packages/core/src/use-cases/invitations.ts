import type { PageOf, PageQuery } from '../contract/schemas/common.ts'
import type { CreateInvitationBody, Invitation } from '../contract/schemas/workspace.ts'
import { actorOf, viaOf } from '../domain/audit.ts'
import { unseen } from '../domain/hidden.ts'
import { type Caller, userOf } from '../domain/principal.ts'
import { fail, ok, type Result } from '../domain/result.ts'
import type { InvitationRecord } from '../ports/records.ts'
import { authorize, principalOf } from './access.ts'
import { admitWorkspace, guardOf } from './artifact-gate.ts'
import type { CoreDeps } from './deps.ts'
import { idempotencyDraft, planIdempotency, replay, replayAfterRace, type Written } from './idempotency.ts'
import { pageOfIds } from './paging.ts'

/** How long an invitation waits to be accepted. */
export const INVITATION_DAYS = 14

export function presentInvitation(record: InvitationRecord, now: Date): Invitation {
  const status =
    record.acceptedAt !== null ? 'accepted' : record.revokedAt !== null ? 'revoked' : record.expiresAt <= now ? 'expired' : 'pending'
  return {
    id: record.id,
    workspaceId: record.workspaceId,
    workspaceSlug: record.workspaceSlug,
    email: record.email,
    role: record.role,
    status,
    createdAt: record.createdAt.toISOString(),
    createdBy: record.createdBy,
    expiresAt: record.expiresAt.toISOString(),
    acceptedAt: record.acceptedAt?.toISOString() ?? null,
    revokedAt: record.revokedAt?.toISOString() ?? null,
  }
}

/** Invites an email to a workspace (owners and admins). */
export async function createInvitation(
  deps: CoreDeps,
  caller: Caller,
  workspaceId: string,
  body: CreateInvitationBody,
  idempotencyKey?: string,
): Promise<Result<Written<Invitation>>> {
  const ctx = await deps.workspaces.loadForCaller({ credential: caller.credential, workspaceId })
  const admitted = admitWorkspace(deps, caller, ctx, 'workspace.invite')
  if (!admitted.ok) return admitted
  const { principal, workspace, grant } = admitted.value
  const plan = await planIdempotency(deps, principal, idempotencyKey, `createInvitation:${workspace.id}`, body)
  const earlier = await replay<Invitation>(deps, plan)
  if (earlier) return earlier

  const at = deps.clock.now()
  const invitation: InvitationRecord = {
    id: deps.ids.next('inv'),
    workspaceId: workspace.id,
    workspaceSlug: workspace.slug,
    email: body.email.trim().toLowerCase(),
    role: body.role ?? 'member',
    createdAt: at,
    createdBy: actorOf(principal),
    expiresAt: new Date(at.getTime() + INVITATION_DAYS * 86_400_000),
    acceptedAt: null,
    acceptedBy: null,
    revokedAt: null,
  }
  const presented = presentInvitation(invitation, at)
  const outcome = await deps.invitations.create({
    invitation,
    guard: guardOf(principal, grant, at),
    audit: {
      id: deps.ids.next('evt'),
      at,
      action: 'workspace.invitation_created',
      actor: invitation.createdBy,
      via: viaOf(principal, caller),
      workspaceId: workspace.id,
      artifactId: null,
      data: { invitationId: invitation.id, email: invitation.email, role: invitation.role },
    },
    idempotency: idempotencyDraft(plan, 201, presented, at),
  })
  if (outcome.ok) return ok({ value: presented, replayed: false })
  switch (outcome.reason) {
    case 'idempotency_taken':
      return replayAfterRace<Invitation>(deps, plan)
    case 'already_member':
      return fail('already_member', `${invitation.email} is already a member of \`${workspace.slug}\`.`)
    case 'invitation_pending':
      return fail(
        'invitation_pending',
        `An invitation for ${invitation.email} to \`${workspace.slug}\` is already pending; revoke it first.`,
      )
    case 'refused':
      return fail('forbidden', 'Your access to this workspace changed; nothing was written.')
    case 'gone':
      return fail('not_found', unseen.workspace)
  }
}

/** A workspace's invitations, newest first (owners and admins). */
export async function listInvitations(
  deps: CoreDeps,
  caller: Caller,
  workspaceId: string,
  query: PageQuery,
): Promise<Result<PageOf<Invitation>>> {
  const ctx = await deps.workspaces.loadForCaller({ credential: caller.credential, workspaceId })
  const admitted = admitWorkspace(deps, caller, ctx, 'workspace.invite')
  if (!admitted.ok) return admitted
  const now = deps.clock.now()
  return pageOfIds(
    query,
    'inv',
    (page) => deps.invitations.listForWorkspace(admitted.value.workspace.id, page),
    (r) => presentInvitation(r, now),
  )
}

/** Revokes a pending invitation. Revoking it again changes nothing and is not an error. */
export async function revokeInvitation(deps: CoreDeps, caller: Caller, invitationId: string): Promise<Result<Invitation>> {
  const ctx = await deps.invitations.loadForCaller({ credential: caller.credential, invitationId })
  const admitted = admitWorkspace(deps, caller, ctx, 'workspace.invite')
  if (!admitted.ok) return admitted.error.code === 'not_found' ? fail('not_found', unseen.invitation) : admitted
  const invitation = ctx.invitation
  if (invitation === null) return fail('not_found', unseen.invitation)
  const { principal, workspace, grant } = admitted.value
  const at = deps.clock.now()
  if (invitation.revokedAt !== null) return ok(presentInvitation(invitation, at))
  if (invitation.acceptedAt !== null) return fail('already_member', 'The invitation was accepted already; nothing to revoke.')
  const outcome = await deps.invitations.revoke({
    invitationId: invitation.id,
    workspaceId: workspace.id,
    guard: guardOf(principal, grant, at),
    audit: {
      id: deps.ids.next('evt'),
      at,
      action: 'workspace.invitation_revoked',
      actor: actorOf(principal),
      via: viaOf(principal, caller),
      workspaceId: workspace.id,
      artifactId: null,
      data: { invitationId: invitation.id, email: invitation.email, role: invitation.role },
    },
  })
  if (outcome.ok) return ok(presentInvitation(outcome.invitation, at))
  if (outcome.reason === 'already_member') return fail('already_member', 'The invitation was accepted already; nothing to revoke.')
  if (outcome.reason === 'refused') return fail('forbidden', 'Your access to this workspace changed; nothing was written.')
  return fail('not_found', unseen.invitation)
}

/**
 * Accepts an invitation addressed to the caller's verified email: the caller joins the workspace
 * with the invitation's role. Accepting one already accepted by the caller returns it unchanged.
 */
export async function acceptInvitation(deps: CoreDeps, caller: Caller, invitationId: string): Promise<Result<Invitation>> {
  const ctx = await deps.invitations.loadForCaller({ credential: caller.credential, invitationId })
  const principal = principalOf(deps, caller, ctx.credential)
  if (!principal.ok) return principal
  const invitation = ctx.invitation
  const resource = { type: 'invitation', id: invitationId, email: invitation?.email ?? '' } as const
  const allowed = authorize(deps, principal.value, 'invitation.accept', resource)
  if (!allowed.ok) return allowed.error.code === 'not_found' ? fail('not_found', unseen.invitationForYou) : allowed
  const user = userOf(principal.value)
  if (invitation === null || user === null) return fail('not_found', unseen.invitationForYou)
  const at = deps.clock.now()
  if (invitation.acceptedAt !== null) {
    return invitation.acceptedBy === user.id ? ok(presentInvitation(invitation, at)) : fail('not_found', unseen.invitationForYou)
  }
  if (invitation.revokedAt !== null || invitation.expiresAt <= at) return fail('not_found', unseen.invitationForYou)
  const outcome = await deps.invitations.accept({
    invitationId: invitation.id,
    userId: user.id,
    guard: { credentialId: principal.value.kind === 'anonymous' ? null : principal.value.credentialId, at },
    audit: {
      id: deps.ids.next('evt'),
      at,
      action: 'workspace.member_joined',
      actor: actorOf(principal.value),
      via: viaOf(principal.value, caller),
      workspaceId: invitation.workspaceId,
      artifactId: null,
      data: { invitationId: invitation.id, userId: user.id, username: user.username, role: invitation.role },
    },
  })
  if (outcome.ok) return ok(presentInvitation(outcome.invitation, at))
  if (outcome.reason === 'already_member') return fail('already_member', `You are already a member of \`${invitation.workspaceSlug}\`.`)
  if (outcome.reason === 'refused') return fail('forbidden', 'Your credential changed while accepting; nothing was written.')
  return fail('not_found', unseen.invitationForYou)
}
