import type { AgentOwner, AgentRegistrationRecord, AgentType, Scope } from '@quire/core'
import { type Kysely, type RawBuilder, sql, type Transaction } from 'kysely'
import { date, maybeDate, type Row } from '../rows.ts'
import type { Database } from '../schema.ts'

/** How agent registrations are read, for the stores that change them (`agents.ts`, `agent-revocations.ts`). */

export type Executor = Kysely<Database> | Transaction<Database>

/** The columns of the person who claimed the agent (`o_…`), from `users u`. */
export const ownerColumns = sql.raw('u.id AS o_id, u.username AS o_username, u.email AS o_email, u.personal_workspace_id AS o_workspace_id')

export function ownerFrom(row: Row): AgentOwner | null {
  if (row.o_id === null || row.o_id === undefined) return null
  return {
    id: row.o_id as string,
    username: row.o_username as string,
    email: row.o_email as string,
    personalWorkspaceId: row.o_workspace_id as string,
  }
}

/** A registration row (`r.*` and its owner's columns) as the port sees it: no secret hash comes out. */
export function registrationFrom(row: Row): AgentRegistrationRecord {
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
export async function selectRegistration(db: Executor, where: RawBuilder<boolean>, lock = false): Promise<AgentRegistrationRecord | null> {
  const { rows } = await sql<Row>`SELECT r.*, ${ownerColumns}
    FROM agent_registrations r LEFT JOIN users u ON u.id = r.claimed_by
    WHERE ${where} ${lock ? sql`FOR UPDATE OF r` : sql``}`.execute(db)
  return rows[0] ? registrationFrom(rows[0]) : null
}

/** The registration with this id, which the caller has just changed and so knows exists. */
export async function reread(trx: Executor, registrationId: string): Promise<AgentRegistrationRecord> {
  const registration = await selectRegistration(trx, sql<boolean>`r.id = ${registrationId}::text`)
  if (registration === null) throw new Error(`agent registration ${registrationId} vanished inside its own transaction`)
  return registration
}
