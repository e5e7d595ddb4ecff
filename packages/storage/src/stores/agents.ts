import type { AgentOwner, AgentStore, AgentTokenDraft, AuditEventDraft } from '@quire/core'
import { type Kysely, sql } from 'kysely'
import { insertAudit } from '../audit.ts'
import { isUniqueViolation } from '../pg-errors.ts'
import type { Row } from '../rows.ts'
import type { Database } from '../schema.ts'
import { listForUser, revokeAgent, revokeSelf, revokeToken, revokeTokensOf } from './agent-revocations.ts'
import { type Executor, ownerColumns, ownerFrom, reread, selectRegistration } from './agent-rows.ts'

/**
 * Agent registrations (the auth.md layer) and their tokens, which are credentials of kind `agent`.
 *
 * Every change that depends on a registration's state takes the registration's row first (an
 * UPDATE whose condition is that state, or a SELECT … FOR UPDATE), and only then touches its
 * tokens, in the same transaction as its event:
 *
 * - of two racing changes, the second waits for the first's row, then re-checks its condition
 *   against what the first committed (two redemptions of one claim token: exactly one wins);
 * - a confirmation or a revocation that waited for a token being issued revokes its tokens in a
 *   later statement (READ COMMITTED), and so sees that token too: no pre-claim token outlives the
 *   claim, and no token outlives the agent's revocation;
 * - the order is always registration, then tokens, so none of these deadlock.
 */

/**
 * The person whose VERIFIED email is this one (case-insensitively): only a verified address says
 * who someone is, and verified emails are unique (migration 0005), so there is at most one.
 */
async function ownerByEmail(db: Executor, email: string): Promise<AgentOwner | null> {
  const { rows } = await sql<Row>`SELECT ${ownerColumns} FROM users u WHERE u.email = lower(${email}::text) AND u.email_verified`.execute(
    db,
  )
  return rows[0] ? ownerFrom(rows[0]) : null
}

/** The event for the person a login hint names, when there is such a person (nobody else's trail hears of it). */
async function auditForHint(trx: Executor, loginHint: string | null, audit: ((owner: AgentOwner) => AuditEventDraft) | null) {
  if (loginHint === null || audit === null) return
  const owner = await ownerByEmail(trx, loginHint)
  if (owner !== null) await insertAudit(trx, audit(owner))
}

/** A user code collides with one still held: the caller draws another. */
const isCodeTaken = (error: unknown) => isUniqueViolation(error, 'agent_registrations_user_code')

async function createRegistration(db: Kysely<Database>, cmd: Parameters<AgentStore['createRegistration']>[0]) {
  try {
    await db.transaction().execute(async (trx) => {
      await sql`INSERT INTO agent_registrations (id, type, name, description, login_hint, pre_claim_scopes, post_claim_scopes, claim_token_hash, claim_expires_at,
          user_code_hash, user_code_expires_at, assertion_id_hash, poll_interval_seconds, created_at)
        VALUES (${cmd.id}::text, ${cmd.type}::text, ${cmd.name}::text, ${cmd.description}::text, lower(${cmd.loginHint}::text), ${[...cmd.preClaimScopes]}::text[],
          ${[...cmd.postClaimScopes]}::text[], ${cmd.claimTokenHash}::text, ${cmd.claimExpiresAt}::timestamptz,
          ${cmd.userCode?.hash ?? null}::text, ${cmd.userCode?.expiresAt ?? null}::timestamptz, ${cmd.assertionIdHash}::text,
          ${cmd.pollIntervalSeconds}::int, ${cmd.at}::timestamptz)`.execute(trx)
      await auditForHint(trx, cmd.loginHint, cmd.audit)
    })
    return { ok: true } as const
  } catch (error) {
    if (isCodeTaken(error)) return { ok: false, reason: 'code_taken' } as const
    throw error
  }
}

/**
 * A fresh code replaces the one held (if any) in the statement that checks the registration is
 * still claimable: the old code stops matching at once.
 */
async function startClaim(db: Kysely<Database>, cmd: Parameters<AgentStore['startClaim']>[0]) {
  try {
    return await db.transaction().execute(async (trx) => {
      const { rows } = await sql`UPDATE agent_registrations
        SET login_hint = lower(${cmd.loginHint}::text), user_code_hash = ${cmd.userCode.hash}::text,
          user_code_expires_at = ${cmd.userCode.expiresAt}::timestamptz
        WHERE id = ${cmd.registrationId}::text AND claimed_at IS NULL AND revoked_at IS NULL AND claim_expires_at > ${cmd.at}::timestamptz
        RETURNING id`.execute(trx)
      if (rows.length === 0) return { ok: false, reason: 'gone' } as const
      await auditForHint(trx, cmd.loginHint, cmd.audit)
      return { ok: true } as const
    })
  } catch (error) {
    if (isCodeTaken(error)) return { ok: false, reason: 'code_taken' } as const
    throw error
  }
}

/** Revokes every live token of an agent (pre-claim ones at a claim, all at a revocation); revoked ones keep their time. */
/**
 * The binding is one conditional UPDATE: the code is the one held and still live, the
 * registration unclaimed, unrevoked and inside its window, and the person's verified email is the
 * login hint. It ends the code and the pre-claim assertion; then (after the row is ours) every
 * pre-claim token is revoked, and the event written.
 */
async function confirmClaim(db: Kysely<Database>, cmd: Parameters<AgentStore['confirmClaim']>[0]) {
  return db.transaction().execute(async (trx) => {
    const { rows } = await sql<{ id: string }>`UPDATE agent_registrations r
      SET claimed_by = ${cmd.userId}::text, claimed_at = ${cmd.at}::timestamptz,
        user_code_hash = NULL, user_code_expires_at = NULL, assertion_id_hash = NULL
      WHERE r.user_code_hash = ${cmd.userCodeHash}::text AND r.user_code_expires_at > ${cmd.at}::timestamptz
        AND r.claimed_at IS NULL AND r.revoked_at IS NULL AND r.claim_expires_at > ${cmd.at}::timestamptz
        AND EXISTS (SELECT 1 FROM users u
          WHERE u.id = ${cmd.userId}::text AND u.email_verified AND lower(u.email) = lower(r.login_hint))
      RETURNING r.id`.execute(trx)
    const id = rows[0]?.id
    if (id === undefined) return { ok: false, reason: 'gone' } as const
    await revokeTokensOf(trx, id, cmd.at)
    const registration = await reread(trx, id)
    if (registration.claimedBy === null) throw new Error(`agent registration ${id} was claimed by no one`)
    await insertAudit(trx, cmd.audit(registration, registration.claimedBy))
    return { ok: true, registration } as const
  })
}

/**
 * A scope request (step-up) is one conditional UPDATE: the agent is claimed and not revoked. The
 * fresh code and the requested scopes replace any earlier request, whose code stops matching at
 * once; the event goes on the trail of the person who claimed the agent.
 */
async function startScopeRequest(db: Kysely<Database>, cmd: Parameters<AgentStore['startScopeRequest']>[0]) {
  try {
    return await db.transaction().execute(async (trx) => {
      const { rows } = await sql<{ id: string }>`UPDATE agent_registrations
        SET requested_scopes = ${[...cmd.scopes]}::text[], user_code_hash = ${cmd.userCode.hash}::text,
          user_code_expires_at = ${cmd.userCode.expiresAt}::timestamptz
        WHERE id = ${cmd.registrationId}::text AND claimed_at IS NOT NULL AND revoked_at IS NULL
        RETURNING id`.execute(trx)
      if (rows.length === 0) return { ok: false, reason: 'gone' } as const
      const registration = await reread(trx, cmd.registrationId)
      if (registration.claimedBy === null) throw new Error(`agent registration ${cmd.registrationId} was claimed by no one`)
      await insertAudit(trx, cmd.audit(registration, registration.claimedBy))
      return { ok: true } as const
    })
  } catch (error) {
    if (isCodeTaken(error)) return { ok: false, reason: 'code_taken' } as const
    throw error
  }
}

/**
 * The approval is one conditional UPDATE: the code is the one held and still live, the request
 * pending and exactly the one the person was shown, the agent not revoked, and the person the one
 * who claimed it. The added scopes follow the held ones (each once); the request and its code end.
 */
async function approveScopeRequest(db: Kysely<Database>, cmd: Parameters<AgentStore['approveScopeRequest']>[0]) {
  return db.transaction().execute(async (trx) => {
    const { rows } = await sql<{ id: string }>`UPDATE agent_registrations r
      SET post_claim_scopes = r.post_claim_scopes
          || ARRAY(SELECT s FROM unnest(r.requested_scopes) WITH ORDINALITY AS q(s, n) WHERE s <> ALL (r.post_claim_scopes) ORDER BY n),
        requested_scopes = NULL, user_code_hash = NULL, user_code_expires_at = NULL
      WHERE r.user_code_hash = ${cmd.userCodeHash}::text AND r.user_code_expires_at > ${cmd.at}::timestamptz
        AND r.requested_scopes = ${[...cmd.scopes]}::text[] AND r.claimed_by = ${cmd.userId}::text AND r.revoked_at IS NULL
      RETURNING r.id`.execute(trx)
    const id = rows[0]?.id
    if (id === undefined) return { ok: false, reason: 'gone' } as const
    const registration = await reread(trx, id)
    if (registration.claimedBy === null) throw new Error(`agent registration ${id} was claimed by no one`)
    await insertAudit(trx, cmd.audit(registration, registration.claimedBy))
    return { ok: true, registration } as const
  })
}

/**
 * One poll of the claim grant, under the registration's row lock: concurrent polls queue, and
 * each compares itself with the one before it. The interval grows by 5 s on every `slow_down`
 * (RFC 8628 §3.5), and every poll, early or not, becomes the previous one.
 */
async function recordPoll(db: Kysely<Database>, registrationId: string, at: Date): Promise<'ok' | 'slow_down'> {
  return db.transaction().execute(async (trx) => {
    const { rows } = await sql<{ slow: boolean }>`SELECT
        (last_polled_at IS NOT NULL AND last_polled_at + poll_interval_seconds * interval '1 second' > ${at}::timestamptz) AS slow
      FROM agent_registrations WHERE id = ${registrationId}::text FOR UPDATE`.execute(trx)
    const row = rows[0]
    if (!row) return 'ok'
    await sql`UPDATE agent_registrations
      SET last_polled_at = ${at}::timestamptz, poll_interval_seconds = poll_interval_seconds + ${row.slow ? 5 : 0}::int
      WHERE id = ${registrationId}::text`.execute(trx)
    return row.slow ? 'slow_down' : 'ok'
  })
}

/**
 * An agent token: a credential of kind `agent`, bound to the person once claimed (null before).
 * Its `name` is its agent's, so the read that authenticates it can label its events without a
 * join (an agent's name never changes).
 */
async function insertToken(trx: Executor, token: AgentTokenDraft, registrationId: string, userId: string | null, at: Date) {
  await sql`INSERT INTO credentials (id, kind, secret_hash, display_prefix, name, user_id, agent_id, scopes, expires_at, created_at)
    SELECT ${token.id}::text, 'agent', ${token.secretHash}::text, ${token.displayPrefix}::text, r.name, ${userId}::text,
      r.id, ${[...token.scopes]}::text[], ${token.expiresAt}::timestamptz, ${at}::timestamptz
    FROM agent_registrations r WHERE r.id = ${registrationId}::text`.execute(trx)
}

/**
 * The single use is the UPDATE's condition: of two concurrent redemptions, the second waits for
 * the first's row and then finds it redeemed. The same transaction stores the post-claim token and
 * makes the new assertion the only one that works.
 */
async function redeemClaim(db: Kysely<Database>, cmd: Parameters<AgentStore['redeemClaim']>[0]) {
  return db.transaction().execute(async (trx) => {
    const { rows } = await sql<{ id: string; claimed_by: string }>`UPDATE agent_registrations
      SET redeemed_at = ${cmd.at}::timestamptz, assertion_id_hash = ${cmd.assertionIdHash}::text
      WHERE claim_token_hash = ${cmd.claimTokenHash}::text AND claimed_at IS NOT NULL AND redeemed_at IS NULL AND revoked_at IS NULL
        AND claim_expires_at > ${cmd.at}::timestamptz
      RETURNING id, claimed_by`.execute(trx)
    const row = rows[0]
    if (!row) return { ok: false, reason: 'gone' } as const
    await insertToken(trx, cmd.token, row.id, row.claimed_by, cmd.at)
    const registration = await reread(trx, row.id)
    if (registration.claimedBy === null) throw new Error(`agent registration ${row.id} was claimed by no one`)
    await insertAudit(trx, cmd.audit(registration, registration.claimedBy))
    return { ok: true, registration } as const
  })
}

/**
 * A token for the live assertion, issued under the registration's row lock so that a claim or a
 * revocation either comes after it (and revokes it) or before it (and this finds the state gone).
 * An unclaimed agent's token carries no person and dies with the claim window; a claimed one's
 * is bound to the person who claimed it.
 */
async function exchangeAssertion(db: Kysely<Database>, cmd: Parameters<AgentStore['exchangeAssertion']>[0]) {
  const stage =
    cmd.stage === 'unclaimed' ? sql`r.claimed_at IS NULL AND r.claim_expires_at > ${cmd.at}::timestamptz` : sql`r.claimed_at IS NOT NULL`
  return db.transaction().execute(async (trx) => {
    const registration = await selectRegistration(
      trx,
      sql<boolean>`r.id = ${cmd.registrationId}::text AND r.assertion_id_hash = ${cmd.assertionIdHash}::text AND r.revoked_at IS NULL
        AND ${stage}`,
      true,
    )
    if (registration === null) return { ok: false, reason: 'gone' } as const
    const owner = cmd.stage === 'claimed' ? registration.claimedBy : null
    await insertToken(trx, cmd.token, registration.id, owner?.id ?? null, cmd.at)
    if (cmd.audit !== null && owner !== null) await insertAudit(trx, cmd.audit(registration, owner))
    return { ok: true, registration } as const
  })
}

export function agentStore(db: Kysely<Database>): AgentStore {
  return {
    createRegistration: (cmd) => createRegistration(db, cmd),
    findByClaimToken: (hash) => selectRegistration(db, sql<boolean>`r.claim_token_hash = ${hash}::text`),
    findByUserCode: (hash) => selectRegistration(db, sql<boolean>`r.user_code_hash = ${hash}::text`),
    findById: (id) => selectRegistration(db, sql<boolean>`r.id = ${id}::text`),
    startClaim: (cmd) => startClaim(db, cmd),
    confirmClaim: (cmd) => confirmClaim(db, cmd),
    startScopeRequest: (cmd) => startScopeRequest(db, cmd),
    approveScopeRequest: (cmd) => approveScopeRequest(db, cmd),
    recordPoll: (registrationId, at) => recordPoll(db, registrationId, at),
    redeemClaim: (cmd) => redeemClaim(db, cmd),
    exchangeAssertion: (cmd) => exchangeAssertion(db, cmd),
    revokeToken: (cmd) => revokeToken(db, cmd),
    listForUser: (userId, page) => listForUser(db, userId, page),
    revokeAgent: (cmd) => revokeAgent(db, cmd),
    revokeSelf: (cmd) => revokeSelf(db, cmd),
  }
}
