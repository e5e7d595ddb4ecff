import type { AccountStore, EnsureUserCommand, PrincipalUser, ProfileRecord, RenameUserCommand } from '@quire/core'
import { type Kysely, sql, type Transaction } from 'kysely'
import { auditFrom, insertAudit } from '../audit.ts'
import { isUniqueViolation } from '../pg-errors.ts'
import type { Database } from '../schema.ts'
import { credentialIsLive } from './guard.ts'
import { withClauses } from './writes.ts'

async function findUser(db: Kysely<Database> | Transaction<Database>, email: string) {
  const row = await db
    .selectFrom('users')
    .select(['id', 'email', 'email_verified', 'username', 'personal_workspace_id'])
    .where('email', '=', email)
    .executeTakeFirst()
  if (!row) return null
  return {
    user: { id: row.id, email: row.email, emailVerified: row.email_verified, username: row.username } satisfies PrincipalUser,
    personalWorkspaceId: row.personal_workspace_id,
  }
}

async function createUser(trx: Transaction<Database>, cmd: EnsureUserCommand) {
  let slug: string | null = null
  for (const candidate of cmd.usernameCandidates) {
    const inserted = await trx
      .insertInto('workspaces')
      .values({ id: cmd.workspaceId, slug: candidate, kind: 'personal', name: candidate, plan: 'free', created_at: cmd.at })
      .onConflict((oc) => oc.column('slug').doNothing())
      .returning('slug')
      .executeTakeFirst()
    if (inserted) {
      slug = inserted.slug
      break
    }
  }
  if (slug === null) throw new Error(`no free username among ${cmd.usernameCandidates.length} candidates`)
  await trx
    .insertInto('users')
    .values({
      id: cmd.userId,
      email: cmd.email,
      email_verified: cmd.emailVerified,
      personal_workspace_id: cmd.workspaceId,
      username: slug,
      created_at: cmd.at,
    })
    .execute()
  await trx
    .insertInto('memberships')
    .values({ workspace_id: cmd.workspaceId, user_id: cmd.userId, role: 'owner', created_at: cmd.at })
    .execute()
  const user: PrincipalUser = { id: cmd.userId, email: cmd.email, emailVerified: cmd.emailVerified, username: slug }
  await insertAudit(trx, cmd.audit(user))
  return { user, personalWorkspaceId: cmd.workspaceId, created: true }
}

async function profile(db: Kysely<Database>, userId: string): Promise<ProfileRecord | null> {
  const row = await db
    .selectFrom('users as u')
    .innerJoin('workspaces as w', 'w.id', 'u.personal_workspace_id')
    .select(['u.id', 'u.email', 'u.email_verified', 'u.username', 'u.created_at', 'w.id as workspace_id', 'w.plan'])
    .where('u.id', '=', userId)
    .executeTakeFirst()
  if (!row) return null
  return {
    user: { id: row.id, email: row.email, emailVerified: row.email_verified, username: row.username },
    personalWorkspaceId: row.workspace_id,
    plan: row.plan,
    createdAt: row.created_at,
  }
}

/**
 * Renames the personal workspace (slug, and its name, which is the username); the user's
 * `username` follows through the cascading foreign key of migration 0001. The unique slug
 * decides a race: the second rename waits for the first to commit, then fails on the index.
 */
async function rename(db: Kysely<Database>, cmd: RenameUserCommand): ReturnType<AccountStore['rename']> {
  const ws = sql`UPDATE workspaces w SET slug = ${cmd.username}::text, name = ${cmd.username}::text
    FROM users u
    WHERE u.id = ${cmd.userId}::text AND w.id = u.personal_workspace_id AND ${credentialIsLive(cmd.guard.credentialId, cmd.guard.at)}
    RETURNING w.id`
  try {
    const { rows } = await sql<{ n: number }>`${withClauses([
      ['ws', ws],
      ['audit', auditFrom('ws', cmd.audit)],
    ])} SELECT count(*)::int AS n FROM ws`.execute(db)
    return rows[0]?.n === 1 ? { ok: true } : { ok: false, reason: 'refused' }
  } catch (error) {
    if (isUniqueViolation(error, 'workspaces_slug_key')) return { ok: false, reason: 'slug_taken' }
    throw error
  }
}

export function accountStore(db: Kysely<Database>): AccountStore {
  return {
    async ensureUser(cmd) {
      const existing = await findUser(db, cmd.email)
      if (existing) return { ...existing, created: false }
      try {
        return await db.transaction().execute((trx) => createUser(trx, cmd))
      } catch (error) {
        // Someone else created the user in between: use theirs.
        const raced = isUniqueViolation(error) ? await findUser(db, cmd.email) : null
        if (raced) return { ...raced, created: false }
        throw error
      }
    },
    profile: (userId) => profile(db, userId),
    rename: (cmd) => rename(db, cmd),
  }
}
