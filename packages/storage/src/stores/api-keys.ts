import type { ApiKeyRecord, ApiKeyStore, CreateApiKeyCommand, PageRequest, RevokeApiKeyCommand, Scope } from '@quire/core'
import { type Kysely, sql } from 'kysely'
import { auditFrom } from '../audit.ts'
import { isUniqueViolation } from '../pg-errors.ts'
import { date, maybeDate, type Row } from '../rows.ts'
import type { Database } from '../schema.ts'
import { credentialIsLive } from './guard.ts'
import { pastCursor } from './paging.ts'
import { idempotencyFrom, withClauses } from './writes.ts'

const keyColumns = (k: string) =>
  sql.raw(`${k}.id AS k_id, ${k}.name AS k_name, ${k}.display_prefix AS k_display_prefix, ${k}.scopes AS k_scopes,
  ${k}.created_at AS k_created_at, ${k}.last_used_at AS k_last_used_at, ${k}.expires_at AS k_expires_at, ${k}.revoked_at AS k_revoked_at`)

function apiKeyFrom(row: Row): ApiKeyRecord | null {
  if (row.k_id === null || row.k_id === undefined) return null
  return {
    id: row.k_id as string,
    name: row.k_name as string,
    displayPrefix: row.k_display_prefix as string,
    scopes: (row.k_scopes as Scope[] | null) ?? [],
    createdAt: date(row.k_created_at),
    lastUsedAt: maybeDate(row.k_last_used_at),
    expiresAt: maybeDate(row.k_expires_at),
    revokedAt: maybeDate(row.k_revoked_at),
  }
}

/** The key (a credential row, recording who made it), its audit event and idempotency record: one statement, while the guard holds. */
async function create(db: Kysely<Database>, cmd: CreateApiKeyCommand): ReturnType<ApiKeyStore['create']> {
  const by = cmd.audit.actor
  const key = sql`INSERT INTO credentials (id, kind, secret_hash, display_prefix, name, user_id, scopes, expires_at, created_at,
      created_by_kind, created_by_id, created_by_label)
    SELECT ${cmd.id}::text, 'api_key', ${cmd.secretHash}::text, ${cmd.displayPrefix}::text, ${cmd.name}::text, ${cmd.userId}::text,
      ${[...cmd.scopes]}::text[], ${cmd.expiresAt}::timestamptz, ${cmd.at}::timestamptz, ${by.kind}::text, ${by.id}::text, ${by.label}::text
    WHERE ${credentialIsLive(cmd.guard.credentialId, cmd.guard.at)}
    RETURNING id`
  try {
    const { rows } = await sql<{ n: number }>`${withClauses([
      ['key', key],
      ['audit', auditFrom('key', cmd.audit)],
      ['idem', idempotencyFrom('key', cmd.idempotency)],
    ])} SELECT count(*)::int AS n FROM key`.execute(db)
    return rows[0]?.n === 1 ? { ok: true } : { ok: false, reason: 'refused' }
  } catch (error) {
    if (isUniqueViolation(error, 'idempotency_keys_pkey')) return { ok: false, reason: 'idempotency_taken' }
    throw error
  }
}

async function listForUser(db: Kysely<Database>, userId: string, page: PageRequest): Promise<ApiKeyRecord[]> {
  const { rows } = await sql<Row>`SELECT ${keyColumns('k')} FROM credentials k
    WHERE k.user_id = ${userId}::text AND k.kind = 'api_key' AND k.revoked_at IS NULL
      AND ${pastCursor('k.id', page.after)}
    ORDER BY k.id DESC LIMIT ${page.limit + 1}::int`.execute(db)
  return rows.flatMap((r) => {
    const key = apiKeyFrom(r)
    return key ? [key] : []
  })
}

async function find(db: Kysely<Database>, userId: string, keyId: string): Promise<ApiKeyRecord | null> {
  const { rows } = await sql<Row>`SELECT ${keyColumns('k')} FROM credentials k
    WHERE k.id = ${keyId}::text AND k.user_id = ${userId}::text AND k.kind = 'api_key'`.execute(db)
  return apiKeyFrom(rows[0] ?? {})
}

/**
 * Sets `revoked_at` once, while the guard holds; the event is written only by the call that
 * revoked it. The revoked row comes back from the statement; any other outcome reads the key.
 */
async function revoke(db: Kysely<Database>, cmd: RevokeApiKeyCommand): ReturnType<ApiKeyStore['revoke']> {
  const live = sql`SELECT 1 AS live WHERE ${credentialIsLive(cmd.guard.credentialId, cmd.guard.at)}`
  const rev = sql`UPDATE credentials SET revoked_at = ${cmd.guard.at}::timestamptz
    WHERE id = ${cmd.keyId}::text AND user_id = ${cmd.userId}::text AND kind = 'api_key' AND revoked_at IS NULL
      AND EXISTS (SELECT 1 FROM live)
    RETURNING *`
  const { rows } = await sql<Row>`${withClauses([
    ['live', live],
    ['rev', rev],
    ['audit', auditFrom('rev', cmd.audit)],
  ])} SELECT (SELECT count(*)::int FROM live) AS admitted, ${keyColumns('rev')} FROM (SELECT 1) AS one LEFT JOIN rev ON true`.execute(db)
  const revoked = apiKeyFrom(rows[0] ?? {})
  if (revoked) return { ok: true, key: revoked, changed: true }
  const key = await find(db, cmd.userId, cmd.keyId)
  if (key === null) return { ok: false, reason: 'gone' }
  if (rows[0]?.admitted !== 1) return { ok: false, reason: 'refused' }
  // Admitted, yet not changed by this call: it was revoked already (maybe a moment ago, by a racing
  // call), or it did not exist yet when the statement ran.
  return key.revokedAt === null ? { ok: false, reason: 'gone' } : { ok: true, key, changed: false }
}

export function apiKeyStore(db: Kysely<Database>): ApiKeyStore {
  return {
    create: (cmd) => create(db, cmd),
    listForUser: (userId, page) => listForUser(db, userId, page),
    find: (userId, keyId) => find(db, userId, keyId),
    revoke: (cmd) => revoke(db, cmd),
  }
}
