import type { EnsureUserCommand, PrincipalUser } from '@quire/core'
import type { Transaction } from 'kysely'
import type { Database } from '../schema.ts'

/** What a new user is made of (the port's command without its audit event, which the caller writes). */
export type NewUser = Omit<EnsureUserCommand, 'audit'>

/**
 * Creates a user with a personal workspace they own, inside the caller's transaction (which also
 * writes the audit event). A slug taken by a concurrent transaction makes this one wait for it and
 * then try the next candidate; a verified email taken concurrently fails on its unique index, and
 * the caller re-reads.
 */
export async function insertUser(trx: Transaction<Database>, user: NewUser): Promise<{ user: PrincipalUser; personalWorkspaceId: string }> {
  let slug: string | null = null
  for (const candidate of user.usernameCandidates) {
    const inserted = await trx
      .insertInto('workspaces')
      .values({ id: user.workspaceId, slug: candidate, kind: 'personal', name: candidate, plan: 'free', created_at: user.at })
      .onConflict((oc) => oc.column('slug').doNothing())
      .returning('slug')
      .executeTakeFirst()
    if (inserted) {
      slug = inserted.slug
      break
    }
  }
  if (slug === null) throw new Error(`no free username among ${user.usernameCandidates.length} candidates`)
  await trx
    .insertInto('users')
    .values({
      id: user.userId,
      email: user.email,
      email_verified: user.emailVerified,
      personal_workspace_id: user.workspaceId,
      username: slug,
      created_at: user.at,
    })
    .execute()
  await trx
    .insertInto('memberships')
    .values({ workspace_id: user.workspaceId, user_id: user.userId, role: 'owner', created_at: user.at })
    .execute()
  return {
    user: { id: user.userId, email: user.email, emailVerified: user.emailVerified, username: slug },
    personalWorkspaceId: user.workspaceId,
  }
}
