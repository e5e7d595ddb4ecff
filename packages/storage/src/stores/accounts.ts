import type { AccountStore, EnsureUserCommand, PrincipalUser, ProfileRecord, RenameUserCommand } from '@quire/core'
import { type Kysely, sql, type Transaction } from 'kysely'
import { auditFrom, insertAudit } from '../audit.ts'
import { isUniqueViolation } from '../pg-errors.ts'
import type { Database } from '../schema.ts'
import { credentialIsLive } from './guard.ts'
import { insertUser } from './users.ts'
import { withClauses } from './writes.ts'

/**
 * The user holding this email. A verified email is held by one user at most (migration 0005), and
 * only that user may answer for it: an unverified holder of the same address proves nothing.
 */
async function findUser(db: Kysely<Database> | Transaction<Database>, email: string, verified: boolean) {
  const row = await db
    .selectFrom('users')
    .select(['id', 'email', 'email_verified', 'username', 'personal_workspace_id'])
    .where('email', '=', email)
    .$if(verified, (q) => q.where('email_verified', '=', true))
    .orderBy('email_verified', 'desc')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst()
  if (!row) return null
  return {
    user: { id: row.id, email: row.email, emailVerified: row.email_verified, username: row.username } satisfies PrincipalUser,
    personalWorkspaceId: row.personal_workspace_id,
  }
}

async function createUser(trx: Transaction<Database>, cmd: EnsureUserCommand) {
  const created = await insertUser(trx, cmd)
  await insertAudit(trx, cmd.audit(created.user))
  return { ...created, created: true }
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
      // The unique index on verified emails decides a race; an unverified email has none, so two
      // concurrent ensures of one unverified address could make two users (the operator, its only
      // caller, vouches for the address: always verified).
      const existing = await findUser(db, cmd.email, cmd.emailVerified)
      if (existing) return { ...existing, created: false }
      try {
        return await db.transaction().execute((trx) => createUser(trx, cmd))
      } catch (error) {
        // Someone else created the user in between: use theirs.
        const raced = isUniqueViolation(error) ? await findUser(db, cmd.email, cmd.emailVerified) : null
        if (raced) return { ...raced, created: false }
        throw error
      }
    },
    profile: (userId) => profile(db, userId),
    rename: (cmd) => rename(db, cmd),
  }
}
