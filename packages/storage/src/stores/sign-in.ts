import {
  type AuditEventDraft,
  type CreateSessionCommand,
  type PrincipalUser,
  type ResolveOidcUserCommand,
  type SignInStore,
  secretPrefixes,
} from '@quire/core'
import { type Kysely, sql, type Transaction } from 'kysely'
import { auditFrom, insertAudit } from '../audit.ts'
import { isUniqueViolation } from '../pg-errors.ts'
import type { Row } from '../rows.ts'
import type { Database } from '../schema.ts'
import { insertUser } from './users.ts'
import { withClauses } from './writes.ts'

type Resolved = { readonly user: PrincipalUser; readonly created: boolean }

const userFrom = (row: Row): PrincipalUser => ({
  id: row.id as string,
  email: row.email as string,
  emailVerified: row.email_verified === true,
  username: row.username as string,
})

/**
 * The user linked to (issuer, subject), whose stored email and its verification become the
 * provider's latest word, in the statement that finds them. Except when that email is verified
 * and already belongs to another user (verified emails are unique): two accounts cannot be merged
 * here, and neither may take the address from the other, so the user keeps the old address. It
 * is then marked unverified: the provider no longer vouches for it (the person has moved to
 * another address there), and a verified email is what invitations and viewer emails trust.
 */
async function findBySubject(trx: Transaction<Database>, cmd: ResolveOidcUserCommand): Promise<PrincipalUser | null> {
  const { issuer, subject, email, emailVerified } = cmd.identity
  const { rows } = await sql<Row>`WITH linked AS (
      SELECT user_id FROM user_identities WHERE issuer = ${issuer}::text AND subject = ${subject}::text
    ), taken AS (
      SELECT ${emailVerified}::boolean AND EXISTS (SELECT 1 FROM users o, linked
        WHERE o.email = ${email}::text AND o.email_verified AND o.id <> linked.user_id) AS taken
    )
    UPDATE users u SET
      email = CASE WHEN taken.taken THEN u.email ELSE ${email}::text END,
      email_verified = CASE WHEN taken.taken THEN false ELSE ${emailVerified}::boolean END
    FROM linked, taken
    WHERE u.id = linked.user_id
    RETURNING u.id, u.email, u.email_verified, u.username`.execute(trx)
  return rows[0] ? userFrom(rows[0]) : null
}

async function link(trx: Transaction<Database>, cmd: ResolveOidcUserCommand, userId: string): Promise<void> {
  await trx
    .insertInto('user_identities')
    .values({ issuer: cmd.identity.issuer, subject: cmd.identity.subject, user_id: userId, created_at: cmd.at })
    .execute()
}

/** The user holding this email, verified, when the provider says it is verified too: linked now. */
async function linkByVerifiedEmail(trx: Transaction<Database>, cmd: ResolveOidcUserCommand): Promise<PrincipalUser | null> {
  if (!cmd.identity.emailVerified) return null
  const row = await trx
    .selectFrom('users')
    .select(['id', 'email', 'email_verified', 'username'])
    .where('email', '=', cmd.identity.email)
    .where('email_verified', '=', true)
    .executeTakeFirst()
  if (!row) return null
  await link(trx, cmd, row.id)
  const user = userFrom(row)
  await insertAudit(trx, cmd.linkAudit(user))
  return user
}

async function createLinkedUser(trx: Transaction<Database>, cmd: ResolveOidcUserCommand): Promise<PrincipalUser> {
  const { user, personalWorkspaceId } = await insertUser(trx, {
    email: cmd.identity.email,
    emailVerified: cmd.identity.emailVerified,
    usernameCandidates: cmd.usernameCandidates,
    userId: cmd.userId,
    workspaceId: cmd.workspaceId,
    at: cmd.at,
  })
  await link(trx, cmd, user.id)
  await insertAudit(trx, cmd.audit(user, personalWorkspaceId))
  return user
}

async function resolveOnce(trx: Transaction<Database>, cmd: ResolveOidcUserCommand): Promise<Resolved> {
  const known = (await findBySubject(trx, cmd)) ?? (await linkByVerifiedEmail(trx, cmd))
  if (known) return { user: known, created: false }
  return { user: await createLinkedUser(trx, cmd), created: true }
}

/** A lost race costs a re-read; three losses in a row are not a race any more. */
const ATTEMPTS = 3

async function resolveOidcUser(db: Kysely<Database>, cmd: ResolveOidcUserCommand): Promise<Resolved> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute((trx) => resolveOnce(trx, cmd))
    } catch (error) {
      // A concurrent sign-in of the same person linked the identity (or created the user, or took
      // the verified email) first and rolled this attempt back: its commit is visible now, so the
      // next attempt finds what it made.
      if (!isUniqueViolation(error) || attempt === ATTEMPTS) throw error
    }
  }
}

/** The port hands over no display prefix: a session is never listed, so its kind's prefix stands in. */
async function createSession(db: Kysely<Database>, cmd: CreateSessionCommand): Promise<void> {
  const session = sql`INSERT INTO credentials (id, kind, secret_hash, display_prefix, name, user_id, expires_at, created_at)
    VALUES (${cmd.id}::text, 'session', ${cmd.secretHash}::text, ${secretPrefixes.session}::text, '', ${cmd.userId}::text,
      ${cmd.expiresAt}::timestamptz, ${cmd.at}::timestamptz)
    RETURNING id`
  await sql`${withClauses([
    ['session', session],
    ['audit', auditFrom('session', cmd.audit)],
  ])} SELECT 1`.execute(db)
}

/** The event is written exactly when a live session ended, in the same statement. */
async function endSession(db: Kysely<Database>, secretHash: string, at: Date, audit: AuditEventDraft): Promise<void> {
  const ended = sql`UPDATE credentials SET revoked_at = ${at}::timestamptz
    WHERE secret_hash = ${secretHash}::text AND kind = 'session' AND revoked_at IS NULL
    RETURNING id`
  await sql`${withClauses([
    ['ended', ended],
    ['audit', auditFrom('ended', audit)],
  ])} SELECT 1`.execute(db)
}

export function signInStore(db: Kysely<Database>): SignInStore {
  return {
    resolveOidcUser: (cmd) => resolveOidcUser(db, cmd),
    createSession: (cmd) => createSession(db, cmd),
    endSession: (secretHash, at, audit) => endSession(db, secretHash, at, audit),
  }
}
