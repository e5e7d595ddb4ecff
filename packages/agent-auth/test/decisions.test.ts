/**
 * The package's decision logic over a CANNED store (test/canned-store.ts): which answer each
 * input and registration state gets, what the commands and audit events carry. Storage
 * behaviour itself is tested black-box against the running apps.
 */
import { sha256Hex } from '@quire/core'
import { describe, expect, it } from 'vitest'
import { signAssertion, verifyAssertion } from '../src/assertion.ts'
import { agentGrantTypes } from '../src/index.ts'
import { layer, owner, registration, t0, testKey, testSettings, urls } from './canned-store.ts'

const issuer = urls.webUrl
const claimGrant = (claimToken: string | undefined) => ({ grant_type: agentGrantTypes.claim, claim_token: claimToken })
const later = (seconds: number) => new Date(t0.getTime() + seconds * 1000)

async function assertionFor(over: { stage?: 'unclaimed' | 'claimed'; type?: 'anonymous' | 'service_auth'; jti?: string; exp?: Date } = {}) {
  const { assertion } = await signAssertion(
    testKey,
    issuer,
    {
      registrationId: registration().id,
      jti: over.jti ?? 'jti-1',
      registrationType: over.type ?? 'anonymous',
      stage: over.stage ?? 'unclaimed',
      scopes: ['artifacts:read'],
    },
    { issuedAt: t0, expiresAt: over.exp ?? later(3600) },
  )
  return assertion
}

describe('register (decision logic, canned store)', () => {
  const refused: [string, unknown, string][] = [
    ['a non-object body', 'hello', 'invalid_request'],
    ['an array body', [{ type: 'anonymous' }], 'invalid_request'],
    ['null', null, 'invalid_request'],
    ['a missing type', { login_hint: 'ada@example.com' }, 'invalid_request'],
    ['an unknown type', { type: 'identity_assertion' }, 'invalid_request'],
    ['a type of the wrong case', { type: 'ANONYMOUS' }, 'invalid_request'],
    ['service_auth without login_hint', { type: 'service_auth' }, 'invalid_login_hint'],
    ['a login_hint that is no email', { type: 'service_auth', login_hint: 'ada' }, 'invalid_login_hint'],
    ['a login_hint with a display name', { type: 'service_auth', login_hint: 'Ada <ada@example.com>' }, 'invalid_login_hint'],
    ['a login_hint that is not a string', { type: 'service_auth', login_hint: 42 }, 'invalid_login_hint'],
    ['anonymous with a login_hint', { type: 'anonymous', login_hint: 'ada@example.com' }, 'invalid_request'],
    ['an unknown scope', { type: 'service_auth', login_hint: 'ada@example.com', scopes: ['artifacts:everything'] }, 'invalid_scope'],
    [
      'a scope outside the allowed ones',
      { type: 'service_auth', login_hint: 'ada@example.com', scopes: ['artifacts:delete'] },
      'invalid_scope',
    ],
    ['an empty scope list', { type: 'service_auth', login_hint: 'ada@example.com', scopes: [] }, 'invalid_scope'],
    ['scopes of the wrong type', { type: 'service_auth', login_hint: 'ada@example.com', scopes: { read: true } }, 'invalid_request'],
    ['a name that is not a string', { type: 'service_auth', login_hint: 'ada@example.com', name: 42 }, 'validation_failed'],
    ['an empty name', { type: 'service_auth', login_hint: 'ada@example.com', name: '   ' }, 'validation_failed'],
    ['a name over 80 characters', { type: 'service_auth', login_hint: 'ada@example.com', name: 'x'.repeat(81) }, 'validation_failed'],
    ['a name with a line break', { type: 'service_auth', login_hint: 'ada@example.com', name: 'Release\nbot' }, 'validation_failed'],
    ['a name with a control character', { type: 'anonymous', name: 'bot\u0007' }, 'validation_failed'],
    [
      'a description over 500 characters',
      { type: 'service_auth', login_hint: 'ada@example.com', description: 'x'.repeat(501) },
      'validation_failed',
    ],
    ['an empty description', { type: 'anonymous', description: '' }, 'validation_failed'],
  ]
  for (const [what, body, error] of refused) {
    it(`refuses ${what} with ${error}, creating nothing`, async () => {
      const { auth, canned } = layer()
      const reply = await auth.register(body)
      expect(reply.status).toBe(400)
      expect(reply.body).toMatchObject({ error })
      expect(typeof reply.body?.error_description).toBe('string')
      expect(canned.calls).toEqual([])
    })
  }

  it('names the field that failed, and takes a name of exactly 80 characters (counted as characters, not UTF-16 units)', async () => {
    const named = (fields: Record<string, unknown>) =>
      layer().auth.register({ type: 'service_auth', login_hint: 'ada@example.com', ...fields })
    expect((await named({ name: '' })).body?.error_description).toMatch(/^name /)
    expect((await named({ description: 7 })).body?.error_description).toMatch(/^description /)
    const longest = `${'🤖'.repeat(40)}${'b'.repeat(40)}`
    expect(await named({ name: longest })).toMatchObject({ status: 200, body: { name: longest } })
    expect(await named({ name: null, description: null })).toMatchObject({
      status: 200,
      body: { name: expect.stringMatching(/^Agent .{4}$/) },
    })
  })

  it('refuses anonymous registration when no pre-claim scopes are configured', async () => {
    const { auth, canned } = layer({}, testSettings({ preClaimScopes: [] }))
    const reply = await auth.register({ type: 'anonymous' })
    expect(reply).toMatchObject({ status: 400, body: { error: 'anonymous_not_enabled' } })
    expect(canned.calls).toEqual([])
  })

  it('registers service_auth: a code and a claim token, no token, no assertion; only hashes go to the store', async () => {
    const { auth, canned } = layer()
    const reply = await auth.register({
      type: 'service_auth',
      login_hint: '  Ada@Example.COM ',
      scopes: ['artifacts:create', 'artifacts:read', 'artifacts:read'],
      name: '  Release bot ',
      description: 'Publishes the release notes.',
    })
    expect(reply.status).toBe(200)
    const body = reply.body as Record<string, unknown> & { claim: Record<string, unknown> }
    expect(Object.keys(body).sort()).toEqual([
      'claim',
      'claim_token',
      'claim_token_expires',
      'name',
      'post_claim_scopes',
      'registration_id',
      'registration_type',
    ])
    expect(body.registration_type).toBe('service_auth')
    expect(body.name).toBe('Release bot')
    expect(body.registration_id).toMatch(/^agt_/)
    expect(body.claim_token).toMatch(/^qct_[A-Za-z0-9_-]{43}$/)
    expect(body.claim_token_expires).toBe(later(86_400).toISOString())
    expect(body.post_claim_scopes).toEqual(['artifacts:read', 'artifacts:create'])
    const code = body.claim.user_code as string
    expect(code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/)
    expect(body.claim).toEqual({
      user_code: code,
      verification_uri: 'https://quire.example/agent/claim',
      verification_uri_complete: `https://quire.example/agent/claim?user_code=${code}`,
      expires_in: 600,
      interval: 5,
    })
    const [command] = canned.asked('createRegistration') as Record<string, unknown>[]
    expect(command).toMatchObject({
      id: body.registration_id,
      type: 'service_auth',
      name: 'Release bot',
      description: 'Publishes the release notes.',
      loginHint: 'ada@example.com',
      preClaimScopes: [],
      postClaimScopes: ['artifacts:read', 'artifacts:create'],
      claimTokenHash: await sha256Hex(body.claim_token as string),
      claimExpiresAt: later(86_400),
      userCode: { hash: await sha256Hex(code.replace('-', '')), expiresAt: later(600) },
      assertionIdHash: null,
      pollIntervalSeconds: 5,
      at: t0,
    })
    expect(JSON.stringify(command)).not.toContain(body.claim_token as string)
    expect(canned.events).toEqual([
      {
        id: expect.stringMatching(/^evt_/),
        at: t0,
        action: 'agent.registered',
        actor: { kind: 'agent', id: body.registration_id, label: 'Release bot (unclaimed agent)' },
        via: { surface: 'api', credential: null, credentialId: null },
        workspaceId: owner.personalWorkspaceId,
        artifactId: null,
        data: { agentId: body.registration_id, type: 'service_auth', requestedScopes: ['artifacts:read', 'artifacts:create'] },
      },
    ])
  })

  it('gives service_auth every allowed scope when scopes are omitted (a space-separated string works too)', async () => {
    const { auth } = layer()
    expect((await auth.register({ type: 'service_auth', login_hint: 'ada@example.com' })).body?.post_claim_scopes).toEqual([
      'artifacts:read',
      'artifacts:create',
      'artifacts:update',
    ])
    expect(
      (await auth.register({ type: 'service_auth', login_hint: 'ada@example.com', scopes: 'artifacts:update' })).body?.post_claim_scopes,
    ).toEqual(['artifacts:update'])
  })

  it('draws another code when the store says it is taken', async () => {
    const { auth, canned } = layer({ createRegistration: [{ ok: false, reason: 'code_taken' }, { ok: true }] })
    const reply = await auth.register({ type: 'service_auth', login_hint: 'ada@example.com' })
    expect(reply.status).toBe(200)
    const [first, second] = canned.asked('createRegistration') as { userCode: { hash: string } }[]
    expect(first?.userCode.hash).not.toBe(second?.userCode.hash)
  })

  it('registers anonymous: an unclaimed assertion for the pre-claim scopes, its jti stored hashed', async () => {
    const { auth, canned } = layer()
    const reply = await auth.register({ type: 'anonymous', scopes: ['artifacts:read', 'artifacts:update'] })
    expect(reply.status).toBe(200)
    const body = reply.body as Record<string, unknown>
    expect(Object.keys(body).sort()).toEqual([
      'assertion_expires',
      'claim_token',
      'claim_token_expires',
      'identity_assertion',
      'name',
      'post_claim_scopes',
      'pre_claim_scopes',
      'registration_id',
      'registration_type',
    ])
    expect(body).toMatchObject({
      registration_type: 'anonymous',
      name: `Agent ${String(body.registration_id).slice(-4)}`,
      pre_claim_scopes: ['artifacts:read'],
      post_claim_scopes: ['artifacts:read', 'artifacts:update'],
      assertion_expires: later(3600).toISOString(),
    })
    const verified = await verifyAssertion(testKey, issuer, body.identity_assertion as string, t0)
    expect(verified).toMatchObject({
      ok: true,
      claims: { registrationId: body.registration_id, registrationType: 'anonymous', stage: 'unclaimed', scopes: ['artifacts:read'] },
    })
    const [command] = canned.asked('createRegistration') as Record<string, unknown>[]
    expect(command).toMatchObject({
      type: 'anonymous',
      name: body.name,
      description: null,
      loginHint: null,
      userCode: null,
      audit: null,
      preClaimScopes: ['artifacts:read'],
    })
    if (!verified.ok) throw new Error('unreachable')
    expect(command?.assertionIdHash).toBe(await sha256Hex(verified.claims.jti))
    expect(canned.events).toEqual([])
  })
})

describe('claim request (decision logic, canned store)', () => {
  const body = { claim_token: 'qct_x', login_hint: 'ada@example.com' }

  it('validates the body before looking anything up', async () => {
    const cases: [unknown, string][] = [
      ['x', 'invalid_request'],
      [{ login_hint: 'ada@example.com' }, 'invalid_request'],
      [{ claim_token: 42, login_hint: 'ada@example.com' }, 'invalid_request'],
      [{ ...body, type: 'identity_assertion' }, 'invalid_request'],
      [{ claim_token: 'qct_x' }, 'invalid_login_hint'],
      [{ claim_token: 'qct_x', login_hint: 'not-an-email' }, 'invalid_login_hint'],
    ]
    for (const [input, error] of cases) {
      const { auth, canned } = layer()
      const reply = await auth.requestClaim(input)
      expect(reply, JSON.stringify(input)).toMatchObject({ status: 400, body: { error } })
      expect(canned.calls).toEqual([])
    }
  })

  it('answers by the registration state: 401 unknown, 409 claimed/redeemed/revoked, 410 past the window', async () => {
    const cases: [ReturnType<typeof registration> | null, number, string][] = [
      [null, 401, 'invalid_claim_token'],
      [registration({ claimedBy: owner, claimedAt: t0 }), 409, 'claimed_or_in_flight'],
      [registration({ redeemedAt: t0 }), 409, 'claimed_or_in_flight'],
      [registration({ revokedAt: t0 }), 409, 'claimed_or_in_flight'],
      [registration({ claimExpiresAt: t0 }), 410, 'claim_expired'],
      [registration({ loginHint: 'bob@example.com' }), 400, 'invalid_login_hint'],
    ]
    for (const [found, status, error] of cases) {
      const { auth, canned } = layer({ findByClaimToken: found })
      expect(await auth.requestClaim(body)).toMatchObject({ status, body: { error } })
      expect(canned.asked('startClaim')).toEqual([])
      expect(canned.asked('findByClaimToken')).toEqual([await sha256Hex('qct_x')])
    }
  })

  it('starts the claim of an anonymous agent for any email, with a fresh code and an event for the person', async () => {
    const anonymous = registration({
      type: 'anonymous',
      loginHint: null,
      userCodeExpiresAt: null,
      preClaimScopes: ['artifacts:read'],
      pollIntervalSeconds: 10,
    })
    const { auth, canned } = layer({ findByClaimToken: anonymous })
    const reply = await auth.requestClaim({ ...body, login_hint: 'Bob@Example.com', type: 'login_hint' })
    expect(reply.status).toBe(200)
    const claim = reply.body?.claim as Record<string, unknown>
    expect(reply.body).toMatchObject({ registration_id: anonymous.id, status: 'initiated', expires_at: later(600).toISOString() })
    expect(claim).toMatchObject({ verification_uri: 'https://quire.example/agent/claim', expires_in: 600, interval: 10 })
    const [command] = canned.asked('startClaim') as Record<string, unknown>[]
    expect(command).toMatchObject({
      registrationId: anonymous.id,
      loginHint: 'bob@example.com',
      userCode: { hash: await sha256Hex((claim.user_code as string).replace('-', '')), expiresAt: later(600) },
      at: t0,
    })
    expect(canned.events).toMatchObject([
      {
        action: 'agent.claim_requested',
        actor: { kind: 'agent', id: anonymous.id, label: 'Release bot (unclaimed agent)' },
        workspaceId: owner.personalWorkspaceId,
      },
    ])
  })

  it('re-mints a service_auth code for the registered email, without an event; never past the claim window', async () => {
    const nearEnd = registration({ claimExpiresAt: later(120) })
    const { auth, canned } = layer({ findByClaimToken: nearEnd })
    const reply = await auth.requestClaim({ ...body, login_hint: 'ADA@example.com' })
    expect(reply).toMatchObject({ status: 200, body: { expires_at: later(120).toISOString(), claim: { expires_in: 120 } } })
    expect(canned.asked('startClaim')).toMatchObject([{ loginHint: 'ada@example.com', audit: null }])
    expect(canned.events).toEqual([])
  })

  it('answers by the state it raced into when the store says gone', async () => {
    const { auth } = layer({
      findByClaimToken: registration(),
      startClaim: { ok: false, reason: 'gone' },
      findById: registration({ claimedBy: owner }),
    })
    expect(await auth.requestClaim(body)).toMatchObject({ status: 409, body: { error: 'claimed_or_in_flight' } })
  })
})

describe('the claim page (decision logic, canned store)', () => {
  const ada = { id: 'usr_ada', email: 'ada@example.com', emailVerified: true, username: 'ada' }

  it('is unknown for malformed codes without asking the store, and for codes it does not find', async () => {
    const { auth, canned } = layer()
    expect(await auth.claimView('AEIO-UAEI', ada)).toEqual({ kind: 'unknown' })
    expect(canned.calls).toEqual([])
    expect(await auth.claimView('bcdf-ghjk', ada)).toEqual({ kind: 'unknown' })
    expect(canned.asked('findByUserCode')).toEqual([await sha256Hex('BCDFGHJK')])
  })

  it('classifies: claimed, expired code, closed window, another or unverified account, pending', async () => {
    const cases: [ReturnType<typeof registration>, typeof ada, string][] = [
      [registration({ claimedBy: owner }), ada, 'claimed'],
      [registration({ userCodeExpiresAt: t0 }), ada, 'expired'],
      [registration({ userCodeExpiresAt: null }), ada, 'expired'],
      [registration({ claimExpiresAt: t0 }), ada, 'expired'],
      [registration(), { ...ada, email: 'bob@example.com' }, 'wrong_account'],
      [registration(), { ...ada, emailVerified: false }, 'wrong_account'],
      [registration({ revokedAt: t0 }), ada, 'unknown'],
      [registration(), { ...ada, email: 'ADA@example.com' }, 'pending'],
    ]
    for (const [found, viewer, kind] of cases) {
      const { auth } = layer({ findByUserCode: found })
      expect((await auth.claimView('BCDF-GHJK', viewer)).kind).toBe(kind)
    }
  })

  it('shows a pending claim without the hinted email', async () => {
    const { auth } = layer({ findByUserCode: registration() })
    const view = await auth.claimView('bcdfghjk', ada)
    expect(view).toEqual({
      kind: 'pending',
      userCode: 'BCDF-GHJK',
      registration: {
        id: registration().id,
        type: 'service_auth',
        name: 'Release bot',
        description: null,
        scopes: ['artifacts:read', 'artifacts:create'],
        createdAt: t0,
        codeExpiresAt: later(600),
      },
    })
    expect(JSON.stringify(view)).not.toContain('ada@example.com')
  })

  it('confirms only a pending claim, recording the person and the session', async () => {
    const { auth, canned } = layer({ findByUserCode: registration() })
    const outcome = await auth.confirmClaim('BCDF-GHJK', { user: ada, sessionId: 'ses_1' })
    expect(outcome.kind).toBe('confirmed')
    expect(canned.asked('confirmClaim')).toMatchObject([{ userCodeHash: await sha256Hex('BCDFGHJK'), userId: 'usr_ada', at: t0 }])
    expect(canned.events).toEqual([
      {
        id: expect.stringMatching(/^evt_/),
        at: t0,
        action: 'agent.claimed',
        actor: { kind: 'user', id: 'usr_ada', label: 'ada' },
        via: { surface: 'web', credential: 'session', credentialId: 'ses_1' },
        workspaceId: 'ws_ada',
        artifactId: null,
        data: { agentId: registration().id, type: 'service_auth', scopes: ['artifacts:read', 'artifacts:create'] },
      },
    ])
  })

  it('does not ask the store to confirm for the wrong account or an expired code', async () => {
    for (const [found, viewer] of [
      [registration(), { ...ada, email: 'eve@example.com' }],
      [registration({ userCodeExpiresAt: t0 }), ada],
    ] as const) {
      const { auth, canned } = layer({ findByUserCode: found })
      expect((await auth.confirmClaim('BCDF-GHJK', { user: viewer, sessionId: 'ses_1' })).kind).not.toBe('confirmed')
      expect(canned.asked('confirmClaim')).toEqual([])
    }
  })

  it('answers by the state it raced into when the store refuses', async () => {
    const raced = layer({
      findByUserCode: registration(),
      confirmClaim: { ok: false, reason: 'gone' },
      findById: registration({ claimedBy: owner }),
    })
    expect(await raced.auth.confirmClaim('BCDF-GHJK', { user: ada, sessionId: 'ses_1' })).toEqual({ kind: 'claimed' })
  })
})

describe('the claim grant (decision logic, canned store)', () => {
  it('is not the layer’s business for other grant types', async () => {
    const { auth } = layer()
    expect(await auth.token({ grant_type: 'authorization_code' })).toBeNull()
    expect(await auth.token({})).toBeNull()
  })

  it('needs claim_token', async () => {
    const { auth } = layer()
    expect(await auth.token(claimGrant(undefined))).toMatchObject({ status: 400, body: { error: 'invalid_request' } })
  })

  it('answers the poll by the registration state', async () => {
    const cases: [Parameters<typeof layer>[0], string, number?][] = [
      [{ findByClaimToken: null }, 'invalid_grant'],
      [{ findByClaimToken: registration({ revokedAt: t0 }) }, 'invalid_grant'],
      [{ findByClaimToken: registration({ claimedBy: owner, redeemedAt: t0 }) }, 'invalid_grant'],
      [{ findByClaimToken: registration({ claimExpiresAt: t0 }) }, 'expired_token'],
      [{ findByClaimToken: registration({ claimedBy: owner, claimExpiresAt: t0 }) }, 'expired_token'],
      [{ findByClaimToken: registration() }, 'authorization_pending'],
      [{ findByClaimToken: registration(), recordPoll: 'slow_down' }, 'slow_down'],
      [{ findByClaimToken: registration({ userCodeExpiresAt: t0 }) }, 'expired_token'],
      [{ findByClaimToken: registration({ type: 'anonymous', loginHint: null, userCodeExpiresAt: null }) }, 'expired_token'],
      [{ findByClaimToken: registration({ claimedBy: owner }), redeemClaim: { ok: false, reason: 'gone' } }, 'invalid_grant'],
    ]
    for (const [answers, error] of cases) {
      const { auth } = layer(answers)
      const reply = await auth.token(claimGrant('qct_x'))
      expect(reply, JSON.stringify(answers)).toMatchObject({ status: 400, body: { error } })
    }
  })

  it('accepts the reference profile’s grant name too', async () => {
    const { auth } = layer({ findByClaimToken: registration() })
    expect(await auth.token({ grant_type: agentGrantTypes.claimAlias, claim_token: 'qct_x' })).toMatchObject({
      body: { error: 'authorization_pending' },
    })
  })

  it('redeems a claimed registration once: a post-claim token and a 30-day assertion', async () => {
    const { auth, canned } = layer({ findByClaimToken: registration({ claimedBy: owner, claimedAt: t0 }) })
    const reply = await auth.token(claimGrant('qct_x'))
    expect(reply?.status).toBe(200)
    const body = reply?.body as Record<string, unknown>
    expect(Object.keys(body).sort()).toEqual([
      'access_token',
      'assertion_expires',
      'expires_in',
      'identity_assertion',
      'scope',
      'token_type',
    ])
    expect(body).toMatchObject({
      token_type: 'Bearer',
      expires_in: 3600,
      scope: 'artifacts:read artifacts:create',
      assertion_expires: later(2_592_000).toISOString(),
    })
    expect(body.access_token).toMatch(/^qgt_[A-Za-z0-9_-]{43}$/)
    const verified = await verifyAssertion(testKey, issuer, body.identity_assertion as string, t0)
    expect(verified).toMatchObject({
      ok: true,
      claims: { stage: 'claimed', registrationType: 'service_auth', scopes: ['artifacts:read', 'artifacts:create'] },
    })
    if (!verified.ok) throw new Error('unreachable')
    const [command] = canned.asked('redeemClaim') as Record<string, unknown>[]
    expect(command).toMatchObject({
      claimTokenHash: await sha256Hex('qct_x'),
      assertionIdHash: await sha256Hex(verified.claims.jti),
      token: {
        secretHash: await sha256Hex(body.access_token as string),
        displayPrefix: (body.access_token as string).slice(0, 10),
        scopes: ['artifacts:read', 'artifacts:create'],
        expiresAt: later(3600),
      },
      at: t0,
    })
    expect(canned.asked('recordPoll')).toEqual([])
    const tokenId = (command as { token: { id: string } }).token.id
    expect(canned.events).toEqual([
      {
        id: expect.stringMatching(/^evt_/),
        at: t0,
        action: 'agent.token_issued',
        actor: { kind: 'agent', id: registration().id, label: 'Release bot (agent of ada)', onBehalfOf: { id: 'usr_ada', label: 'ada' } },
        via: { surface: 'api', credential: 'agent', credentialId: tokenId },
        workspaceId: 'ws_ada',
        artifactId: null,
        data: {
          agentId: registration().id,
          tokenId,
          grant: 'claim',
          scopes: ['artifacts:read', 'artifacts:create'],
          expiresAt: later(3600).toISOString(),
        },
      },
    ])
  })

  it('caps the post-claim scopes at what the deployment allows now', async () => {
    const { auth } = layer({ findByClaimToken: registration({ claimedBy: owner }) }, testSettings({ allowedScopes: ['artifacts:read'] }))
    expect((await auth.token(claimGrant('qct_x')))?.body).toMatchObject({ scope: 'artifacts:read' })
  })
})

describe('the jwt-bearer grant (decision logic, canned store)', () => {
  const anonymous = registration({ type: 'anonymous', loginHint: null, userCodeExpiresAt: null, preClaimScopes: ['artifacts:read'] })
  const bearer = (assertion: string | undefined, scope?: string) => ({ grant_type: agentGrantTypes.jwtBearer, assertion, scope })

  it('needs an assertion, and refuses an invalid or expired one without asking the store', async () => {
    const { auth, canned } = layer({ findById: anonymous })
    expect(await auth.token(bearer(undefined))).toMatchObject({ status: 400, body: { error: 'invalid_request' } })
    expect(await auth.token(bearer('junk'))).toMatchObject({ status: 400, body: { error: 'invalid_grant' } })
    expect(await auth.token(bearer(await assertionFor({ exp: t0 })))).toMatchObject({ status: 400, body: { error: 'invalid_grant' } })
    expect(canned.calls).toEqual([])
  })

  it('gives an unclaimed anonymous agent a 15-minute pre-claim token for the pre-claim scopes', async () => {
    const { auth, canned } = layer({ findById: anonymous })
    const reply = await auth.token(bearer(await assertionFor()))
    expect(reply).toMatchObject({ status: 200, body: { token_type: 'Bearer', expires_in: 900, scope: 'artifacts:read' } })
    expect(Object.keys(reply?.body ?? {}).sort()).toEqual(['access_token', 'expires_in', 'scope', 'token_type'])
    expect(canned.asked('exchangeAssertion')).toMatchObject([
      {
        registrationId: anonymous.id,
        assertionIdHash: await sha256Hex('jti-1'),
        stage: 'unclaimed',
        token: { scopes: ['artifacts:read'], expiresAt: later(900) },
        audit: null,
      },
    ])
    expect(canned.events).toEqual([])
  })

  it('never lets a pre-claim token outlive the claim window', async () => {
    const { auth } = layer({ findById: { ...anonymous, claimExpiresAt: later(300) } })
    expect(await auth.token(bearer(await assertionFor()))).toMatchObject({ status: 200, body: { expires_in: 300 } })
  })

  it('checks a requested scope against what the assertion allows', async () => {
    const { auth } = layer({ findById: anonymous })
    expect(await auth.token(bearer(await assertionFor(), 'artifacts:read'))).toMatchObject({
      status: 200,
      body: { scope: 'artifacts:read' },
    })
    expect(await auth.token(bearer(await assertionFor(), 'artifacts:create'))).toMatchObject({
      status: 400,
      body: { error: 'invalid_scope' },
    })
    expect(await auth.token(bearer(await assertionFor(), 'artifacts:nope'))).toMatchObject({
      status: 400,
      body: { error: 'invalid_scope' },
    })
    expect(await auth.token(bearer(await assertionFor(), ''))).toMatchObject({ status: 200, body: { scope: 'artifacts:read' } })
    // A JSON body can carry other types than a form: they are refused, never thrown on.
    const odd = { grant_type: agentGrantTypes.jwtBearer, assertion: await assertionFor(), scope: ['artifacts:read'] } as unknown as Record<
      string,
      string
    >
    expect(await auth.token(odd)).toMatchObject({ status: 400, body: { error: 'invalid_request' } })
    const numeric = { grant_type: agentGrantTypes.claim, claim_token: 42 } as unknown as Record<string, string>
    expect(await auth.token(numeric)).toMatchObject({ status: 400, body: { error: 'invalid_request' } })
  })

  it('refuses by the registration state', async () => {
    const cases: [ReturnType<typeof registration> | null, string][] = [
      [null, 'unknown registration'],
      [{ ...anonymous, revokedAt: t0 }, 'revoked'],
      [{ ...anonymous, claimedBy: owner }, 'pre-claim assertion after the claim'],
      [{ ...anonymous, claimExpiresAt: t0 }, 'window over'],
      [registration({ type: 'anonymous', claimedBy: null, preClaimScopes: [] }), 'no pre-claim scopes any more'],
    ]
    for (const [found, why] of cases) {
      const { auth } = layer({ findById: found })
      const reply = await auth.token(bearer(await assertionFor()))
      expect(reply?.status, why).toBe(400)
      expect(['invalid_grant', 'invalid_scope'], why).toContain(reply?.body?.error)
    }
    // An unclaimed service_auth agent has no assertion; one claiming to be is refused.
    const serviceAuth = layer({ findById: registration() })
    expect(await serviceAuth.auth.token(bearer(await assertionFor({ type: 'service_auth' })))).toMatchObject({
      body: { error: 'invalid_grant' },
    })
    // The type in the assertion must be the registration's.
    const mismatch = layer({ findById: registration({ claimedBy: owner }) })
    expect(await mismatch.auth.token(bearer(await assertionFor({ type: 'anonymous', stage: 'claimed' })))).toMatchObject({
      body: { error: 'invalid_grant' },
    })
  })

  it('refuses when the store says the assertion is not the live one', async () => {
    const { auth } = layer({ findById: anonymous, exchangeAssertion: { ok: false, reason: 'gone' } })
    expect(await auth.token(bearer(await assertionFor()))).toMatchObject({ status: 400, body: { error: 'invalid_grant' } })
  })

  it('gives a claimed agent a one-hour post-claim token, on the person’s trail', async () => {
    const claimed = registration({ claimedBy: owner, claimedAt: t0, redeemedAt: t0 })
    const { auth, canned } = layer({ findById: claimed })
    const reply = await auth.token(bearer(await assertionFor({ type: 'service_auth', stage: 'claimed' }), 'artifacts:create'))
    expect(reply).toMatchObject({ status: 200, body: { expires_in: 3600, scope: 'artifacts:create' } })
    expect(canned.asked('exchangeAssertion')).toMatchObject([
      { stage: 'claimed', token: { scopes: ['artifacts:create'], expiresAt: later(3600) } },
    ])
    expect(canned.events).toMatchObject([{ action: 'agent.token_issued', data: { grant: 'jwt-bearer', scopes: ['artifacts:create'] } }])
    // A claimed assertion for a registration that is not claimed is refused.
    const unclaimed = layer({ findById: registration() })
    expect(await unclaimed.auth.token(bearer(await assertionFor({ type: 'service_auth', stage: 'claimed' })))).toMatchObject({
      body: { error: 'invalid_grant' },
    })
  })
})

describe('revocation (decision logic, canned store)', () => {
  it('needs token', async () => {
    const { auth, canned } = layer()
    expect(await auth.revoke({})).toEqual({ status: 400, body: { error: 'invalid_request', error_description: 'token is required.' } })
    expect(await auth.revoke({ token: '' })).toMatchObject({ status: 400 })
    expect(canned.calls).toEqual([])
  })

  it('answers 200 with no body, asks by hash, and files token.revoked only for a claimed agent', async () => {
    const { auth, canned } = layer()
    expect(await auth.revoke({ token: 'qgt_abc', token_type_hint: 'refresh_token' })).toEqual({ status: 200, body: null })
    expect(canned.asked('revokeToken')).toMatchObject([{ secretHash: await sha256Hex('qgt_abc'), at: t0 }])
    expect(canned.events).toEqual([
      {
        id: expect.stringMatching(/^evt_/),
        at: t0,
        action: 'token.revoked',
        actor: { kind: 'agent', id: registration().id, label: 'Release bot (agent of ada)', onBehalfOf: { id: 'usr_ada', label: 'ada' } },
        via: { surface: 'api', credential: 'agent', credentialId: 'tok_1' },
        workspaceId: 'ws_ada',
        artifactId: null,
        data: { agentId: registration().id, tokenId: 'tok_1', reason: 'revoked_by_agent' },
      },
      null,
    ])
  })
})

describe('an agent ending its own registration (decision logic, canned store)', () => {
  const refused = { status: 401, body: { error: 'invalid_token', error_description: expect.any(String) } }

  it('refuses a missing, empty or unverifiable credential with 401 invalid_token, asking the store nothing', async () => {
    const { auth, canned } = layer()
    const foreign = await signAssertion(
      new Uint8Array(32).fill(7),
      issuer,
      { registrationId: registration().id, jti: 'jti-1', registrationType: 'anonymous', stage: 'unclaimed', scopes: ['artifacts:read'] },
      { issuedAt: t0, expiresAt: later(3600) },
    )
    for (const bearer of [null, '', 'not-a-token', foreign.assertion, await assertionFor({ exp: later(-1) })]) {
      expect(await auth.revokeIdentity(bearer), String(bearer)).toEqual(refused)
    }
    expect(canned.calls).toEqual([])
  })

  it('ends the registration by an access token (by its hash): 200, agent.revoked by the agent on its person’s trail', async () => {
    const { auth, canned } = layer()
    expect(await auth.revokeIdentity('qgt_abc')).toEqual({ status: 200, body: { registration_id: registration().id, status: 'revoked' } })
    expect(canned.asked('revokeSelf')).toMatchObject([{ credential: { kind: 'token', secretHash: await sha256Hex('qgt_abc') }, at: t0 }])
    expect(canned.events).toEqual([
      {
        id: expect.stringMatching(/^evt_/),
        at: t0,
        action: 'agent.revoked',
        actor: { kind: 'agent', id: registration().id, label: 'Release bot (agent of ada)', onBehalfOf: { id: 'usr_ada', label: 'ada' } },
        via: { surface: 'api', credential: 'agent', credentialId: 'tok_1' },
        workspaceId: 'ws_ada',
        artifactId: null,
        data: { agentId: registration().id, reason: 'revoked_by_agent' },
      },
    ])
  })

  it('ends it by the identity assertion (the registration it names, its jti hashed); an unclaimed agent’s end files nothing', async () => {
    const unclaimed = registration({ type: 'anonymous', loginHint: null, claimedBy: null, revokedAt: t0 })
    const { auth, canned } = layer({ revokeSelf: { ok: true, registration: unclaimed } })
    expect(await auth.revokeIdentity(await assertionFor({ jti: 'jti-7' }))).toMatchObject({ status: 200, body: { status: 'revoked' } })
    expect(canned.asked('revokeSelf')).toMatchObject([
      { credential: { kind: 'assertion', registrationId: registration().id, assertionIdHash: await sha256Hex('jti-7') } },
    ])
    expect(canned.events).toEqual([null])
  })

  it('answers 401 when no live registration holds the credential (a second call, say)', async () => {
    const { auth } = layer({ revokeSelf: { ok: false, reason: 'gone' } })
    expect(await auth.revokeIdentity('qgt_abc')).toEqual(refused)
    expect(await auth.revokeIdentity(await assertionFor())).toEqual(refused)
  })

  it('at /oauth2/revoke, an assertion of this server ends its registration; anything else is revoked as a token', async () => {
    const { auth, canned } = layer({
      revokeSelf: [
        { ok: true, registration: registration() },
        { ok: false, reason: 'gone' },
      ],
    })
    const assertion = await assertionFor({ stage: 'claimed', type: 'service_auth' })
    expect(await auth.revoke({ token: assertion })).toEqual({ status: 200, body: null })
    expect(await auth.revoke({ token: assertion })).toEqual({ status: 200, body: null })
    expect(canned.asked('revokeSelf')).toHaveLength(2)
    expect(canned.asked('revokeToken')).toEqual([])
    expect(await auth.revoke({ token: await assertionFor({ exp: later(-1) }) })).toEqual({ status: 200, body: null })
    expect(canned.asked('revokeSelf')).toHaveLength(2)
    expect(canned.asked('revokeToken')).toHaveLength(1)
  })
})
