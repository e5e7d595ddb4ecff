import type { AccountStore, ApiKeyStore, CreateApiKeyCommand, EnsureUserCommand, PrincipalUser } from '@quire/core'
import type { Kysely, Transaction } from 'kysely'
import { insertAudit } from '../audit.ts'
import { isUniqueViolation } from '../pg-errors.ts'
import type { Database } from '../schema.ts'

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
  }
}

export function apiKeyStore(db: Kysely<Database>): ApiKeyStore {
  return {
    async create(cmd: CreateApiKeyCommand) {
      await db.transaction().execute(async (trx) => {
        await trx
          .insertInto('credentials')
          .values({
            id: cmd.id,
            kind: 'api_key',
            secret_hash: cmd.secretHash,
            display_prefix: cmd.displayPrefix,
            name: cmd.name,
            user_id: cmd.userId,
            agent_id: null,
            artifact_id: null,
            role: null,
            scopes: [...cmd.scopes],
            audience: null,
            expires_at: cmd.expiresAt,
            revoked_at: null,
            last_used_at: null,
            created_at: cmd.at,
          })
          .execute()
        await insertAudit(trx, cmd.audit)
      })
    },
  }
}
