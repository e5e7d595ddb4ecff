/**
 * More scopes on request (step-up) over a CANNED store: which requests are refused and how, what
 * a started request carries, and how the token endpoint answers while one is pending.
 */
import { type CoreDeps, type CredentialRecord, createIdGenerator, type Scope, sha256Hex } from '@quire/core'
import { describe, expect, it } from 'vitest'
import { signAssertion } from '../src/assertion.ts'
import { agentGrantTypes, createAgentAuth } from '../src/index.ts'
import { newScopes } from '../src/scopes.ts'
import { cannedStore, owner, registration, t0, testKey, testSettings, urls } from './canned-store.ts'

const allowed: Scope[] = ['artifacts:read', 'artifacts:create', 'artifacts:share']
const later = (seconds: number) => new Date(t0.getTime() + seconds * 1000)
const errorOf = (outcome: ReturnType<typeof newScopes>) => (outcome.ok ? null : outcome.reply.body)

describe('which scopes a claimed agent may ask for', () => {
  const held: Scope[] = ['artifacts:read']

  it('takes a space-separated string or a list, drops what is held, and keeps the scope order', () => {
    expect(newScopes('artifacts:share artifacts:read artifacts:create', held, allowed)).toEqual({
      ok: true,
      scopes: ['artifacts:create', 'artifacts:share'],
    })
    expect(newScopes(['artifacts:share', 'artifacts:share'], held, allowed)).toEqual({ ok: true, scopes: ['artifacts:share'] })
  })

  it('refuses every scope outside the allowed set at once, naming the setting', () => {
    const refused = newScopes('artifacts:share artifacts:delete agents:manage', held, allowed)
    expect(refused).toMatchObject({ ok: false, reply: { status: 400, body: { error: 'invalid_scope' } } })
    expect(errorOf(refused)?.error_description).toContain('artifacts:delete, agents:manage are not allowed')
    expect(errorOf(refused)?.error_description).toContain('AUTH_MD_ALLOWED_SCOPES')
  })

  it.each([
    ['an unknown scope', 'artifacts:launch', 'invalid_scope', 'not a scope'],
    ['nothing', '', 'invalid_scope', 'empty'],
    ['only held scopes', 'artifacts:read', 'invalid_scope', 'already holds'],
    ['a number', 42, 'invalid_request', 'space-separated'],
    ['a list with a number', ['artifacts:share', 1], 'invalid_request', 'space-separated'],
  ])('refuses %s', (_what, requested, error, words) => {
    const refused = newScopes(requested, held, allowed)
    expect(errorOf(refused)).toMatchObject({ error, error_description: expect.stringContaining(words) })
  })
})

/** The layer over a canned store, with one canned credential behind every bearer token. */
function stepUpLayer(over: { credential?: Partial<CredentialRecord> | null; findById?: ReturnType<typeof registration> } = {}) {
  const canned = cannedStore({ findById: over.findById ?? registration({ claimedBy: owner, claimedAt: t0, userCodeExpiresAt: null }) })
  const clock = { at: t0, now: () => clock.at }
  const credential: CredentialRecord | null =
    over.credential === null
      ? null
      : {
          id: 'tok_1',
          kind: 'agent',
          scopes: ['artifacts:read'],
          expiresAt: later(3600),
          revokedAt: null,
          audience: null,
          user: { id: owner.id, username: owner.username, email: owner.email, emailVerified: true } as CredentialRecord['user'],
          agentId: registration().id,
          agentName: 'Release bot',
          artifactId: null,
          role: null,
          accountWorkspaceId: owner.personalWorkspaceId,
          ...over.credential,
        }
  const deps = {
    clock,
    ids: createIdGenerator(),
    sha256: sha256Hex,
    agents: canned.store,
    credentials: { find: async () => credential },
  } as unknown as CoreDeps
  return { auth: createAgentAuth(deps, testSettings({ allowedScopes: allowed }), urls), canned, clock }
}

describe('POST /agent/identity/scopes (decision logic, canned store)', () => {
  it('starts a request for the new scopes with a 10-minute code, on the person’s trail', async () => {
    const { auth, canned } = stepUpLayer()
    const reply = await auth.requestScopes('qgt_x', { scopes: 'artifacts:share artifacts:read' })
    expect(reply).toMatchObject({
      status: 200,
      body: { status: 'initiated', scopes_requested: ['artifacts:share'], expires_at: later(600).toISOString() },
    })
    expect(canned.asked('startScopeRequest')).toMatchObject([
      { registrationId: registration().id, scopes: ['artifacts:share'], userCode: { expiresAt: later(600) } },
    ])
    expect(canned.events).toMatchObject([
      {
        action: 'agent.scopes_requested',
        actor: { kind: 'agent', onBehalfOf: { id: owner.id } },
        via: { credential: 'agent', credentialId: 'tok_1' },
        data: { added: ['artifacts:share'] },
      },
    ])
  })

  it.each([
    ['no token', null, {}, 401, 'invalid_token'],
    ['an unknown token', 'qgt_x', { credential: null }, 401, 'invalid_token'],
    ['an API key', 'qak_x', { credential: { kind: 'api_key', agentId: null } }, 401, 'invalid_token'],
    ['a revoked token', 'qgt_x', { credential: { revokedAt: t0 } }, 401, 'invalid_token'],
    ['an expired token', 'qgt_x', { credential: { expiresAt: t0 } }, 401, 'invalid_token'],
    ['a revoked agent', 'qgt_x', { findById: registration({ claimedBy: owner, revokedAt: t0 }) }, 401, 'invalid_token'],
    ['an unclaimed agent', 'qgt_x', { credential: { user: null }, findById: registration() }, 403, 'not_claimed'],
  ] as const)('refuses %s and starts nothing', async (_what, token, over, status, error) => {
    const { auth, canned } = stepUpLayer(over as Parameters<typeof stepUpLayer>[0])
    expect(await auth.requestScopes(token, { scopes: 'artifacts:share' })).toMatchObject({ status, body: { error } })
    expect(canned.asked('startScopeRequest')).toEqual([])
  })
})

describe('jwt-bearer while a scope request is pending (decision logic, canned store)', () => {
  const pending = registration({
    claimedBy: owner,
    claimedAt: t0,
    postClaimScopes: ['artifacts:read'],
    requestedScopes: ['artifacts:share'],
    userCodeExpiresAt: later(600),
  })
  const exchange = async (scope?: string) => {
    const { assertion } = await signAssertion(
      testKey,
      urls.webUrl,
      { registrationId: pending.id, jti: 'jti-1', registrationType: 'service_auth', stage: 'claimed', scopes: ['artifacts:read'] },
      { issuedAt: t0, expiresAt: later(86_400) },
    )
    return { grant_type: agentGrantTypes.jwtBearer, assertion, ...(scope === undefined ? {} : { scope }) }
  }

  it('answers authorization_pending for a requested scope, expired_token once its code ran out, and nothing else changes', async () => {
    const { auth, clock } = stepUpLayer({ findById: pending })
    expect(await auth.token(await exchange('artifacts:share'))).toMatchObject({ status: 400, body: { error: 'authorization_pending' } })
    expect(await auth.token(await exchange('artifacts:read'))).toMatchObject({ status: 200, body: { scope: 'artifacts:read' } })
    expect(await auth.token(await exchange())).toMatchObject({ status: 200, body: { scope: 'artifacts:read' } })
    clock.at = later(600)
    expect(await auth.token(await exchange('artifacts:read artifacts:share'))).toMatchObject({
      status: 400,
      body: { error: 'expired_token' },
    })
  })

  it('carries the scopes once approved', async () => {
    const approved = { ...pending, postClaimScopes: ['artifacts:read', 'artifacts:share'] as Scope[], requestedScopes: null }
    const { auth } = stepUpLayer({ findById: approved })
    expect(await auth.token(await exchange('artifacts:share'))).toMatchObject({ status: 200, body: { scope: 'artifacts:share' } })
  })
})
