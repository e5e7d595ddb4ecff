import { randomBytes } from 'node:crypto'
import {
  type ActorRef,
  type AgentOwner,
  type AgentRegistrationRecord,
  type AgentTokenDraft,
  type AuditAction,
  type AuditEventDraft,
  type CreateRegistrationCommand,
  retentionAt,
  type Scope,
  sha256Hex,
} from '@quire/core'
import { testEngine } from '@quire/testing/test-database'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { auditFrom } from '../src/audit.ts'
import { withClauses } from '../src/stores/writes.ts'
import type { TestDatabase } from '../src/testing.ts'
import { type Deps, event, ids, openStores, type SeededUser, seedUser } from './fixtures.ts'

let handle: TestDatabase
let deps: Deps
let owner: SeededUser
let stranger: SeededUser

beforeAll(async () => {
  ;({ handle, deps } = await openStores())
  owner = await seedUser(deps)
  stranger = await seedUser(deps)
})
afterAll(async () => {
  await handle.close()
})

const SECOND = 1000
const MINUTE = 60 * SECOND
const HOUR = 60 * MINUTE
const letters = 'BCDFGHJKLMNPQRSTVWXZ'
const secret = (prefix: string) => `${prefix}${randomBytes(24).toString('base64url')}`
const userCode = () => Array.from(randomBytes(8), (b) => letters[b % letters.length]).join('')
const later = (at: Date, ms: number) => new Date(at.getTime() + ms)
const allScopes: Scope[] = ['artifacts:read', 'artifacts:create', 'artifacts:update']

/** The person a login hint names, as the store hands them to the audit callbacks. */
const asOwner = (seeded: SeededUser): AgentOwner => ({
  id: seeded.user.id,
  username: seeded.user.username,
  email: seeded.user.email,
  personalWorkspaceId: seeded.workspaceId,
})

const agentActor = (id: string, by: AgentOwner | null): ActorRef =>
  by === null
    ? { kind: 'agent', id, label: 'unclaimed agent' }
    : { kind: 'agent', id, label: `agent of ${by.username}`, onBehalfOf: { id: by.id, label: by.username } }

/** An account event filed in the person's personal workspace, as the agent-auth package writes them. */
function filed(action: AuditAction, by: AgentOwner, actor: ActorRef, data: Record<string, unknown>): AuditEventDraft {
  return event(action, {
    actor,
    via: { surface: 'api', credential: null, credentialId: null },
    workspaceId: by.personalWorkspaceId,
    data,
  })
}

interface Registered {
  readonly id: string
  readonly claimToken: string
  readonly userCode: string | null
  readonly assertionId: string | null
  readonly at: Date
}

/** A registration as `POST /agent/identity` stores it: service_auth with a code at once, anonymous with an assertion. */
async function register(
  type: 'service_auth' | 'anonymous',
  fields: { loginHint?: string | null; at?: Date; code?: string; name?: string; description?: string | null } = {},
): Promise<Registered> {
  const at = fields.at ?? new Date()
  const id = ids.next('agt')
  const claimToken = secret('qct_')
  const code = type === 'service_auth' ? (fields.code ?? userCode()) : null
  const assertionId = type === 'anonymous' ? secret('') : null
  const loginHint = fields.loginHint === undefined ? (type === 'service_auth' ? owner.user.email : null) : fields.loginHint
  const command: CreateRegistrationCommand = {
    id,
    type,
    name: fields.name ?? `Agent ${id.slice(-4)}`,
    description: fields.description ?? null,
    loginHint,
    preClaimScopes: type === 'anonymous' ? ['artifacts:read'] : [],
    postClaimScopes: allScopes,
    claimTokenHash: await sha256Hex(claimToken),
    claimExpiresAt: later(at, 24 * HOUR),
    userCode: code === null ? null : { hash: await sha256Hex(code), expiresAt: later(at, 10 * MINUTE) },
    assertionIdHash: assertionId === null ? null : await sha256Hex(assertionId),
    pollIntervalSeconds: 5,
    at,
    audit: (by) => filed('agent.registered', by, agentActor(id, null), { agentId: id, type, requestedScopes: allScopes }),
  }
  const outcome = await deps.agents.createRegistration(command)
  if (!outcome.ok) throw new Error(`registration failed: ${outcome.reason}`)
  return { id, claimToken, userCode: code, assertionId, at }
}

function startClaim(registered: Registered, fields: { code?: string; at?: Date; loginHint?: string } = {}) {
  const at = fields.at ?? registered.at
  const code = fields.code ?? userCode()
  return sha256Hex(code).then(async (hash) => ({
    code,
    outcome: await deps.agents.startClaim({
      registrationId: registered.id,
      loginHint: fields.loginHint ?? owner.user.email,
      userCode: { hash, expiresAt: later(at, 10 * MINUTE) },
      at,
      audit: (by) => filed('agent.claim_requested', by, agentActor(registered.id, null), { agentId: registered.id }),
    }),
  }))
}

async function confirm(code: string, by: SeededUser, at: Date) {
  return deps.agents.confirmClaim({
    userCodeHash: await sha256Hex(code),
    userId: by.user.id,
    at,
    audit: (registration, person) =>
      event('agent.claimed', {
        actor: { kind: 'user', id: person.id, label: person.username },
        via: { surface: 'web', credential: 'session', credentialId: 'ses_1' },
        workspaceId: person.personalWorkspaceId,
        data: { agentId: registration.id, type: registration.type, scopes: registration.postClaimScopes },
      }),
  })
}

interface Token extends AgentTokenDraft {
  readonly secret: string
}

async function token(scopes: readonly Scope[], expiresAt: Date): Promise<Token> {
  const value = secret('qgt_')
  return { id: ids.next('tok'), secret: value, secretHash: await sha256Hex(value), displayPrefix: value.slice(0, 10), scopes, expiresAt }
}

const issuedEvent = (registration: AgentRegistrationRecord, by: AgentOwner, tokenId: string) =>
  event('agent.token_issued', {
    actor: agentActor(registration.id, by),
    via: { surface: 'api', credential: 'agent', credentialId: tokenId },
    workspaceId: by.personalWorkspaceId,
    data: { agentId: registration.id },
  })

/** The claim grant: the claim token for a post-claim token and a new assertion. */
async function redeem(registered: Registered, at: Date) {
  const issued = await token(allScopes, later(at, HOUR))
  const assertionId = secret('')
  const outcome = await deps.agents.redeemClaim({
    claimTokenHash: await sha256Hex(registered.claimToken),
    token: issued,
    assertionIdHash: await sha256Hex(assertionId),
    at,
    audit: (registration, by) => issuedEvent(registration, by, issued.id),
  })
  return { outcome, token: issued, assertionId }
}

/** The jwt-bearer grant. */
async function exchange(registered: Registered, assertionId: string, stage: 'unclaimed' | 'claimed', at: Date) {
  const issued = await token(stage === 'claimed' ? allScopes : ['artifacts:read'], later(at, stage === 'claimed' ? HOUR : 15 * MINUTE))
  const outcome = await deps.agents.exchangeAssertion({
    registrationId: registered.id,
    assertionIdHash: await sha256Hex(assertionId),
    stage,
    token: issued,
    at,
    audit: stage === 'claimed' ? (registration, by) => issuedEvent(registration, by, issued.id) : null,
  })
  return { outcome, token: issued }
}

/** A service_auth agent of `owner`, claimed and redeemed: its post-claim token and assertion. */
async function claimedAgent(at = new Date()) {
  const registered = await register('service_auth', { at })
  const claimed = await confirm(registered.userCode as string, owner, later(at, MINUTE))
  if (!claimed.ok) throw new Error('claim failed')
  const redeemed = await redeem(registered, later(at, 2 * MINUTE))
  if (!redeemed.outcome.ok) throw new Error('redemption failed')
  return { registered, ...redeemed }
}

const tokensOf = (agentId: string) =>
  handle.db
    .selectFrom('credentials')
    .select(['id', 'kind', 'user_id', 'scopes', 'revoked_at', 'audience', 'name'])
    .where('agent_id', '=', agentId)
    .orderBy('id')
    .execute()

const eventsAbout = async (agentId: string) => {
  const rows = await handle.db
    .selectFrom('audit_events')
    .select(['action', 'workspace_id'])
    .where(sql<boolean>`data->>'agentId' = ${agentId}`)
    .orderBy('id')
    .execute()
  return rows.map((r) => `${r.action}@${r.workspace_id}`)
}

describe(`agent registrations (${testEngine})`, () => {
  it('stores a registration by the hashes of its secrets, and finds it by each', async () => {
    const at = new Date()
    const registered = await register('service_auth', {
      at,
      loginHint: owner.user.email.toUpperCase(),
      name: 'Release bot',
      description: 'Publishes the release notes.',
    })
    const expected: AgentRegistrationRecord = {
      id: registered.id,
      type: 'service_auth',
      name: 'Release bot',
      description: 'Publishes the release notes.',
      loginHint: owner.user.email,
      preClaimScopes: [],
      postClaimScopes: allScopes,
      claimExpiresAt: later(at, 24 * HOUR),
      requestedScopes: null,
      userCodeExpiresAt: later(at, 10 * MINUTE),
      pollIntervalSeconds: 5,
      lastPolledAt: null,
      claimedBy: null,
      claimedAt: null,
      redeemedAt: null,
      revokedAt: null,
      createdAt: at,
    }
    expect(await deps.agents.findById(registered.id)).toEqual(expected)
    expect(await deps.agents.findByClaimToken(await sha256Hex(registered.claimToken))).toEqual(expected)
    expect(await deps.agents.findByUserCode(await sha256Hex(registered.userCode as string))).toEqual(expected)
    expect(await deps.agents.findById('agt_missing')).toBeNull()
    expect(await deps.agents.findByClaimToken(registered.claimToken)).toBeNull()
    expect(await deps.agents.findByUserCode(await sha256Hex('BCDFGHJK'))).toBeNull()
    // The person the hint names hears of it in their own trail.
    expect(await eventsAbout(registered.id)).toEqual([`agent.registered@${owner.workspaceId}`])
  })

  it('writes no event for a login hint that names nobody, or an unverified address', async () => {
    const nobody = await register('service_auth', { loginHint: 'nobody@example.com' })
    expect(await deps.agents.findById(nobody.id)).toMatchObject({ loginHint: 'nobody@example.com' })
    expect(await eventsAbout(nobody.id)).toEqual([])
    const unverified = await seedUser(deps)
    await handle.db.updateTable('users').set({ email_verified: false }).where('id', '=', unverified.user.id).execute()
    const hinted = await register('service_auth', { loginHint: unverified.user.email })
    expect(await eventsAbout(hinted.id)).toEqual([])
  })

  it('never stores a secret in the clear', async () => {
    const at = new Date()
    const anonymous = await register('anonymous', { at })
    const preClaim = await exchange(anonymous, anonymous.assertionId as string, 'unclaimed', at)
    expect(preClaim.outcome.ok).toBe(true)
    const { code } = await startClaim(anonymous, { at })
    expect((await confirm(code, owner, later(at, MINUTE))).ok).toBe(true)
    const redeemed = await redeem(anonymous, later(at, 2 * MINUTE))
    expect(redeemed.outcome.ok).toBe(true)
    const postClaim = await exchange(anonymous, redeemed.assertionId, 'claimed', later(at, 3 * MINUTE))
    expect(postClaim.outcome.ok).toBe(true)
    const { rows } = await sql<{ dump: string }>`SELECT concat_ws(E'\n',
        (SELECT string_agg(row_to_json(r)::text, E'\n') FROM agent_registrations r),
        (SELECT string_agg(row_to_json(c)::text, E'\n') FROM credentials c),
        (SELECT string_agg(row_to_json(e)::text, E'\n') FROM audit_events e)) AS dump`.execute(handle.db)
    const dump = rows[0]?.dump ?? ''
    expect(dump).toContain(anonymous.id)
    for (const plain of [
      anonymous.claimToken,
      anonymous.assertionId as string,
      code,
      redeemed.assertionId,
      preClaim.token.secret,
      redeemed.token.secret,
      postClaim.token.secret,
    ]) {
      expect(dump).not.toContain(plain)
    }
    expect(dump).toContain(await sha256Hex(anonymous.claimToken))
  })

  it('answers code_taken when a user code collides with one still held, and creates nothing', async () => {
    const first = await register('service_auth')
    const id = ids.next('agt')
    const collided = await deps.agents.createRegistration({
      id,
      type: 'service_auth',
      name: 'Collider',
      description: null,
      loginHint: owner.user.email,
      preClaimScopes: [],
      postClaimScopes: allScopes,
      claimTokenHash: await sha256Hex(secret('qct_')),
      claimExpiresAt: later(new Date(), HOUR),
      userCode: { hash: await sha256Hex(first.userCode as string), expiresAt: later(new Date(), MINUTE) },
      assertionIdHash: null,
      pollIntervalSeconds: 5,
      at: new Date(),
      audit: (by) => filed('agent.registered', by, agentActor(id, null), { agentId: id }),
    })
    expect(collided).toEqual({ ok: false, reason: 'code_taken' })
    expect(await deps.agents.findById(id)).toBeNull()
    expect(await eventsAbout(id)).toEqual([])

    const anonymous = await register('anonymous')
    expect((await startClaim(anonymous, { code: first.userCode as string })).outcome).toEqual({ ok: false, reason: 'code_taken' })
    expect(await deps.agents.findById(anonymous.id)).toMatchObject({ loginHint: null, userCodeExpiresAt: null })
    expect(await eventsAbout(anonymous.id)).toEqual([])
  })
})

describe(`claim requests (${testEngine})`, () => {
  it('sets the login hint and a code; a new request replaces the code', async () => {
    const at = new Date()
    const anonymous = await register('anonymous', { at })
    expect(await deps.agents.findById(anonymous.id)).toMatchObject({ loginHint: null, userCodeExpiresAt: null })
    const first = await startClaim(anonymous, { at, loginHint: owner.user.email.toUpperCase() })
    expect(first.outcome).toEqual({ ok: true })
    expect(await deps.agents.findByUserCode(await sha256Hex(first.code))).toMatchObject({
      id: anonymous.id,
      loginHint: owner.user.email,
      userCodeExpiresAt: later(at, 10 * MINUTE),
    })
    const second = await startClaim(anonymous, { at: later(at, MINUTE) })
    expect(second.outcome).toEqual({ ok: true })
    expect(await deps.agents.findByUserCode(await sha256Hex(first.code))).toBeNull()
    expect(await deps.agents.findByUserCode(await sha256Hex(second.code))).toMatchObject({
      id: anonymous.id,
      userCodeExpiresAt: later(at, 11 * MINUTE),
    })
    // The rotated-out code confirms nothing.
    expect(await confirm(first.code, owner, later(at, 2 * MINUTE))).toEqual({ ok: false, reason: 'gone' })
    expect(await eventsAbout(anonymous.id)).toEqual([
      `agent.claim_requested@${owner.workspaceId}`,
      `agent.claim_requested@${owner.workspaceId}`,
    ])
  })

  it('refuses a claimed, revoked or expired registration', async () => {
    const at = new Date()
    const { registered } = await claimedAgent(at)
    expect((await startClaim(registered, { at: later(at, 3 * MINUTE) })).outcome).toEqual({ ok: false, reason: 'gone' })
    const expired = await register('anonymous', { at })
    expect((await startClaim(expired, { at: later(at, 24 * HOUR) })).outcome).toEqual({ ok: false, reason: 'gone' })
    const revoked = await register('anonymous', { at })
    await handle.db.updateTable('agent_registrations').set({ revoked_at: at }).where('id', '=', revoked.id).execute()
    expect((await startClaim(revoked, { at })).outcome).toEqual({ ok: false, reason: 'gone' })
    expect((await startClaim({ ...revoked, id: 'agt_missing' }, { at })).outcome).toEqual({ ok: false, reason: 'gone' })
  })
})

describe(`claim confirmation (${testEngine})`, () => {
  it('refuses another person, an unverified address and an expired code, and the registration stays pending', async () => {
    const at = new Date()
    const registered = await register('service_auth', { at })
    const code = registered.userCode as string
    expect(await confirm(code, stranger, later(at, MINUTE))).toEqual({ ok: false, reason: 'gone' })
    expect(await confirm(code, owner, later(at, 10 * MINUTE))).toEqual({ ok: false, reason: 'gone' })
    await handle.db.updateTable('users').set({ email_verified: false }).where('id', '=', owner.user.id).execute()
    try {
      expect(await confirm(code, owner, later(at, MINUTE))).toEqual({ ok: false, reason: 'gone' })
    } finally {
      await handle.db.updateTable('users').set({ email_verified: true }).where('id', '=', owner.user.id).execute()
    }
    expect(await deps.agents.findByUserCode(await sha256Hex(code))).toMatchObject({ id: registered.id, claimedBy: null, claimedAt: null })
    expect(await eventsAbout(registered.id)).toEqual([`agent.registered@${owner.workspaceId}`])
  })

  it('binds the agent to the person, ends the code and the pre-claim assertion, and revokes every pre-claim token', async () => {
    const at = new Date()
    const anonymous = await register('anonymous', { at })
    const assertionId = anonymous.assertionId as string
    const preClaim = [await exchange(anonymous, assertionId, 'unclaimed', at), await exchange(anonymous, assertionId, 'unclaimed', at)]
    expect(preClaim.map((p) => p.outcome.ok)).toEqual([true, true])
    const { code } = await startClaim(anonymous, { at, loginHint: owner.user.email })
    const claimedAt = later(at, MINUTE)
    const claimed = await confirm(code, owner, claimedAt)
    expect(claimed).toEqual({
      ok: true,
      registration: expect.objectContaining({ id: anonymous.id, claimedBy: asOwner(owner), claimedAt, userCodeExpiresAt: null }),
    })
    expect(await tokensOf(anonymous.id)).toEqual(
      preClaim.map((p) => expect.objectContaining({ id: p.token.id, kind: 'agent', user_id: null, revoked_at: claimedAt })),
    )
    expect(await deps.agents.findByUserCode(await sha256Hex(code))).toBeNull()
    expect((await exchange(anonymous, assertionId, 'unclaimed', later(at, 2 * MINUTE))).outcome).toEqual({ ok: false, reason: 'gone' })
    expect(await confirm(code, owner, later(at, 2 * MINUTE))).toEqual({ ok: false, reason: 'gone' })
    expect(await eventsAbout(anonymous.id)).toEqual([`agent.claim_requested@${owner.workspaceId}`, `agent.claimed@${owner.workspaceId}`])
  })

  it('revokes a pre-claim token issued while the claim is being confirmed', async () => {
    for (let round = 0; round < 5; round++) {
      const anonymous = await register('anonymous')
      const { code } = await startClaim(anonymous)
      const at = later(anonymous.at, MINUTE)
      const [issued, claimed] = await Promise.all([
        exchange(anonymous, anonymous.assertionId as string, 'unclaimed', at),
        confirm(code, owner, at),
      ])
      expect(claimed.ok).toBe(true)
      // Either the token came first (and the claim revoked it) or the claim did (and no token was issued).
      const live = (await tokensOf(anonymous.id)).filter((t) => t.revoked_at === null)
      expect(live).toEqual([])
      expect(await tokensOf(anonymous.id)).toHaveLength(issued.outcome.ok ? 1 : 0)
    }
  })

  it('lets one of two concurrent confirmations win', async () => {
    const registered = await register('service_auth')
    const at = later(registered.at, MINUTE)
    const outcomes = await Promise.all([
      confirm(registered.userCode as string, owner, at),
      confirm(registered.userCode as string, owner, at),
    ])
    expect(outcomes.filter((o) => o.ok)).toHaveLength(1)
    expect(await eventsAbout(registered.id)).toEqual([`agent.registered@${owner.workspaceId}`, `agent.claimed@${owner.workspaceId}`])
  })
})

describe(`claim grant (${testEngine})`, () => {
  it('redeems the claim token once: a post-claim token bound to the person, and the new assertion', async () => {
    const at = new Date()
    const registered = await register('service_auth', { at })
    expect((await redeem(registered, at)).outcome).toEqual({ ok: false, reason: 'gone' })
    expect((await confirm(registered.userCode as string, owner, later(at, MINUTE))).ok).toBe(true)
    const redeemedAt = later(at, 2 * MINUTE)
    const first = await redeem(registered, redeemedAt)
    expect(first.outcome).toEqual({
      ok: true,
      registration: expect.objectContaining({ id: registered.id, redeemedAt, claimedBy: asOwner(owner) }),
    })
    expect(await deps.credentials.find({ secretHash: first.token.secretHash })).toEqual({
      id: first.token.id,
      kind: 'agent',
      scopes: allScopes,
      expiresAt: first.token.expiresAt,
      revokedAt: null,
      audience: null,
      agentId: registered.id,
      agentName: `Agent ${registered.id.slice(-4)}`,
      artifactId: null,
      role: null,
      accountWorkspaceId: owner.workspaceId,
      user: { id: owner.user.id, email: owner.user.email, emailVerified: true, username: owner.user.username },
    })
    expect((await redeem(registered, later(at, 3 * MINUTE))).outcome).toEqual({ ok: false, reason: 'gone' })
    expect(await tokensOf(registered.id)).toEqual([
      expect.objectContaining({ id: first.token.id, name: `Agent ${registered.id.slice(-4)}` }),
    ])
    expect(await eventsAbout(registered.id)).toEqual([
      `agent.registered@${owner.workspaceId}`,
      `agent.claimed@${owner.workspaceId}`,
      `agent.token_issued@${owner.workspaceId}`,
    ])
  })

  it('lets exactly one of two concurrent redemptions win, storing exactly one token', async () => {
    for (let round = 0; round < 5; round++) {
      const registered = await register('service_auth')
      expect((await confirm(registered.userCode as string, owner, later(registered.at, MINUTE))).ok).toBe(true)
      const at = later(registered.at, 2 * MINUTE)
      const results = await Promise.all([redeem(registered, at), redeem(registered, at)])
      expect(results.filter((r) => r.outcome.ok)).toHaveLength(1)
      expect(results.filter((r) => !r.outcome.ok).map((r) => r.outcome)).toEqual([{ ok: false, reason: 'gone' }])
      const winner = results.find((r) => r.outcome.ok)
      expect((await tokensOf(registered.id)).map((t) => t.id)).toEqual([winner?.token.id])
      // Only the winner's assertion works.
      const loser = results.find((r) => !r.outcome.ok)
      expect((await exchange(registered, loser?.assertionId ?? '', 'claimed', at)).outcome.ok).toBe(false)
      expect((await exchange(registered, winner?.assertionId ?? '', 'claimed', at)).outcome.ok).toBe(true)
    }
  })

  it('refuses a claim token past the claim window, a revoked agent and an unknown token', async () => {
    const at = new Date()
    const late = await register('service_auth', { at })
    expect((await confirm(late.userCode as string, owner, later(at, MINUTE))).ok).toBe(true)
    expect((await redeem(late, later(at, 24 * HOUR))).outcome).toEqual({ ok: false, reason: 'gone' })
    const revoked = await register('service_auth', { at })
    expect((await confirm(revoked.userCode as string, owner, later(at, MINUTE))).ok).toBe(true)
    await handle.db.updateTable('agent_registrations').set({ revoked_at: at }).where('id', '=', revoked.id).execute()
    expect((await redeem(revoked, later(at, 2 * MINUTE))).outcome).toEqual({ ok: false, reason: 'gone' })
    expect((await redeem({ ...revoked, claimToken: 'qct_unknown' }, later(at, 2 * MINUTE))).outcome).toEqual({ ok: false, reason: 'gone' })
    expect([...(await tokensOf(late.id)), ...(await tokensOf(revoked.id))]).toEqual([])
  })
})

describe(`assertion exchange (${testEngine})`, () => {
  it('gives an unclaimed anonymous agent pre-claim tokens without a person, inside the claim window only', async () => {
    const at = new Date()
    const anonymous = await register('anonymous', { at })
    const assertionId = anonymous.assertionId as string
    const ok = await exchange(anonymous, assertionId, 'unclaimed', at)
    expect(ok.outcome).toEqual({ ok: true, registration: expect.objectContaining({ id: anonymous.id, claimedBy: null }) })
    expect(await deps.credentials.find({ secretHash: ok.token.secretHash })).toMatchObject({
      kind: 'agent',
      agentId: anonymous.id,
      scopes: ['artifacts:read'],
      user: null,
      accountWorkspaceId: null,
    })
    expect((await exchange(anonymous, assertionId, 'claimed', at)).outcome).toEqual({ ok: false, reason: 'gone' })
    expect((await exchange(anonymous, 'another-jti', 'unclaimed', at)).outcome).toEqual({ ok: false, reason: 'gone' })
    expect((await exchange({ ...anonymous, id: 'agt_missing' }, assertionId, 'unclaimed', at)).outcome).toEqual({
      ok: false,
      reason: 'gone',
    })
    expect((await exchange(anonymous, assertionId, 'unclaimed', later(at, 24 * HOUR))).outcome).toEqual({ ok: false, reason: 'gone' })
    expect(await tokensOf(anonymous.id)).toHaveLength(1)
    // Pre-claim tokens are not events: nobody's trail.
    expect(await eventsAbout(anonymous.id)).toEqual([])
  })

  it('gives a claimed agent post-claim tokens bound to its person, with the event on their behalf', async () => {
    const at = new Date()
    const { registered, assertionId } = await claimedAgent(at)
    const refreshed = await exchange(registered, assertionId, 'claimed', later(at, 2 * HOUR))
    expect(refreshed.outcome).toEqual({ ok: true, registration: expect.objectContaining({ claimedBy: asOwner(owner) }) })
    expect(await deps.credentials.find({ secretHash: refreshed.token.secretHash })).toMatchObject({
      user: { id: owner.user.id },
      accountWorkspaceId: owner.workspaceId,
    })
    expect((await exchange(registered, assertionId, 'unclaimed', at)).outcome).toEqual({ ok: false, reason: 'gone' })
    const events = await deps.audit.listForAccount(
      owner.user.id,
      { limit: 100, after: null },
      retentionAt(new Date()),
      'agent.token_issued',
    )
    const mine = events.find((e) => e.via.credentialId === refreshed.token.id)
    expect(mine?.actor).toEqual(agentActor(registered.id, asOwner(owner)))
  })

  it('leaves no live token behind a revocation that raced with an exchange', async () => {
    for (let round = 0; round < 5; round++) {
      const { registered, assertionId } = await claimedAgent()
      const at = new Date()
      const [issued] = await Promise.all([
        exchange(registered, assertionId, 'claimed', at),
        deps.agents.revokeAgent({ registrationId: registered.id, userId: owner.user.id, at, audit: event('agent.revoked') }),
      ])
      expect((await tokensOf(registered.id)).filter((t) => t.revoked_at === null)).toEqual([])
      expect(await tokensOf(registered.id)).toHaveLength(issued.outcome.ok ? 2 : 1)
    }
  })

  it('refuses a revoked agent', async () => {
    const { registered, assertionId } = await claimedAgent()
    await deps.agents.revokeAgent({ registrationId: registered.id, userId: owner.user.id, at: new Date(), audit: event('agent.revoked') })
    expect((await exchange(registered, assertionId, 'claimed', new Date())).outcome).toEqual({ ok: false, reason: 'gone' })
  })
})

describe(`polling (${testEngine})`, () => {
  it('answers slow_down to a poll within the interval, which then grows by 5 seconds', async () => {
    const registered = await register('service_auth')
    const t0 = registered.at
    expect(await deps.agents.recordPoll(registered.id, t0)).toBe('ok')
    expect(await deps.agents.recordPoll(registered.id, later(t0, 4 * SECOND))).toBe('slow_down')
    expect(await deps.agents.findById(registered.id)).toMatchObject({ pollIntervalSeconds: 10, lastPolledAt: later(t0, 4 * SECOND) })
    expect(await deps.agents.recordPoll(registered.id, later(t0, 14 * SECOND))).toBe('ok')
    expect(await deps.agents.recordPoll(registered.id, later(t0, 20 * SECOND))).toBe('slow_down')
    expect(await deps.agents.findById(registered.id)).toMatchObject({ pollIntervalSeconds: 15, lastPolledAt: later(t0, 20 * SECOND) })
    expect(await deps.agents.recordPoll(registered.id, later(t0, 35 * SECOND))).toBe('ok')
    expect(await deps.agents.findById(registered.id)).toMatchObject({ pollIntervalSeconds: 15 })
    expect(await deps.agents.recordPoll('agt_missing', t0)).toBe('ok')
  })

  it('lets only the first of concurrent polls through', async () => {
    for (let round = 0; round < 5; round++) {
      const registered = await register('service_auth')
      const outcomes = await Promise.all([1, 2, 3].map(() => deps.agents.recordPoll(registered.id, registered.at)))
      expect(outcomes.sort()).toEqual(['ok', 'slow_down', 'slow_down'])
      expect(await deps.agents.findById(registered.id)).toMatchObject({ pollIntervalSeconds: 15 })
    }
  })
})

describe(`token revocation (${testEngine})`, () => {
  const revokeEvent = (registration: AgentRegistrationRecord, by: AgentOwner | null, tokenId: string) =>
    by === null
      ? null
      : event('token.revoked', {
          actor: agentActor(registration.id, by),
          via: { surface: 'api', credential: 'agent', credentialId: tokenId },
          workspaceId: by.personalWorkspaceId,
          data: { agentId: registration.id, tokenId },
        })

  it('revokes a live agent token once; again, unknown or foreign tokens change nothing', async () => {
    const { registered, token: issued } = await claimedAgent()
    const at = new Date()
    await deps.agents.revokeToken({ secretHash: issued.secretHash, at, audit: revokeEvent })
    expect(await deps.credentials.find({ secretHash: issued.secretHash })).toMatchObject({ revokedAt: at })
    await deps.agents.revokeToken({ secretHash: issued.secretHash, at: later(at, MINUTE), audit: revokeEvent })
    expect(await deps.credentials.find({ secretHash: issued.secretHash })).toMatchObject({ revokedAt: at })
    await deps.agents.revokeToken({ secretHash: 'no-such-token', at, audit: revokeEvent })
    // An API key is not an agent token: this endpoint leaves it alone.
    await deps.agents.revokeToken({ secretHash: owner.credential.secretHash, at, audit: revokeEvent })
    expect(await deps.credentials.find(owner.credential)).toMatchObject({ revokedAt: null })
    expect((await eventsAbout(registered.id)).filter((e) => e.startsWith('token.revoked'))).toEqual([`token.revoked@${owner.workspaceId}`])
  })

  it('writes nothing for an unclaimed agent’s token (the callback says no event), yet revokes it', async () => {
    const anonymous = await register('anonymous')
    const { token: issued } = await exchange(anonymous, anonymous.assertionId as string, 'unclaimed', anonymous.at)
    const seen: (AgentOwner | null)[] = []
    await deps.agents.revokeToken({
      secretHash: issued.secretHash,
      at: anonymous.at,
      audit: (registration, by, tokenId) => {
        seen.push(by)
        return revokeEvent(registration, by, tokenId)
      },
    })
    expect(seen).toEqual([null])
    expect(await deps.credentials.find({ secretHash: issued.secretHash })).toMatchObject({ revokedAt: anonymous.at })
    expect(await eventsAbout(anonymous.id)).toEqual([])
  })
})

describe(`a person's agents (${testEngine})`, () => {
  it('lists the agents a person claimed, newest first, by keyset, with their latest use', async () => {
    const person = await seedUser(deps)
    const made: string[] = []
    for (let i = 0; i < 3; i++) {
      const registered = await register('service_auth', {
        loginHint: person.user.email,
        ...(i === 2 ? { name: 'Release bot', description: 'Publishes the release notes.' } : {}),
      })
      expect((await confirm(registered.userCode as string, person, later(registered.at, MINUTE))).ok).toBe(true)
      made.push(registered.id)
    }
    await register('service_auth', { loginHint: person.user.email })
    const used = new Date('2030-01-02T03:04:00.000Z')
    const newest = made[2] as string
    // Two tokens of the newest agent (a pre-claim one and a post-claim one), used at different times.
    for (const [userId, lastUsed] of [
      [null, later(used, -HOUR)],
      [person.user.id, used],
    ] as const) {
      await sql`INSERT INTO credentials (id, kind, secret_hash, display_prefix, user_id, agent_id, last_used_at, created_at)
        VALUES (${ids.next('tok')}, 'agent', ${`h-${ids.next('tok')}`}, 'qgt_', ${userId}, ${newest}, ${lastUsed}, now())`.execute(
        handle.db,
      )
    }

    const first = await deps.agents.listForUser(person.user.id, { limit: 2, after: null })
    expect(first.map((a) => a.id)).toEqual([...made].reverse())
    expect(first[0]).toEqual({
      id: newest,
      type: 'service_auth',
      name: 'Release bot',
      description: 'Publishes the release notes.',
      scopes: allScopes,
      createdAt: expect.any(Date),
      claimedAt: expect.any(Date),
      lastUsedAt: used,
      revokedAt: null,
      scopeRequest: null,
    })
    expect(first[1]).toMatchObject({ name: `Agent ${made[1]?.slice(-4)}`, description: null, lastUsedAt: null })
    const rest = await deps.agents.listForUser(person.user.id, { limit: 2, after: made[1] as string })
    expect(rest.map((a) => a.id)).toEqual([made[0]])
    expect(await deps.agents.listForUser(stranger.user.id, { limit: 10, after: null })).not.toContainEqual(
      expect.objectContaining({ id: newest }),
    )
  })

  it('revokes an agent and all its tokens at once; again changes nothing; another person’s is not_found', async () => {
    const { registered, token: issued, assertionId } = await claimedAgent()
    const refreshed = await exchange(registered, assertionId, 'claimed', new Date())
    expect(refreshed.outcome.ok).toBe(true)
    const at = new Date()
    const audit = event('agent.revoked', { workspaceId: owner.workspaceId, data: { agentId: registered.id } })
    expect(await deps.agents.revokeAgent({ registrationId: registered.id, userId: stranger.user.id, at, audit })).toEqual({
      ok: false,
      reason: 'not_found',
    })
    expect(await deps.agents.revokeAgent({ registrationId: 'agt_missing', userId: owner.user.id, at, audit })).toEqual({
      ok: false,
      reason: 'not_found',
    })
    const revoked = await deps.agents.revokeAgent({ registrationId: registered.id, userId: owner.user.id, at, audit })
    expect(revoked).toEqual({ ok: true, agent: expect.objectContaining({ id: registered.id, revokedAt: at }) })
    expect((await tokensOf(registered.id)).map((t) => [t.id, t.revoked_at])).toEqual([
      [issued.id, at],
      [refreshed.token.id, at],
    ])
    const again = await deps.agents.revokeAgent({
      registrationId: registered.id,
      userId: owner.user.id,
      at: later(at, MINUTE),
      audit: event('agent.revoked', { workspaceId: owner.workspaceId, data: { agentId: registered.id } }),
    })
    expect(again).toEqual({ ok: true, agent: expect.objectContaining({ revokedAt: at }) })
    expect((await eventsAbout(registered.id)).filter((e) => e.startsWith('agent.revoked'))).toEqual([`agent.revoked@${owner.workspaceId}`])
    expect(await deps.agents.findById(registered.id)).toMatchObject({ revokedAt: at })
  })
})

describe(`an agent's own revocation (${testEngine})`, () => {
  /** The callback as the agent-auth package gives it, recording what the store handed it. */
  function selfRevoked() {
    const seen: { by: AgentOwner | null; tokenId: string | null }[] = []
    const audit = (registration: AgentRegistrationRecord, by: AgentOwner | null, tokenId: string | null) => {
      seen.push({ by, tokenId })
      return by === null
        ? null
        : event('agent.revoked', {
            actor: agentActor(registration.id, by),
            via: { surface: 'api', credential: 'agent', credentialId: tokenId },
            workspaceId: by.personalWorkspaceId,
            data: { agentId: registration.id, reason: 'revoked_by_agent' },
          })
    }
    return { seen, audit }
  }
  const byToken = (issued: Token) => ({ kind: 'token', secretHash: issued.secretHash }) as const
  const byAssertion = async (registrationId: string, assertionId: string) =>
    ({ kind: 'assertion', registrationId, assertionIdHash: await sha256Hex(assertionId) }) as const

  it('with a live token: the registration and every token of it are revoked at once, one event; the rest is gone after', async () => {
    const { registered, token: issued, assertionId } = await claimedAgent()
    const refreshed = await exchange(registered, assertionId, 'claimed', new Date())
    expect(refreshed.outcome.ok).toBe(true)
    const at = new Date()
    const { seen, audit } = selfRevoked()
    const ended = await deps.agents.revokeSelf({ credential: byToken(issued), at, audit })
    expect(ended).toEqual({
      ok: true,
      registration: expect.objectContaining({ id: registered.id, revokedAt: at, claimedBy: asOwner(owner) }),
    })
    expect(seen).toEqual([{ by: asOwner(owner), tokenId: issued.id }])
    expect((await tokensOf(registered.id)).map((t) => [t.id, t.revoked_at])).toEqual([
      [issued.id, at],
      [refreshed.token.id, at],
    ])
    expect((await exchange(registered, assertionId, 'claimed', later(at, MINUTE))).outcome).toEqual({ ok: false, reason: 'gone' })
    for (const credential of [byToken(refreshed.token), await byAssertion(registered.id, assertionId)]) {
      expect(await deps.agents.revokeSelf({ credential, at: later(at, MINUTE), audit })).toEqual({ ok: false, reason: 'gone' })
    }
    expect(seen).toHaveLength(1)
    expect((await eventsAbout(registered.id)).filter((e) => e.startsWith('agent.revoked'))).toEqual([`agent.revoked@${owner.workspaceId}`])
    expect(await deps.agents.findById(registered.id)).toMatchObject({ revokedAt: at })
  })

  it('with the current assertion: the same, and the event names no token', async () => {
    const { registered, token: issued, assertionId } = await claimedAgent()
    const at = new Date()
    const { seen, audit } = selfRevoked()
    for (const credential of [await byAssertion(registered.id, 'another-jti'), await byAssertion('agt_missing', assertionId)]) {
      expect(await deps.agents.revokeSelf({ credential, at, audit })).toEqual({ ok: false, reason: 'gone' })
    }
    expect(await deps.agents.findById(registered.id)).toMatchObject({ revokedAt: null })
    const ended = await deps.agents.revokeSelf({ credential: await byAssertion(registered.id, assertionId), at, audit })
    expect(ended.ok).toBe(true)
    expect(seen).toEqual([{ by: asOwner(owner), tokenId: null }])
    expect(await deps.credentials.find({ secretHash: issued.secretHash })).toMatchObject({ revokedAt: at })
  })

  it('refuses an expired token, an API key, and an assertion replaced at the claim or past the claim window', async () => {
    const { registered, token: issued } = await claimedAgent()
    const { seen, audit } = selfRevoked()
    const expired = await deps.agents.revokeSelf({ credential: byToken(issued), at: later(new Date(), 2 * HOUR), audit })
    expect(expired).toEqual({ ok: false, reason: 'gone' })
    const key = await deps.agents.revokeSelf({
      credential: { kind: 'token', secretHash: owner.credential.secretHash },
      at: new Date(),
      audit,
    })
    expect(key).toEqual({ ok: false, reason: 'gone' })
    expect(await deps.credentials.find(owner.credential)).toMatchObject({ revokedAt: null })

    // An anonymous agent claimed since: its pre-claim assertion was replaced.
    const claimed = await register('anonymous')
    const started = await startClaim(claimed)
    expect(started.outcome.ok).toBe(true)
    expect((await confirm(started.code, owner, later(claimed.at, MINUTE))).ok).toBe(true)
    const replaced = await byAssertion(claimed.id, claimed.assertionId as string)
    expect(await deps.agents.revokeSelf({ credential: replaced, at: later(claimed.at, 2 * MINUTE), audit })).toEqual({
      ok: false,
      reason: 'gone',
    })

    // An unclaimed one whose claim window is over.
    const late = await register('anonymous')
    const over = await byAssertion(late.id, late.assertionId as string)
    expect(await deps.agents.revokeSelf({ credential: over, at: later(late.at, 24 * HOUR), audit })).toEqual({ ok: false, reason: 'gone' })
    expect(seen).toEqual([])
    for (const id of [registered.id, claimed.id, late.id]) expect(await deps.agents.findById(id)).toMatchObject({ revokedAt: null })
  })

  it('an unclaimed agent ends itself with its pre-claim token: revoked, and nobody’s trail hears of it', async () => {
    const anonymous = await register('anonymous')
    const { token: issued } = await exchange(anonymous, anonymous.assertionId as string, 'unclaimed', anonymous.at)
    const { seen, audit } = selfRevoked()
    const ended = await deps.agents.revokeSelf({ credential: byToken(issued), at: anonymous.at, audit })
    expect(ended).toEqual({
      ok: true,
      registration: expect.objectContaining({ id: anonymous.id, revokedAt: anonymous.at, claimedBy: null }),
    })
    expect(seen).toEqual([{ by: null, tokenId: issued.id }])
    expect(await deps.credentials.find({ secretHash: issued.secretHash })).toMatchObject({ revokedAt: anonymous.at })
    expect((await exchange(anonymous, anonymous.assertionId as string, 'unclaimed', anonymous.at)).outcome).toEqual({
      ok: false,
      reason: 'gone',
    })
    expect(await eventsAbout(anonymous.id)).toEqual([])
  })

  it('leaves no live token behind an end that raced with an exchange', async () => {
    for (let round = 0; round < 5; round++) {
      const { registered, assertionId } = await claimedAgent()
      const at = new Date()
      const [issued, ended] = await Promise.all([
        exchange(registered, assertionId, 'claimed', at),
        deps.agents.revokeSelf({ credential: await byAssertion(registered.id, assertionId), at, audit: selfRevoked().audit }),
      ])
      expect(ended.ok).toBe(true)
      expect((await tokensOf(registered.id)).filter((t) => t.revoked_at === null)).toEqual([])
      expect(await tokensOf(registered.id)).toHaveLength(issued.outcome.ok ? 2 : 1)
    }
  })
})

describe(`audit events on someone's behalf (${testEngine})`, () => {
  it('reads back onBehalfOf as written, by either writer, and leaves the key out otherwise', async () => {
    const by = asOwner(owner)
    const onBehalf = filed('agent.token_issued', by, agentActor('agt_x', by), { agentId: 'agt_x' })
    const statement = filed('agent.token_issued', by, agentActor('agt_y', by), { agentId: 'agt_y' })
    const plain = filed('agent.registered', by, agentActor('agt_z', null), { agentId: 'agt_z' })
    const { insertAudit } = await import('../src/audit.ts')
    await insertAudit(handle.db, onBehalf)
    await insertAudit(handle.db, plain)
    await sql`${withClauses([
      ['src', sql`SELECT 1 AS one`],
      ['audit', auditFrom('src', statement)],
    ])} SELECT 1`.execute(handle.db)
    const read = await deps.audit.listForAccount(owner.user.id, { limit: 500, after: null }, retentionAt(new Date()))
    const byId = new Map(read.map((e) => [e.id, e]))
    expect(byId.get(onBehalf.id)?.actor).toEqual({
      kind: 'agent',
      id: 'agt_x',
      label: `agent of ${by.username}`,
      onBehalfOf: { id: by.id, label: by.username },
    })
    expect(byId.get(statement.id)?.actor).toEqual(statement.actor)
    expect(byId.get(plain.id)?.actor).toEqual({ kind: 'agent', id: 'agt_z', label: 'unclaimed agent' })
    expect(Object.hasOwn(byId.get(plain.id)?.actor ?? {}, 'onBehalfOf')).toBe(false)
    const row = await handle.db
      .selectFrom('audit_events')
      .select(['actor_for_id', 'actor_for_label'])
      .where('id', '=', onBehalf.id)
      .executeTakeFirstOrThrow()
    expect(row).toEqual({ actor_for_id: by.id, actor_for_label: by.username })
  })
})

describe(`scope requests (step-up) (${testEngine})`, () => {
  /** A claimed service_auth agent holding `artifacts:read` only. */
  async function claimedAgent(at: Date): Promise<Registered> {
    const registered = await register('service_auth', { at })
    await handle.db
      .updateTable('agent_registrations')
      .set({ post_claim_scopes: ['artifacts:read'] })
      .where('id', '=', registered.id)
      .execute()
    expect((await confirm(registered.userCode as string, owner, at)).ok).toBe(true)
    return registered
  }

  async function request(registered: Registered, scopes: Scope[], at: Date, code = userCode()) {
    const outcome = await deps.agents.startScopeRequest({
      registrationId: registered.id,
      scopes,
      userCode: { hash: await sha256Hex(code), expiresAt: later(at, 10 * MINUTE) },
      at,
      audit: (registration, by) =>
        filed('agent.scopes_requested', by, agentActor(registration.id, by), { agentId: registration.id, added: scopes }),
    })
    return { code, outcome }
  }

  async function approve(code: string, by: SeededUser, scopes: Scope[], at: Date) {
    return deps.agents.approveScopeRequest({
      userCodeHash: await sha256Hex(code),
      userId: by.user.id,
      scopes,
      at,
      audit: (registration, person) =>
        event('agent.scopes_granted', {
          actor: { kind: 'user', id: person.id, label: person.username },
          via: { surface: 'web', credential: 'session', credentialId: 'ses_1' },
          workspaceId: person.personalWorkspaceId,
          data: { agentId: registration.id, added: scopes, scopes: registration.postClaimScopes },
        }),
    })
  }

  it('starts only for a claimed, unrevoked agent; a new request replaces the earlier one and its code', async () => {
    const at = new Date()
    const unclaimed = await register('service_auth', { at })
    expect((await request(unclaimed, ['artifacts:share'], at)).outcome).toEqual({ ok: false, reason: 'gone' })
    expect(await deps.agents.findById(unclaimed.id)).toMatchObject({ requestedScopes: null })

    const registered = await claimedAgent(at)
    const first = await request(registered, ['artifacts:share'], at)
    expect(first.outcome).toEqual({ ok: true })
    const second = await request(registered, ['artifacts:create', 'artifacts:share'], at)
    expect(second.outcome).toEqual({ ok: true })
    expect(await deps.agents.findByUserCode(await sha256Hex(first.code))).toBeNull()
    expect(await deps.agents.findByUserCode(await sha256Hex(second.code))).toMatchObject({
      id: registered.id,
      requestedScopes: ['artifacts:create', 'artifacts:share'],
      userCodeExpiresAt: later(at, 10 * MINUTE),
    })
    // The person's list of agents shows the request waiting (the scopes and when its code ends).
    const listed = await deps.agents.listForUser(owner.user.id, { limit: 100, after: null })
    expect(listed.find((agent) => agent.id === registered.id)?.scopeRequest).toEqual({
      scopes: ['artifacts:create', 'artifacts:share'],
      expiresAt: later(at, 10 * MINUTE),
    })
    expect(await approve(first.code, owner, ['artifacts:share'], later(at, MINUTE))).toEqual({ ok: false, reason: 'gone' })
    expect(await eventsAbout(registered.id)).toEqual([
      `agent.registered@${owner.workspaceId}`,
      `agent.claimed@${owner.workspaceId}`,
      `agent.scopes_requested@${owner.workspaceId}`,
      `agent.scopes_requested@${owner.workspaceId}`,
    ])
  })

  it('refuses another person, an expired code, other scopes than shown and a revoked agent: nothing is granted', async () => {
    const at = new Date()
    const registered = await claimedAgent(at)
    const { code } = await request(registered, ['artifacts:share'], at)
    expect(await approve(code, stranger, ['artifacts:share'], later(at, MINUTE))).toEqual({ ok: false, reason: 'gone' })
    expect(await approve(code, owner, ['artifacts:share'], later(at, 10 * MINUTE))).toEqual({ ok: false, reason: 'gone' })
    expect(await approve(code, owner, ['artifacts:share', 'artifacts:delete'], later(at, MINUTE))).toEqual({ ok: false, reason: 'gone' })
    expect(await deps.agents.findById(registered.id)).toMatchObject({
      postClaimScopes: ['artifacts:read'],
      requestedScopes: ['artifacts:share'],
    })
    await deps.agents.revokeAgent({
      registrationId: registered.id,
      userId: owner.user.id,
      at: later(at, MINUTE),
      audit: event('agent.revoked', { workspaceId: owner.workspaceId, data: { agentId: registered.id } }),
    })
    expect(await approve(code, owner, ['artifacts:share'], later(at, 2 * MINUTE))).toEqual({ ok: false, reason: 'gone' })
    expect((await request(registered, ['artifacts:share'], later(at, 2 * MINUTE))).outcome).toEqual({ ok: false, reason: 'gone' })
    expect((await eventsAbout(registered.id)).filter((e) => e.startsWith('agent.scopes_granted'))).toEqual([])
  })

  it('approves once for the person who claimed the agent: the union, in order, and the request and code end', async () => {
    const at = new Date()
    const registered = await claimedAgent(at)
    const { code } = await request(registered, ['artifacts:create', 'artifacts:share'], at)
    const approvedAt = later(at, MINUTE)
    const approved = await approve(code, owner, ['artifacts:create', 'artifacts:share'], approvedAt)
    expect(approved).toEqual({
      ok: true,
      registration: expect.objectContaining({
        id: registered.id,
        postClaimScopes: ['artifacts:read', 'artifacts:create', 'artifacts:share'],
        requestedScopes: null,
        userCodeExpiresAt: null,
        claimedBy: asOwner(owner),
      }),
    })
    expect(await deps.agents.findByUserCode(await sha256Hex(code))).toBeNull()
    expect(await approve(code, owner, ['artifacts:create', 'artifacts:share'], approvedAt)).toEqual({ ok: false, reason: 'gone' })
    expect((await eventsAbout(registered.id)).slice(-2)).toEqual([
      `agent.scopes_requested@${owner.workspaceId}`,
      `agent.scopes_granted@${owner.workspaceId}`,
    ])
  })
})
