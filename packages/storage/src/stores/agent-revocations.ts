import type { AgentStore, AgentSummaryRecord, AgentType, PageRequest, Scope } from '@quire/core'
import { type Kysely, type RawBuilder, sql } from 'kysely'
import { insertAudit } from '../audit.ts'
import { date, maybeDate, type Row } from '../rows.ts'
import type { Database } from '../schema.ts'
import { type Executor, reread, selectRegistration } from './agent-rows.ts'
import { pastCursor } from './paging.ts'

/**
 * A person's agents, and the ends of agents and their tokens: the list at /settings/agents, a
 * token revoked (RFC 7009), an agent revoked by its person or by itself. Each end takes the
 * registration's row before its tokens, as every change in `agents.ts` does.
 */

/** Revokes every live token of the agent (after its registration's row is taken). */
export async function revokeTokensOf(trx: Executor, registrationId: string, at: Date): Promise<void> {
  await sql`UPDATE credentials SET revoked_at = ${at}::timestamptz
    WHERE agent_id = ${registrationId}::text AND kind = 'agent' AND revoked_at IS NULL`.execute(trx)
}

/**
 * RFC 7009: the live agent token with this hash is revoked; anything else (unknown, another kind,
 * revoked or expired already) changes nothing and writes nothing.
 */
export async function revokeToken(db: Kysely<Database>, cmd: Parameters<AgentStore['revokeToken']>[0]): Promise<void> {
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

export function listForUser(db: Kysely<Database>, userId: string, page: PageRequest): Promise<AgentSummaryRecord[]> {
  return summaries(db, sql<boolean>`r.claimed_by = ${userId}::text AND ${pastCursor('r.id', page.after)}`, page.limit + 1)
}

/**
 * Sets `revoked_at` once (the UPDATE's condition), then revokes every token of the agent and
 * writes the event; a call that found it revoked already changes nothing and writes nothing.
 */
export async function revokeAgent(db: Kysely<Database>, cmd: Parameters<AgentStore['revokeAgent']>[0]) {
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
export async function revokeSelf(db: Kysely<Database>, cmd: Parameters<AgentStore['revokeSelf']>[0]) {
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
