import type {
  AgentOwner,
  AgentRegistrationRecord,
  AgentStore,
  AgentSummaryRecord,
  AgentTokenDraft,
  AgentType,
  AuditEventDraft,
  PageRequest,
  Scope,
} from '@quire/core'
import { type Kysely, type RawBuilder, sql, type Transaction } from 'kysely'
import { insertAudit } from '../audit.ts'
import { isUniqueViolation } from '../pg-errors.ts'
import { date, maybeDate, type Row } from '../rows.ts'
import type { Database } from '../schema.ts'
import { pastCursor } from './paging.ts'

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

type Executor = Kysely<Database> | Transaction<Database>

/** The columns of the person who claimed the agent (`o_…`), from `users u`. */
const ownerColumns = sql.raw('u.id AS o_id, u.username AS o_username, u.email AS o_email, u.personal_workspace_id AS o_workspace_id')

function ownerFrom(row: Row): AgentOwner | null {
  if (row.o_id === null || row.o_id === undefined) return null
  return {
    id: row.o_id as string,
    username: row.o_username as string,
    email: row.o_email as string,
    personalWorkspaceId: row.o_workspace_id as string,
  }
}

/** A registration row (`r.*` and its owner's columns) as the port sees it: no secret hash comes out. */
function registrationFrom(row: Row): AgentRegistrationRecord {
  return {
    id: row.id as string,
    type: row.type as AgentType,
    name: row.name as string,
    description: (row.description as string | null) ?? null,
    loginHint: (row.login_hint as string | null) ?? null,
    preClaimScopes: (row.pre_claim_scopes as Scope[] | null) ?? [],
    postClaimScopes: (row.post_claim_scopes as Scope[] | null) ?? [],
    claimExpiresAt: date(row.claim_expires_at),
    requestedScopes: (row.requested_scopes as Scope[] | null) ?? null,
    userCodeExpiresAt: maybeDate(row.user_code_expires_at),
    pollIntervalSeconds: Number(row.poll_interval_seconds),
    lastPolledAt: maybeDate(row.last_polled_at),
    claimedBy: ownerFrom(row),
    claimedAt: maybeDate(row.claimed_at),
    redeemedAt: maybeDate(row.redeemed_at),
    revokedAt: maybeDate(row.revoked_at),
    createdAt: date(row.created_at),
  }
}

/** The registration matching `where` (over `r`), with the person who claimed it; locked for this transaction when asked. */
async function selectRegistration(db: Executor, where: RawBuilder<boolean>, lock = false): Promise<AgentRegistrationRecord | null> {
  const { rows } = await sql<Row>`SELECT r.*, ${ownerColumns}
    FROM agent_registrations r LEFT JOIN users u ON u.id = r.claimed_by
    WHERE ${where} ${lock ? sql`FOR UPDATE OF r` : sql``}`.execute(db)
  return rows[0] ? registrationFrom(rows[0]) : null
}

/** The registration with this id, which the caller has just changed and so knows exists. */
async function reread(trx: Executor, registrationId: string): Promise<AgentRegistrationRecord> {
  const registration = await selectRegistration(trx, sql<boolean>`r.id = ${registrationId}::text`)
  if (registration === null) throw new Error(`agent registration ${registrationId} vanished inside its own transaction`)
  return registration
}

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
async function revokeTokensOf(trx: Executor, registrationId: string, at: Date): Promise<void> {
  await sql`UPDATE credentials SET revoked_at = ${at}::timestamptz
    WHERE agent_id = ${registrationId}::text AND kind = 'agent' AND revoked_at IS NULL`.execute(trx)
}

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

/**
 * RFC 7009: the live agent token with this hash is revoked; anything else (unknown, another kind,
 * revoked or expired already) changes nothing and writes nothing.
 */
async function revokeToken(db: Kysely<Database>, cmd: Parameters<AgentStore['revokeToken']>[0]): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const { rows } = await sql<{ id: string; agent_id: string | null }>`UPDATE credentials SET revoked_at = ${cmd.at}::timestamptz
      WHERE secret_hash = ${cmd.secretHash}::text AND kind = 'agent' AND revoked_at IS NULL
        AND (expires_at IS NULL OR expires_at > ${cmd.at}::timestamptz)
      RETURNING id, agent_id`.execute(trx)
    const token = rows[0]
    if (!token || token.agent_id === null) return
    const registration = await selectRegistration(trx, sql<boolean>`r.id = ${token.agent_id}::text`)
    if (registration === null) return
    const draft = cmd.audit(registration, registration.claimedBy, token.id)
    if (draft !== null) await insertAudit(trx, draft)
  })
}

function summaryFrom(row: Row): AgentSummaryRecord {
  return {
    id: row.id as string,
    type: row.type as AgentType,
    name: row.name as string,
    description: (row.description as string | null) ?? null,
    scopes: (row.post_claim_scopes as Scope[] | null) ?? [],
    createdAt: date(row.created_at),
    claimedAt: date(row.claimed_at),
    lastUsedAt: maybeDate(row.last_used_at),
    revokedAt: maybeDate(row.revoked_at),
    scopeRequest:
      row.requested_scopes === null || row.requested_scopes === undefined || row.user_code_expires_at === null
        ? null
        : { scopes: row.requested_scopes as Scope[], expiresAt: date(row.user_code_expires_at) },
  }
}

/** Claimed agents matching `where` (over `r`), newest first, each with the latest use of any of its tokens. */
async function summaries(db: Executor, where: RawBuilder<boolean>, limit: number): Promise<AgentSummaryRecord[]> {
  const { rows } = await sql<Row>`SELECT r.id, r.type, r.name, r.description, r.post_claim_scopes, r.created_at, r.claimed_at, r.revoked_at,
      r.requested_scopes, r.user_code_expires_at,
      (SELECT max(c.last_used_at) FROM credentials c WHERE c.agent_id = r.id AND c.kind = 'agent') AS last_used_at
    FROM agent_registrations r
    WHERE r.claimed_by IS NOT NULL AND ${where}
    ORDER BY r.id DESC LIMIT ${limit}::int`.execute(db)
  return rows.map(summaryFrom)
}

function listForUser(db: Kysely<Database>, userId: string, page: PageRequest): Promise<AgentSummaryRecord[]> {
  return summaries(db, sql<boolean>`r.claimed_by = ${userId}::text AND ${pastCursor('r.id', page.after)}`, page.limit + 1)
}

/**
 * Sets `revoked_at` once (the UPDATE's condition), then revokes every token of the agent and
 * writes the event; a call that found it revoked already changes nothing and writes nothing.
 */
async function revokeAgent(db: Kysely<Database>, cmd: Parameters<AgentStore['revokeAgent']>[0]) {
  return db.transaction().execute(async (trx) => {
    const { rows } = await sql`UPDATE agent_registrations SET revoked_at = ${cmd.at}::timestamptz
      WHERE id = ${cmd.registrationId}::text AND claimed_by = ${cmd.userId}::text AND revoked_at IS NULL
      RETURNING id`.execute(trx)
    if (rows.length > 0) {
      await revokeTokensOf(trx, cmd.registrationId, cmd.at)
      await insertAudit(trx, cmd.audit)
    }
    const [agent] = await summaries(trx, sql<boolean>`r.id = ${cmd.registrationId}::text AND r.claimed_by = ${cmd.userId}::text`, 1)
    return agent ? ({ ok: true, agent } as const) : ({ ok: false, reason: 'not_found' } as const)
  })
}

/**
 * An agent ends its own registration: one conditional UPDATE sets `revoked_at` on the live
 * registration holding the credential (a live token of it, or its current assertion: an unclaimed
 * agent's only inside its claim window), then every token of it is revoked and the event written,
 * in the same transaction. A second call finds nothing and writes nothing.
 */
async function revokeSelf(db: Kysely<Database>, cmd: Parameters<AgentStore['revokeSelf']>[0]) {
  const { credential, at } = cmd
  return db.transaction().execute(async (trx) => {
    const { rows } =
      credential.kind === 'token'
        ? await sql<{ id: string; token_id: string | null }>`UPDATE agent_registrations r SET revoked_at = ${at}::timestamptz
            FROM credentials c
            WHERE c.secret_hash = ${credential.secretHash}::text AND c.kind = 'agent' AND c.revoked_at IS NULL
              AND (c.expires_at IS NULL OR c.expires_at > ${at}::timestamptz)
              AND r.id = c.agent_id AND r.revoked_at IS NULL
            RETURNING r.id, c.id AS token_id`.execute(trx)
        : await sql<{ id: string; token_id: string | null }>`UPDATE agent_registrations SET revoked_at = ${at}::timestamptz
            WHERE id = ${credential.registrationId}::text AND assertion_id_hash = ${credential.assertionIdHash}::text
              AND revoked_at IS NULL AND (claimed_at IS NOT NULL OR claim_expires_at > ${at}::timestamptz)
            RETURNING id, NULL::text AS token_id`.execute(trx)
    const row = rows[0]
    if (!row) return { ok: false, reason: 'gone' } as const
    await revokeTokensOf(trx, row.id, at)
    const registration = await reread(trx, row.id)
    const draft = cmd.audit(registration, registration.claimedBy, row.token_id)
    if (draft !== null) await insertAudit(trx, draft)
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
