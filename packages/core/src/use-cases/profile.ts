import type { Profile, UpdateProfileBody } from '../contract/schemas/account.ts'
import type { PageOf, PageQuery } from '../contract/schemas/common.ts'
import type { Invitation } from '../contract/schemas/workspace.ts'
import { actorOf, viaOf } from '../domain/audit.ts'
import { type Caller, userOf } from '../domain/principal.ts'
import { fail, ok, type Result } from '../domain/result.ts'
import { slugProblem } from '../domain/rules.ts'
import type { ProfileRecord } from '../ports/records.ts'
import { admitAccount } from './access.ts'
import type { CoreDeps } from './deps.ts'
import { presentInvitation } from './invitations.ts'
import { pageOfIds } from './paging.ts'

export function presentProfile(record: ProfileRecord): Profile {
  return {
    id: record.user.id,
    email: record.user.email,
    emailVerified: record.user.emailVerified,
    username: record.user.username,
    personalWorkspaceId: record.personalWorkspaceId,
    plan: record.plan,
    createdAt: record.createdAt.toISOString(),
  }
}

async function profileOf(deps: CoreDeps, userId: string): Promise<Result<ProfileRecord>> {
  const record = await deps.accounts.profile(userId)
  return record ? ok(record) : fail('invalid_token', 'The account behind this credential no longer exists.')
}

/** Who the credential acts for. */
export async function getProfile(deps: CoreDeps, caller: Caller): Promise<Result<Profile>> {
  const account = await admitAccount(deps, caller, 'profile.read')
  if (!account.ok) return account
  const record = await profileOf(deps, account.value.userId)
  return record.ok ? ok(presentProfile(record.value)) : record
}

/**
 * Sets the username, which is the personal workspace's slug: both change in one statement, so
 * two users racing for one name cannot both get it. Setting the current name changes nothing.
 */
export async function updateProfile(deps: CoreDeps, caller: Caller, body: UpdateProfileBody): Promise<Result<Profile>> {
  const account = await admitAccount(deps, caller, 'profile.update')
  if (!account.ok) return account
  const { principal, userId } = account.value
  const problem = slugProblem(body.username, 'owner')
  if (problem) {
    return fail('validation_failed', `The username \`${body.username}\` is ${problem}.`, {
      errors: [{ path: '/body/username', message: `is ${problem}` }],
    })
  }
  const current = await profileOf(deps, userId)
  if (!current.ok) return current
  if (current.value.user.username === body.username) return ok(presentProfile(current.value))
  const at = deps.clock.now()
  const outcome = await deps.accounts.rename({
    userId,
    username: body.username,
    guard: { credentialId: principal.kind === 'anonymous' ? null : principal.credentialId, at },
    audit: {
      id: deps.ids.next('evt'),
      at,
      action: 'profile.username_changed',
      actor: actorOf(principal),
      via: viaOf(principal, caller),
      workspaceId: current.value.personalWorkspaceId,
      artifactId: null,
      data: { userId, from: current.value.user.username, to: body.username },
    },
  })
  if (!outcome.ok) {
    return outcome.reason === 'slug_taken'
      ? fail('slug_taken', `The name \`${body.username}\` is taken by another user or workspace.`)
      : fail('forbidden', 'Your credential changed while renaming; nothing was written.')
  }
  const renamed = await profileOf(deps, userId)
  return renamed.ok ? ok(presentProfile(renamed.value)) : renamed
}

/** Pending invitations addressed to the caller's verified email. */
export async function listMyInvitations(deps: CoreDeps, caller: Caller, query: PageQuery): Promise<Result<PageOf<Invitation>>> {
  const account = await admitAccount(deps, caller, 'profile.read')
  if (!account.ok) return account
  const user = userOf(account.value.principal)
  const now = deps.clock.now()
  if (!user?.emailVerified) return ok({ items: [], nextCursor: null })
  return pageOfIds(
    query,
    'inv',
    (page) => deps.invitations.listPendingForEmail(user.email.toLowerCase(), now, page),
    (r) => presentInvitation(r, now),
  )
}
