import type {
  AuditEventDraft,
  AuthorizationCodeRecord,
  ConsumeCodeOutcome,
  GrantAudit,
  GrantChange,
  OAuthClientRecord,
  OAuthStore,
  RotateOutcome,
  Scope,
  TokenPairDraft,
} from '@quire/core'
import { type Kysely, sql, type Transaction } from 'kysely'
import { auditFrom, insertAudit } from '../audit.ts'
import { date, type Row } from '../rows.ts'
import type { Database } from '../schema.ts'
import { withClauses } from './writes.ts'

/**
 * The authorization server's state. Every token descends from one authorization, its family
 * (`oauth_token_families`, created when the code is exchanged), and every change to a family's
 * tokens locks the family's row before it reads or writes them:
 *
 * - the locks are always taken in one order (family, then its tokens), so no two changes deadlock;
 * - a revocation that waited for a rotation in flight reads the family's tokens afterwards, in a
 *   fresh statement (READ COMMITTED), and so revokes the pair that rotation just made;
 * - tokens issued into a family revoked a moment before (a code reused while its first exchange
 *   was still issuing) are born revoked.
 */

type Executor = Kysely<Database> | Transaction<Database>
type Previous = Extract<RotateOutcome, { ok: true }>['previous']

function clientFrom(row: Row): OAuthClientRecord {
  return {
    id: row.id as string,
    name: row.name as string,
    redirectUris: (row.redirect_uris as string[] | null) ?? [],
    createdAt: date(row.created_at),
  }
}

function codeFrom(row: Row): AuthorizationCodeRecord {
  return {
    codeHash: row.code_hash as string,
    clientId: row.client_id as string,
    userId: row.user_id as string,
    redirectUri: row.redirect_uri as string,
    codeChallenge: row.code_challenge as string,
    scopes: (row.scopes as Scope[] | null) ?? [],
    resource: row.resource as string,
    expiresAt: date(row.expires_at),
    createdAt: date(row.created_at),
  }
}

async function registerClient(db: Kysely<Database>, client: OAuthClientRecord, audit: AuditEventDraft | null): Promise<void> {
  const inserted = sql`INSERT INTO oauth_clients (id, name, redirect_uris, created_at)
    VALUES (${client.id}::text, ${client.name}::text, ${[...client.redirectUris]}::text[], ${client.createdAt}::timestamptz)
    RETURNING id`
  await sql`${withClauses([
    ['client', inserted],
    ['audit', audit === null ? null : auditFrom('client', audit)],
  ])} SELECT 1`.execute(db)
}

async function findClient(db: Kysely<Database>, clientId: string): Promise<OAuthClientRecord | null> {
  const row = await db.selectFrom('oauth_clients').selectAll().where('id', '=', clientId).executeTakeFirst()
  return row ? clientFrom(row) : null
}

async function saveCode(db: Kysely<Database>, code: AuthorizationCodeRecord): Promise<void> {
  await db
    .insertInto('oauth_codes')
    .values({
      code_hash: code.codeHash,
      client_id: code.clientId,
      user_id: code.userId,
      redirect_uri: code.redirectUri,
      code_challenge: code.codeChallenge,
      scopes: [...code.scopes],
      resource: code.resource,
      expires_at: code.expiresAt,
      created_at: code.createdAt,
    })
    .execute()
}

type GrantOwner = Pick<GrantChange, 'familyId' | 'clientId' | 'user'>

/**
 * Locks a family's row (waiting for any change to it in flight, and holding off the next one) and
 * says whose grant it is and whether it is revoked already. With `lock: false`, only reads.
 */
async function lockFamily(
  trx: Transaction<Database>,
  familyId: string,
  lock = true,
): Promise<{ owner: GrantOwner; revokedAt: Date | null } | null> {
  const { rows } = await sql<Row>`SELECT f.revoked_at, f.client_id, u.id AS user_id, u.username, u.personal_workspace_id
    FROM oauth_token_families f JOIN users u ON u.id = f.user_id
    WHERE f.id = ${familyId}::text ${lock ? sql`FOR UPDATE OF f` : sql``}`.execute(trx)
  const row = rows[0]
  if (!row) return null
  return {
    owner: {
      familyId,
      clientId: row.client_id as string,
      user: { id: row.user_id as string, username: row.username as string, personalWorkspaceId: row.personal_workspace_id as string },
    },
    revokedAt: row.revoked_at === null ? null : date(row.revoked_at),
  }
}

/**
 * Revokes every token of a family: its row first (lockFamily), then, in a fresh statement that
 * sees what a change that held the lock before committed, its access and refresh tokens. Tokens
 * revoked before keep their time. Writes the event, from `change`, only when the family was live.
 */
async function revokeFamily(trx: Transaction<Database>, familyId: string, at: Date, audit: GrantAudit, change: GrantChange['change']) {
  const family = await lockFamily(trx, familyId)
  if (family === null) return
  await sql`UPDATE oauth_token_families SET revoked_at = coalesce(revoked_at, ${at}::timestamptz) WHERE id = ${familyId}::text`.execute(trx)
  const access = sql`UPDATE credentials SET revoked_at = ${at}::timestamptz
    WHERE family_id = ${familyId}::text AND kind = 'oauth' AND revoked_at IS NULL`
  await sql`${withClauses([['access', access]])}
    UPDATE oauth_refresh_tokens SET revoked_at = ${at}::timestamptz WHERE family_id = ${familyId}::text AND revoked_at IS NULL`.execute(trx)
  if (family.revokedAt === null) await insertAudit(trx, audit({ ...family.owner, change }))
}

/**
 * The single use is the UPDATE's condition: of two concurrent exchanges, the second waits for the
 * first's row and then finds it used. The same statement creates the family the exchange will
 * issue into, so that a reuse has something to revoke even before the first exchange's tokens
 * exist. An expired code is never marked used.
 */
async function consumeCode(db: Kysely<Database>, cmd: Parameters<OAuthStore['consumeCode']>[0]): Promise<ConsumeCodeOutcome> {
  const { presented, at, familyId, audit } = cmd
  const used = sql`UPDATE oauth_codes SET used_at = ${at}::timestamptz, family_id = ${familyId}::text
    WHERE code_hash = ${presented.codeHash}::text AND used_at IS NULL AND expires_at > ${at}::timestamptz
      AND client_id = ${presented.clientId}::text AND redirect_uri = ${presented.redirectUri}::text
      AND code_challenge = ${presented.codeChallenge}::text
    RETURNING *`
  const family = sql`INSERT INTO oauth_token_families (id, client_id, user_id, created_at)
    SELECT family_id, client_id, user_id, used_at FROM used`
  const { rows } = await sql<Row>`${withClauses([
    ['used', used],
    ['family', family],
  ])} SELECT * FROM used`.execute(db)
  if (rows[0]) return { ok: true, code: codeFrom(rows[0]) }
  return db.transaction().execute(async (trx): Promise<ConsumeCodeOutcome> => {
    const code = await trx.selectFrom('oauth_codes').selectAll().where('code_hash', '=', presented.codeHash).executeTakeFirst()
    if (!code) return { ok: false, reason: 'unknown' }
    if (code.family_id !== null) {
      // RFC 6749 §4.1.2: a code presented twice may have been stolen; the tokens of its first
      // exchange are revoked (and, if that exchange is still issuing them, they are born revoked).
      await revokeFamily(trx, code.family_id, at, audit, { kind: 'reuse_detected', presented: 'code' })
      return { ok: false, reason: 'reused' }
    }
    if (code.expires_at.getTime() <= at.getTime()) return { ok: false, reason: 'expired' }
    if (code.client_id !== presented.clientId) return { ok: false, reason: 'mismatch', field: 'client_id' }
    if (code.redirect_uri !== presented.redirectUri) return { ok: false, reason: 'mismatch', field: 'redirect_uri' }
    return { ok: false, reason: 'mismatch', field: 'code_verifier' }
  })
}

/**
 * Takes the family's lock for issuing into it (creating it when no code exchange did) and tells
 * whether it is revoked.
 */
async function lockFamilyForIssue(trx: Transaction<Database>, pair: TokenPairDraft): Promise<Date | null> {
  await trx
    .insertInto('oauth_token_families')
    .values({ id: pair.familyId, client_id: pair.clientId, user_id: pair.userId, created_at: pair.at })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute()
  const family = await trx
    .selectFrom('oauth_token_families')
    .select('revoked_at')
    .where('id', '=', pair.familyId)
    .forUpdate()
    .executeTakeFirstOrThrow()
  return family.revoked_at
}

/** The access token (a credential of kind `oauth`, bound to the resource) and its refresh token, with the event: one statement. */
async function insertPair(trx: Executor, pair: TokenPairDraft, revokedAt: Date | null, audit: AuditEventDraft | null): Promise<void> {
  const scopes = [...pair.scopes]
  const access = sql`INSERT INTO credentials (id, kind, secret_hash, display_prefix, name, user_id, scopes, audience, expires_at,
      revoked_at, created_at, client_id, family_id)
    VALUES (${pair.access.id}::text, 'oauth', ${pair.access.secretHash}::text, ${pair.access.displayPrefix}::text, '', ${pair.userId}::text,
      ${scopes}::text[], ${pair.resource}::text, ${pair.access.expiresAt}::timestamptz, ${revokedAt}::timestamptz, ${pair.at}::timestamptz,
      ${pair.clientId}::text, ${pair.familyId}::text)
    RETURNING id`
  const refresh = sql`INSERT INTO oauth_refresh_tokens (id, secret_hash, family_id, client_id, user_id, scopes, resource, expires_at,
      created_at, revoked_at)
    VALUES (${pair.refresh.id}::text, ${pair.refresh.secretHash}::text, ${pair.familyId}::text, ${pair.clientId}::text, ${pair.userId}::text,
      ${[...pair.refresh.scopes]}::text[], ${pair.resource}::text, ${pair.refresh.expiresAt}::timestamptz, ${pair.at}::timestamptz,
      ${revokedAt}::timestamptz)`
  await sql`${withClauses([
    ['access', access],
    ['refresh', refresh],
    ['audit', audit === null ? null : auditFrom('access', audit)],
  ])} SELECT 1`.execute(trx)
}

async function issueTokens(db: Kysely<Database>, pair: TokenPairDraft, audit: AuditEventDraft): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const revokedAt = await lockFamilyForIssue(trx, pair)
    await insertPair(trx, pair, revokedAt, audit)
  })
}

/**
 * Rotation, in one transaction under the family's lock (taken before the token's row, in the
 * order every family change uses). Of two concurrent rotations of one token, the second waits,
 * then finds the token rotated: that is a reuse, and it revokes the family, including the pair
 * the first one just made. That is what OAuth 2.1 (§4.3.1) and RFC 6819 (§5.2.2.3) ask of a
 * rotated-out refresh token presented again: the server cannot tell the legitimate client from an
 * attacker, so both lose the grant and the person signs in again. `next` throwing rolls the
 * rotation back: the presented token stays live.
 */
async function rotateRefreshToken(db: Kysely<Database>, cmd: Parameters<OAuthStore['rotateRefreshToken']>[0]): Promise<RotateOutcome> {
  return db.transaction().execute(async (trx): Promise<RotateOutcome> => {
    const byHash = () => trx.selectFrom('oauth_refresh_tokens').selectAll().where('secret_hash', '=', cmd.presentedHash)
    const seen = await byHash().executeTakeFirst()
    if (!seen) return { ok: false, reason: 'unknown' }
    const family = await lockFamily(trx, seen.family_id)
    if (family === null) return { ok: false, reason: 'unknown' }
    // Read again under the lock: a change that held it before us has committed by now.
    const token = await byHash().executeTakeFirstOrThrow()
    if (token.client_id !== cmd.clientId) return { ok: false, reason: 'wrong_client' }
    if (token.revoked_at !== null || family.revokedAt !== null) return { ok: false, reason: 'revoked' }
    if (token.rotated_at !== null) {
      await revokeFamily(trx, token.family_id, cmd.at, cmd.audit, { kind: 'reuse_detected', presented: 'refresh_token' })
      return { ok: false, reason: 'reused' }
    }
    if (token.expires_at.getTime() <= cmd.at.getTime()) return { ok: false, reason: 'expired' }
    await trx.updateTable('oauth_refresh_tokens').set({ rotated_at: cmd.at }).where('id', '=', token.id).execute()
    const previous: Previous = {
      clientId: token.client_id,
      userId: token.user_id,
      scopes: token.scopes as Scope[],
      resource: token.resource,
      familyId: token.family_id,
    }
    const next = cmd.next(previous)
    if (next.familyId !== previous.familyId || next.clientId !== previous.clientId || next.userId !== previous.userId) {
      throw new Error('a rotated pair stays in its family, with its client and user')
    }
    await insertPair(trx, next, null, cmd.audit({ ...family.owner, change: { kind: 'refreshed', accessTokenId: next.access.id } }))
    return { ok: true, previous }
  })
}

/**
 * RFC 7009: an access token of the client (any client when `clientId` is null) is revoked alone;
 * a refresh token takes its family with it. Anything else changes nothing and is no error.
 */
async function revokeToken(db: Kysely<Database>, cmd: Parameters<OAuthStore['revokeToken']>[0]): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const access = await trx
      .updateTable('credentials')
      .set({ revoked_at: cmd.at })
      .where('secret_hash', '=', cmd.secretHash)
      .where('kind', '=', 'oauth')
      .where('revoked_at', 'is', null)
      .$if(cmd.clientId !== null, (q) => q.where('client_id', '=', cmd.clientId))
      .returning('family_id')
      .executeTakeFirst()
    if (access?.family_id) {
      // Read, not locked: this holds the token's row, and a family change locks the family first.
      const family = await lockFamily(trx, access.family_id, false)
      if (family) await insertAudit(trx, cmd.audit({ ...family.owner, change: { kind: 'revoked_by_client', token: 'access' } }))
      return
    }
    const refresh = await trx
      .selectFrom('oauth_refresh_tokens')
      .select('family_id')
      .where('secret_hash', '=', cmd.secretHash)
      .$if(cmd.clientId !== null, (q) => q.where('client_id', '=', cmd.clientId))
      .executeTakeFirst()
    if (refresh) await revokeFamily(trx, refresh.family_id, cmd.at, cmd.audit, { kind: 'revoked_by_client', token: 'refresh' })
  })
}

export function oauthStore(db: Kysely<Database>): OAuthStore {
  return {
    registerClient: (client, audit) => registerClient(db, client, audit),
    findClient: (clientId) => findClient(db, clientId),
    saveCode: (code) => saveCode(db, code),
    consumeCode: (cmd) => consumeCode(db, cmd),
    issueTokens: (pair, audit) => issueTokens(db, pair, audit),
    rotateRefreshToken: (cmd) => rotateRefreshToken(db, cmd),
    revokeToken: (cmd) => revokeToken(db, cmd),
  }
}
