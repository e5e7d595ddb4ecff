import type { AuthorizationCodeRecord, GrantAudit, OAuthClientRecord, PresentedCode, RotateOutcome, TokenPairDraft } from '@quire/core'
import { testEngine } from '@quire/testing/test-database'
import { timeoutFor } from '@quire/testing/waits'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestDatabase } from '../src/testing.ts'
import { type Deps, event, ids, openStores, type SeededUser, seedUser, untilBlocked } from './fixtures.ts'

let handle: TestDatabase
let deps: Deps
let owner: SeededUser
let client: OAuthClientRecord

const resource = 'https://api.q.test'
const hash = (what: string) => `${what}-${ids.next('tok')}`

async function registerClient(name = 'A client') {
  const record: OAuthClientRecord = { id: ids.next('cli'), name, redirectUris: ['http://127.0.0.1/callback'], createdAt: new Date() }
  await deps.oauth.registerClient(record, null)
  return record
}

beforeAll(async () => {
  ;({ handle, deps } = await openStores())
  owner = await seedUser(deps)
  client = await registerClient()
})
afterAll(async () => {
  await handle.close()
})

async function saveCode(fields: Partial<AuthorizationCodeRecord> = {}): Promise<AuthorizationCodeRecord> {
  const at = new Date()
  const code: AuthorizationCodeRecord = {
    codeHash: hash('code'),
    clientId: client.id,
    userId: owner.user.id,
    redirectUri: 'http://127.0.0.1/callback',
    codeChallenge: 'challenge',
    scopes: ['artifacts:read', 'artifacts:update'],
    resource,
    expiresAt: new Date(at.getTime() + 60_000),
    createdAt: at,
    ...fields,
  }
  await deps.oauth.saveCode(code)
  return code
}

type Grant = Pick<TokenPairDraft, 'clientId' | 'userId' | 'scopes' | 'resource' | 'familyId'>

function pair(grant: Grant): TokenPairDraft {
  const at = new Date()
  return {
    ...grant,
    access: { id: ids.next('tok'), secretHash: hash('access'), displayPrefix: 'qat_abcdef', expiresAt: new Date(at.getTime() + 3_600_000) },
    refresh: { id: ids.next('tok'), secretHash: hash('refresh'), expiresAt: new Date(at.getTime() + 86_400_000), scopes: grant.scopes },
    at,
  }
}

/** As core does it: refreshes are `oauth.token_refreshed`, every other change revokes. */
const grantAudit: GrantAudit = (change) =>
  event(change.change.kind === 'refreshed' ? 'oauth.token_refreshed' : 'oauth.grant_revoked', {
    workspaceId: change.user.personalWorkspaceId,
    data: { familyId: change.familyId, clientId: change.clientId, userId: change.user.id, change: change.change },
  })

/** The events recorded about a family, oldest first, as (action, change kind). */
async function grantEvents(familyId: string) {
  const rows = await handle.db
    .selectFrom('audit_events')
    .select(['action', 'data', 'workspace_id'])
    .where(sql<boolean>`data->>'familyId' = ${familyId}`)
    .orderBy('id')
    .execute()
  return rows.map((r) => {
    const data = (typeof r.data === 'string' ? JSON.parse(r.data) : r.data) as { change?: { kind: string } }
    return `${r.action}${data.change ? `:${data.change.kind}` : ''}`
  })
}

const issued = (draft: TokenPairDraft) =>
  event('oauth.token_issued', { workspaceId: owner.workspaceId, data: { familyId: draft.familyId, accessId: draft.access.id } })

/** Presents a code as the token endpoint does, with what it was issued for unless `other` says otherwise. */
function consume(code: AuthorizationCodeRecord, familyId = ids.next('tok'), other: Partial<PresentedCode> = {}) {
  const presented = {
    codeHash: code.codeHash,
    clientId: code.clientId,
    redirectUri: code.redirectUri,
    codeChallenge: code.codeChallenge,
    ...other,
  }
  return deps.oauth.consumeCode({ presented, at: new Date(), familyId, audit: grantAudit })
}

/** A code exchanged for its first pair, as the token endpoint does it. */
async function exchange(code?: AuthorizationCodeRecord) {
  const saved = code ?? (await saveCode())
  const familyId = ids.next('tok')
  const consumed = await consume(saved, familyId)
  if (!consumed.ok) throw new Error(`exchange failed: ${consumed.reason}`)
  const draft = pair({ ...consumed.code, familyId })
  await deps.oauth.issueTokens(draft, issued(draft))
  return { code: saved, familyId, draft }
}

function rotate(presented: TokenPairDraft, fields: { clientId?: string; at?: Date } = {}) {
  let made: TokenPairDraft | null = null
  const outcome = deps.oauth.rotateRefreshToken({
    presentedHash: presented.refresh.secretHash,
    clientId: fields.clientId ?? presented.clientId,
    at: fields.at ?? new Date(),
    next: (previous) => {
      made = pair(previous)
      return made
    },
    audit: grantAudit,
  })
  return outcome.then((o: RotateOutcome) => ({ outcome: o, made: made as TokenPairDraft | null }))
}

const accessToken = (draft: TokenPairDraft) => deps.credentials.find({ secretHash: draft.access.secretHash })
const refreshRow = (draft: TokenPairDraft) =>
  handle.db.selectFrom('oauth_refresh_tokens').selectAll().where('secret_hash', '=', draft.refresh.secretHash).executeTakeFirstOrThrow()

/** Every token of a family, with whether it is revoked. */
async function familyState(familyId: string) {
  const access = await handle.db.selectFrom('credentials').select(['id', 'revoked_at']).where('family_id', '=', familyId).execute()
  const refresh = await handle.db
    .selectFrom('oauth_refresh_tokens')
    .select(['id', 'revoked_at'])
    .where('family_id', '=', familyId)
    .execute()
  return {
    access: access.length,
    refresh: refresh.length,
    live: [...access, ...refresh].filter((t) => t.revoked_at === null).map((t) => t.id),
  }
}

describe(`OAuth clients (${testEngine})`, () => {
  it('registers and finds a client; the event is written only when given', async () => {
    expect(await deps.oauth.findClient(client.id)).toEqual(client)
    expect(await deps.oauth.findClient('cli_missing')).toBeNull()
    const audited: OAuthClientRecord = {
      id: ids.next('cli'),
      name: 'Audited',
      redirectUris: ['https://a.test/cb', 'app:/cb'],
      createdAt: new Date(),
    }
    const registered = event('oauth.client_registered', { data: { clientId: audited.id } })
    await deps.oauth.registerClient(audited, registered)
    expect(await deps.oauth.findClient(audited.id)).toEqual(audited)
    const events = await handle.db.selectFrom('audit_events').select('id').where('action', '=', 'oauth.client_registered').execute()
    expect(events.map((e) => e.id)).toEqual([registered.id])
  })
})

describe(`authorization codes (${testEngine})`, () => {
  it('gives a code out once, and a second exchange revokes the tokens of the first', async () => {
    const code = await saveCode()
    const { familyId, draft } = await exchange(code)
    expect(await accessToken(draft)).toMatchObject({ kind: 'oauth', revokedAt: null })

    const again = await consume(code, ids.next('tok'))
    expect(again).toEqual({ ok: false, reason: 'reused' })
    expect(await accessToken(draft)).toMatchObject({ revokedAt: expect.any(Date) })
    expect(await familyState(familyId)).toEqual({ access: 1, refresh: 1, live: [] })
    expect((await rotate(draft)).outcome).toEqual({ ok: false, reason: 'revoked' })
    expect(await consume(code, ids.next('tok'))).toEqual({ ok: false, reason: 'reused' })
  })

  it('returns the code as saved to the one exchange that wins', async () => {
    const code = await saveCode()
    const outcomes = await Promise.all([1, 2, 3].map(() => consume(code, ids.next('tok'))))
    expect(outcomes.filter((o) => o.ok)).toEqual([{ ok: true, code }])
    expect(outcomes.filter((o) => !o.ok)).toEqual([
      { ok: false, reason: 'reused' },
      { ok: false, reason: 'reused' },
    ])
  })

  it('issues born revoked into the family of a code reused before its first exchange had issued', async () => {
    const code = await saveCode()
    const familyId = ids.next('tok')
    const consumed = await consume(code, familyId)
    expect(consumed.ok).toBe(true)
    expect(await consume(code, ids.next('tok'))).toEqual({ ok: false, reason: 'reused' })
    const draft = pair({ ...code, familyId })
    await deps.oauth.issueTokens(draft, issued(draft))
    expect(await familyState(familyId)).toEqual({ access: 1, refresh: 1, live: [] })
  })

  it('refuses an expired code without using it up, and an unknown one', async () => {
    const expired = await saveCode({ expiresAt: new Date(Date.now() - 1000) })
    expect(await consume(expired, ids.next('tok'))).toEqual({
      ok: false,
      reason: 'expired',
    })
    const row = await handle.db
      .selectFrom('oauth_codes')
      .select(['used_at', 'family_id'])
      .where('code_hash', '=', expired.codeHash)
      .executeTakeFirst()
    expect(row).toEqual({ used_at: null, family_id: null })
    expect(await consume({ ...(await saveCode()), codeHash: 'no-such-code' })).toEqual({ ok: false, reason: 'unknown' })
  })
  it('leaves a code unused when the client, redirect URI or PKCE challenge presented is not its own', async () => {
    const code = await saveCode()
    expect(await consume(code, ids.next('tok'), { clientId: 'cli_other' })).toEqual({ ok: false, reason: 'mismatch', field: 'client_id' })
    expect(await consume(code, ids.next('tok'), { redirectUri: 'http://127.0.0.1/other' })).toEqual({
      ok: false,
      reason: 'mismatch',
      field: 'redirect_uri',
    })
    expect(await consume(code, ids.next('tok'), { codeChallenge: 'not-it' })).toEqual({
      ok: false,
      reason: 'mismatch',
      field: 'code_verifier',
    })
    // Nothing was burned: the rightful exchange still gets the code, and no grant was revoked.
    expect(await consume(code)).toMatchObject({ ok: true, code: { codeHash: code.codeHash } })
  })
})

describe(`tokens (${testEngine})`, () => {
  it('stores the access token as an audience-bound credential and its refresh token, with the event', async () => {
    const { familyId, draft } = await exchange()
    expect(await accessToken(draft)).toEqual({
      id: draft.access.id,
      kind: 'oauth',
      scopes: ['artifacts:read', 'artifacts:update'],
      expiresAt: draft.access.expiresAt,
      revokedAt: null,
      audience: resource,
      agentId: null,
      agentName: null,
      artifactId: null,
      role: null,
      accountWorkspaceId: owner.workspaceId,
      user: { id: owner.user.id, email: owner.user.email, emailVerified: true, username: owner.user.username },
    })
    const credential = await handle.db
      .selectFrom('credentials')
      .select(['client_id', 'family_id', 'display_prefix', 'name'])
      .where('id', '=', draft.access.id)
      .executeTakeFirstOrThrow()
    expect(credential).toEqual({ client_id: client.id, family_id: familyId, display_prefix: 'qat_abcdef', name: '' })
    expect(await refreshRow(draft)).toMatchObject({
      id: draft.refresh.id,
      family_id: familyId,
      client_id: client.id,
      user_id: owner.user.id,
      scopes: ['artifacts:read', 'artifacts:update'],
      resource,
      expires_at: draft.refresh.expiresAt,
      rotated_at: null,
      revoked_at: null,
    })
    const events = await handle.db
      .selectFrom('audit_events')
      .select('action')
      .where((eb) => eb.ref('data', '->>').key('accessId'), '=', draft.access.id)
      .execute()
    expect(events).toEqual([{ action: 'oauth.token_issued' }])
  })

  it('rotates a refresh token into a new pair of the same family, once', async () => {
    const { familyId, draft } = await exchange()
    const first = await rotate(draft)
    expect(first.outcome).toEqual({
      ok: true,
      previous: { clientId: client.id, userId: owner.user.id, scopes: ['artifacts:read', 'artifacts:update'], resource, familyId },
    })
    const next = first.made as TokenPairDraft
    expect(await refreshRow(draft)).toMatchObject({ rotated_at: expect.any(Date), revoked_at: null })
    expect(await accessToken(next)).toMatchObject({ kind: 'oauth', revokedAt: null, audience: resource })
    expect(await refreshRow(next)).toMatchObject({ family_id: familyId, rotated_at: null })
    // The old access token lives out its own (short) life; the new refresh token rotates in turn.
    expect(await accessToken(draft)).toMatchObject({ revokedAt: null })
    expect((await rotate(next)).outcome.ok).toBe(true)
  })

  it('refuses an unknown, foreign, expired or revoked refresh token, changing nothing', async () => {
    const { draft } = await exchange()
    const other = await registerClient('Other')
    expect((await rotate({ ...draft, refresh: { ...draft.refresh, secretHash: 'no-such-token' } })).outcome).toEqual({
      ok: false,
      reason: 'unknown',
    })
    expect((await rotate(draft, { clientId: other.id })).outcome).toEqual({ ok: false, reason: 'wrong_client' })
    const late = new Date(draft.refresh.expiresAt.getTime() + 1)
    expect((await rotate(draft, { at: late })).outcome).toEqual({ ok: false, reason: 'expired' })
    expect(await refreshRow(draft)).toMatchObject({ rotated_at: null, revoked_at: null })
    await deps.oauth.revokeToken({ secretHash: draft.refresh.secretHash, clientId: client.id, at: new Date(), audit: grantAudit })
    expect((await rotate(draft)).outcome).toEqual({ ok: false, reason: 'revoked' })
  })

  it('rolls the rotation back when the next pair cannot be made', async () => {
    const { draft } = await exchange()
    const failing = deps.oauth.rotateRefreshToken({
      presentedHash: draft.refresh.secretHash,
      clientId: client.id,
      at: new Date(),
      next: () => {
        throw new Error('scope widening')
      },
      audit: grantAudit,
    })
    await expect(failing).rejects.toThrow('scope widening')
    expect(await refreshRow(draft)).toMatchObject({ rotated_at: null, revoked_at: null })
    expect((await rotate(draft)).outcome.ok).toBe(true)
  })

  it('revokes the whole family when a rotated-out refresh token comes back', async () => {
    const { familyId, draft } = await exchange()
    const { made } = await rotate(draft)
    const next = made as TokenPairDraft
    expect((await rotate(draft)).outcome).toEqual({ ok: false, reason: 'reused' })
    expect(await familyState(familyId)).toEqual({ access: 2, refresh: 2, live: [] })
    expect(await accessToken(next)).toMatchObject({ revokedAt: expect.any(Date) })
    expect((await rotate(next)).outcome).toEqual({ ok: false, reason: 'revoked' })
    // Other families are untouched.
    const { draft: unrelated } = await exchange()
    expect(await accessToken(unrelated)).toMatchObject({ revokedAt: null })
  })

  it('lets one of two concurrent rotations of a token win; the other is a reuse that revokes the family', async () => {
    for (let round = 0; round < 5; round++) {
      const { familyId, draft } = await exchange()
      const results = await Promise.all([rotate(draft), rotate(draft)])
      const outcomes = results.map((r) => r.outcome)
      expect(outcomes.filter((o) => o.ok)).toHaveLength(1)
      expect(outcomes.filter((o) => !o.ok)).toEqual([{ ok: false, reason: 'reused' }])
      // The winner's pair is revoked with the rest: the reuse came after it, under the family's lock.
      expect(await familyState(familyId)).toEqual({ access: 2, refresh: 2, live: [] })
    }
  })

  it('revokes the pair a rotation in flight makes when a stolen token is replayed meanwhile', async () => {
    for (let round = 0; round < 5; round++) {
      const { familyId, draft } = await exchange()
      const current = (await rotate(draft)).made as TokenPairDraft
      // The legitimate client rotates its current token while the old one is replayed.
      const [legit, replay] = await Promise.all([rotate(current), rotate(draft)])
      expect(replay.outcome).toEqual({ ok: false, reason: 'reused' })
      // Either the legitimate rotation ran first (and its pair is then revoked with the rest), or
      // the replay did, and the legitimate token was already revoked: never anything else.
      expect(legit.outcome.ok ? 'rotated' : legit.outcome.reason).toMatch(/^(rotated|revoked)$/)
      if (legit.outcome.ok) expect(legit.made).not.toBeNull()
      expect((await familyState(familyId)).live).toEqual([])
    }
  })

  // Waits: for the rotation to block.
  it.runIf(testEngine === 'postgres')('makes a rotation wait for the family’s lock', { timeout: timeoutFor(1) }, async () => {
    const { familyId, draft } = await exchange()
    let settled = false
    let rotation: ReturnType<typeof rotate> = Promise.resolve({ outcome: { ok: false, reason: 'unknown' }, made: null })
    await handle.db.transaction().execute(async (trx) => {
      await trx.selectFrom('oauth_token_families').select('id').where('id', '=', familyId).forUpdate().execute()
      rotation = rotate(draft).finally(() => {
        settled = true
      })
      await untilBlocked(handle)
      expect(settled).toBe(false)
    })
    expect((await rotation).outcome.ok).toBe(true)
  })
})

describe(`revocation (${testEngine})`, () => {
  it('revokes an access token of the client alone', async () => {
    const { draft } = await exchange()
    const other = await registerClient('Other')
    await deps.oauth.revokeToken({ secretHash: draft.access.secretHash, clientId: other.id, at: new Date(), audit: grantAudit })
    expect(await accessToken(draft)).toMatchObject({ revokedAt: null })
    const at = new Date()
    await deps.oauth.revokeToken({ secretHash: draft.access.secretHash, clientId: client.id, at, audit: grantAudit })
    expect(await accessToken(draft)).toMatchObject({ revokedAt: at })
    await deps.oauth.revokeToken({
      secretHash: draft.access.secretHash,
      clientId: client.id,
      at: new Date(at.getTime() + 60_000),
      audit: grantAudit,
    })
    expect(await accessToken(draft)).toMatchObject({ revokedAt: at })
    // The refresh token still works.
    expect((await rotate(draft)).outcome.ok).toBe(true)
  })

  it('revokes an access token for any client when none is named', async () => {
    const { draft } = await exchange()
    await deps.oauth.revokeToken({ secretHash: draft.access.secretHash, clientId: null, at: new Date(), audit: grantAudit })
    expect(await accessToken(draft)).toMatchObject({ revokedAt: expect.any(Date) })
  })

  it('revokes a refresh token with its whole family', async () => {
    const { familyId, draft } = await exchange()
    const next = (await rotate(draft)).made as TokenPairDraft
    const other = await registerClient('Other')
    await deps.oauth.revokeToken({ secretHash: next.refresh.secretHash, clientId: other.id, at: new Date(), audit: grantAudit })
    // Nothing yet: the rotated-out token is retired, not revoked; the other three are live.
    expect((await familyState(familyId)).live).toHaveLength(4)
    await deps.oauth.revokeToken({ secretHash: next.refresh.secretHash, clientId: client.id, at: new Date(), audit: grantAudit })
    expect(await familyState(familyId)).toEqual({ access: 2, refresh: 2, live: [] })
    expect((await rotate(next)).outcome).toEqual({ ok: false, reason: 'revoked' })
  })

  it('changes nothing, and raises nothing, for an unknown token or another kind of credential', async () => {
    await expect(
      deps.oauth.revokeToken({ secretHash: 'no-such-token', clientId: null, at: new Date(), audit: grantAudit }),
    ).resolves.toBeUndefined()
    await deps.oauth.revokeToken({ secretHash: owner.credential.secretHash, clientId: null, at: new Date(), audit: grantAudit })
    expect(await deps.credentials.find(owner.credential)).toMatchObject({ kind: 'api_key', revokedAt: null })
  })
})

describe(`the audit trail of a grant (${testEngine})`, () => {
  it('records refreshes, each revocation once, and a reuse as a revocation of the grant', async () => {
    const { familyId, draft } = await exchange()
    const next = (await rotate(draft)).made as TokenPairDraft
    await deps.oauth.revokeToken({ secretHash: next.access.secretHash, clientId: client.id, at: new Date(), audit: grantAudit })
    await deps.oauth.revokeToken({ secretHash: next.access.secretHash, clientId: client.id, at: new Date(), audit: grantAudit })
    expect((await rotate(draft)).outcome).toEqual({ ok: false, reason: 'reused' })
    // Already revoked: presenting it again, or revoking the refresh token, records nothing more.
    await rotate(draft)
    await deps.oauth.revokeToken({ secretHash: next.refresh.secretHash, clientId: client.id, at: new Date(), audit: grantAudit })
    expect(await grantEvents(familyId)).toEqual([
      'oauth.token_issued',
      'oauth.token_refreshed:refreshed',
      'oauth.grant_revoked:revoked_by_client',
      'oauth.grant_revoked:reuse_detected',
    ])

    const second = await exchange()
    await deps.oauth.revokeToken({ secretHash: second.draft.refresh.secretHash, clientId: client.id, at: new Date(), audit: grantAudit })
    await consume(second.code, ids.next('tok'))
    expect(await grantEvents(second.familyId)).toEqual(['oauth.token_issued', 'oauth.grant_revoked:revoked_by_client'])

    const third = await exchange()
    await consume(third.code, ids.next('tok'))
    expect(await grantEvents(third.familyId)).toEqual(['oauth.token_issued', 'oauth.grant_revoked:reuse_detected'])
  })
})
