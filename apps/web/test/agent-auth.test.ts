/**
 * The agent registration layer (auth.md), black-box: the 19 acceptance cases of
 * research/auth-md.md §5 against the running web app and API (real HTTP, this project's database
 * engine), people signing in through the development OpenID Connect provider. The use-cases read a
 * clock the tests move (code and token lifetimes, the polling interval), so nothing waits.
 */
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { readEnv } from '@quire/runtime'
import { type NodeProcess, spawnNode } from '@quire/testing/node-process'
import { timeoutFor, untilExit } from '@quire/testing/waits'
import { SignJWT } from 'jose'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Answer, answer, CLAIM_GRANT, JWT_BEARER, TestClock } from './agent-helper.ts'
import { databaseDump, freePort, startTestWeb, type TestWeb } from './helper.ts'
import { type HttpSession, signInOverHttp } from './http-session.ts'
import { userWithKey } from './mcp-helper.ts'

const ALLOWED = 'artifacts:read,artifacts:create,artifacts:update'
/** The signing key of the main deployment: the tests forge assertions with it (and without it). */
const signingKey = randomBytes(32)
const agentEnv = (secret = randomBytes(32).toString('base64url')) => ({
  AUTH_MD_ENABLED: 'true',
  AUTH_MD_SIGNING_SECRET: secret,
  AUTH_MD_ALLOWED_SCOPES: ALLOWED,
  AUTH_MD_ANONYMOUS_PRE_CLAIM_SCOPES: 'artifacts:read',
})

/** What an agent sends, against one running deployment. */
function agentClient(web: TestWeb) {
  const json = async (path: string, body: unknown) =>
    answer(
      await fetch(`${web.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    )
  const form = async (path: string, fields: Record<string, string>) =>
    answer(
      await fetch(`${web.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields).toString(),
      }),
    )
  return {
    register: (body: unknown) => json('/agent/identity', body),
    requestClaim: (body: unknown) => json('/agent/identity/claim', body),
    poll: (claimToken: string) => form('/oauth2/token', { grant_type: CLAIM_GRANT, claim_token: claimToken }),
    exchange: (assertion: string, scope?: string) =>
      form('/oauth2/token', { grant_type: JWT_BEARER, assertion, ...(scope === undefined ? {} : { scope }) }),
    revoke: (fields: Record<string, string>) => form('/oauth2/revoke', fields),
    /** A REST call to the API with a bearer token. */
    api: async (token: string, method: string, path: string, body?: unknown) =>
      answer(
        await fetch(`${web.apiUrl}${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        }),
      ),
  }
}

type AgentClient = ReturnType<typeof agentClient>

/** The claim page for a code: GET renders, the form POSTs with the session's CSRF token. */
async function viewClaim(session: HttpSession, code: string) {
  const response = await session.get(`/agent/claim?user_code=${encodeURIComponent(code)}`, { accept: 'text/html' })
  return { status: response.status, headers: response.headers, html: await response.text() }
}
async function confirmClaim(session: HttpSession, code: string) {
  const response = await session.postForm('/agent/claim', { user_code: code, _csrf: await session.csrf() })
  return { status: response.status, headers: response.headers, html: await response.text() }
}

function registrationCount(web: TestWeb): Promise<number> {
  return sql<{ n: number }>`SELECT count(*)::int AS n FROM agent_registrations`
    .execute(web.runtime.database.db)
    .then((r) => r.rows[0]?.n ?? 0)
}

describe('the agent registration layer', () => {
  let web: TestWeb
  let agent: AgentClient
  const clock = new TestClock()
  const ALICE = 'agents.alice@example.com'
  const MALLORY = 'agents.mallory@example.com'
  let alice: HttpSession
  let mallory: HttpSession
  /** Every secret handed out, for the dump at the end. */
  const handedOut: string[] = []

  beforeAll(async () => {
    web = await startTestWeb({ api: true, env: agentEnv(signingKey.toString('base64url')), clock, rateLimit: false })
    agent = agentClient(web)
    alice = await signInOverHttp(web, ALICE)
    mallory = await signInOverHttp(web, MALLORY)
  })
  afterAll(async () => {
    await web?.close()
  })

  /** A service_auth registration naming `email`; its answer. */
  async function registerNamed(email = ALICE, scopes?: string[]) {
    const registered = await agent.register({ type: 'service_auth', login_hint: email, ...(scopes ? { scopes } : {}) })
    expect(registered.status, JSON.stringify(registered.body)).toBe(200)
    const claim = registered.body.claim as Record<string, unknown>
    handedOut.push(registered.body.claim_token as string, claim.user_code as string)
    return { body: registered.body, claimToken: registered.body.claim_token as string, code: claim.user_code as string, claim }
  }

  /** Polls once, a polling interval after the previous poll. */
  async function pollInTime(claimToken: string) {
    clock.advance(5)
    return agent.poll(claimToken)
  }

  it('case 3: discovery names every endpoint, and each resolves', async () => {
    const prm = await answer(await fetch(`${web.apiUrl}/.well-known/oauth-protected-resource`))
    expect(prm.status).toBe(200)
    expect(prm.body.resource).toBe(web.apiUrl)
    expect(prm.body.authorization_servers).toEqual([web.url])
    expect(prm.body.scopes_supported).toContain('artifacts:read')
    for (const origin of [web.url, web.apiUrl]) {
      const as = await answer(await fetch(`${origin}/.well-known/oauth-authorization-server`))
      expect(as.status).toBe(200)
      expect(as.body.issuer).toBe(web.url)
      expect(as.body.token_endpoint).toBe(`${web.url}/oauth2/token`)
      expect(as.body.revocation_endpoint).toBe(`${web.url}/oauth2/revoke`)
      expect(as.body.grant_types_supported).toEqual(expect.arrayContaining([CLAIM_GRANT, JWT_BEARER]))
      const block = as.body.agent_auth as Record<string, unknown>
      expect(block).toEqual({
        skill: `${web.url}/auth.md`,
        identity_endpoint: `${web.url}/agent/identity`,
        claim_endpoint: `${web.url}/agent/identity/claim`,
        scope_request_endpoint: `${web.url}/agent/identity/scopes`,
        identity_revocation_endpoint: `${web.url}/agent/identity`,
        identity_types_supported: expect.arrayContaining(['anonymous', 'service_auth']),
      })
      const skill = await fetch(block.skill as string)
      expect(skill.status).toBe(200)
      expect(skill.headers.get('content-type')).toMatch(/^text\/markdown/)
      const document = await skill.text()
      for (const url of [
        block.identity_endpoint,
        block.claim_endpoint,
        block.scope_request_endpoint,
        as.body.token_endpoint,
        as.body.revocation_endpoint,
      ])
        expect(document).toContain(url as string)
      // The endpoints answer (a bad request, not a 404).
      expect((await agent.register({})).status).toBe(400)
      expect((await agent.requestClaim({})).status).toBe(400)
      expect((await fetch(block.identity_revocation_endpoint as string, { method: 'DELETE' })).status).toBe(401)
    }
    const apiSkill = await fetch(`${web.apiUrl}/auth.md`)
    expect(apiSkill.status).toBe(200)
    expect(await apiSkill.text()).toContain(`${web.url}/agent/identity`)
  })

  it('case 4: the API challenges a missing or garbage token with the resource metadata', async () => {
    const missing = await fetch(`${web.apiUrl}/api/profile/me`)
    expect(missing.status).toBe(401)
    expect(missing.headers.get('www-authenticate')).toContain(`resource_metadata="${web.apiUrl}/.well-known/oauth-protected-resource"`)
    const garbage = await fetch(`${web.apiUrl}/api/profile/me`, { headers: { authorization: 'Bearer qgt_garbage' } })
    expect(garbage.status).toBe(401)
    expect(garbage.headers.get('www-authenticate')).toMatch(/error="invalid_token"/)
    expect(garbage.headers.get('www-authenticate')).toContain('resource_metadata=')
  })

  it('case 5: service_auth happy path; the token works and its scopes ⊆ requested ∩ allowed', async () => {
    const { body, claimToken, code, claim } = await registerNamed(ALICE, ['artifacts:read', 'artifacts:create'])
    expect(body).not.toHaveProperty('access_token')
    expect(body).not.toHaveProperty('identity_assertion')
    expect(body.registration_type).toBe('service_auth')
    expect(claimToken).toMatch(/^qct_/)
    expect(code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/)
    expect(claim.verification_uri).toBe(`${web.url}/agent/claim`)
    expect(claim.verification_uri_complete).toBe(`${web.url}/agent/claim?user_code=${code}`)
    expect(claim.interval).toBe(5)
    expect(claim.expires_in).toBe(600)

    const first = await agent.poll(claimToken)
    expect(first.status).toBe(400)
    expect(first.body.error).toBe('authorization_pending')

    const page = await viewClaim(alice, code)
    expect(page.status).toBe(200)
    expect(page.headers.get('cache-control')).toBe('no-store')
    expect(page.headers.get('referrer-policy')).toBe('no-referrer')
    expect(page.html).toContain('Connect this agent')
    const confirmed = await confirmClaim(alice, code)
    expect(confirmed.status).toBe(200)
    expect(confirmed.html).toContain('Agent connected')

    const token = await pollInTime(claimToken)
    expect(token.status, JSON.stringify(token.body)).toBe(200)
    expect(token.headers.get('cache-control')).toBe('no-store')
    expect(token.headers.get('pragma')).toBe('no-cache')
    expect(token.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600 })
    const accessToken = token.body.access_token as string
    handedOut.push(accessToken, token.body.identity_assertion as string)
    expect(accessToken).toMatch(/^qgt_/)
    const scopes = (token.body.scope as string).split(' ')
    expect(scopes.sort()).toEqual(['artifacts:create', 'artifacts:read'])
    for (const s of scopes) expect(ALLOWED.split(',')).toContain(s)

    const me = await agent.api(accessToken, 'GET', '/api/profile/me')
    expect(me.status).toBe(200)
    expect(me.body.email).toBe(ALICE)
    // The agent acts for Alice within its scopes: it creates, it may not delete or manage keys.
    const username = me.body.username as string
    const project = await agent.api(accessToken, 'POST', '/api/projects', {
      ownerUsername: username,
      slug: 'agent-notes',
      title: 'Notes',
      icon: 'N',
    })
    expect(project.status, JSON.stringify(project.body)).toBe(201)
    const keys = await agent.api(accessToken, 'GET', '/api/api-keys')
    expect(keys.status).toBe(403)
    expect(keys.body.code).toBe('insufficient_scope')
  })

  it('case 6: a different account gets 403 without the hinted email; the claim stays pending; signed out is sent to sign in', async () => {
    const { claimToken, code } = await registerNamed(ALICE)
    const seen = await viewClaim(mallory, code)
    expect(seen.status).toBe(403)
    expect(seen.html).not.toContain(ALICE)
    expect(seen.html).not.toContain('agents.alice')
    const posted = await confirmClaim(mallory, code)
    expect(posted.status).toBe(403)
    expect(posted.html).not.toContain(ALICE)
    expect((await pollInTime(claimToken)).body.error).toBe('authorization_pending')

    const signedOut = await fetch(`${web.url}/agent/claim?user_code=${code}`, { redirect: 'manual' })
    expect(signedOut.status).toBe(302)
    expect(signedOut.headers.get('location')).toBe(`/login?return_to=${encodeURIComponent(`/agent/claim?user_code=${code}`)}`)
    const signedOutPost = await fetch(`${web.url}/agent/claim`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: web.url },
      body: new URLSearchParams({ user_code: code }).toString(),
    })
    expect(signedOutPost.status).toBe(303)
    expect((await pollInTime(claimToken)).body.error).toBe('authorization_pending')
    // Alice, whom the agent named, still can.
    expect((await confirmClaim(alice, code)).status).toBe(200)
    expect((await pollInTime(claimToken)).status).toBe(200)
  })

  it('case 7: a claim token is exchanged once; two concurrent exchanges yield exactly one token', async () => {
    const { claimToken, code } = await registerNamed()
    expect((await confirmClaim(alice, code)).status).toBe(200)
    clock.advance(5)
    const both = await Promise.all([agent.poll(claimToken), agent.poll(claimToken)])
    const statuses = both.map((a) => a.status).sort()
    expect(statuses).toEqual([200, 400])
    expect(both.find((a) => a.status === 400)?.body.error).toBe('invalid_grant')
    const again = await pollInTime(claimToken)
    expect(again.status).toBe(400)
    expect(again.body.error).toBe('invalid_grant')
    const tokens = await sql<{ n: number }>`SELECT count(*)::int AS n FROM credentials c
      JOIN agent_registrations r ON r.id = c.agent_id WHERE r.claim_token_hash = ${web.runtime.deps.sha256(claimToken) as string}`.execute(
      web.runtime.database.db,
    )
    expect(tokens.rows[0]?.n).toBe(1)
  })

  it('case 8: an expired code shows the expired page, polls say expired_token, and a new claim request issues a working code', async () => {
    const { claimToken, code } = await registerNamed()
    clock.advance(601)
    expect((await viewClaim(alice, code)).status).toBe(410)
    expect((await confirmClaim(alice, code)).status).toBe(410)
    const polled = await pollInTime(claimToken)
    expect(polled.body.error).toBe('expired_token')
    const renewed = await agent.requestClaim({ claim_token: claimToken, login_hint: ALICE })
    expect(renewed.status, JSON.stringify(renewed.body)).toBe(200)
    const fresh = (renewed.body.claim as Record<string, unknown>).user_code as string
    handedOut.push(fresh)
    expect(fresh).not.toBe(code)
    expect((await viewClaim(alice, code)).status).toBe(404)
    expect((await confirmClaim(alice, fresh)).status).toBe(200)
    expect((await pollInTime(claimToken)).status).toBe(200)
  })

  it('case 9: polling faster than the interval gets slow_down, and the interval grows', async () => {
    const { claimToken } = await registerNamed()
    expect((await agent.poll(claimToken)).body.error).toBe('authorization_pending')
    clock.advance(2)
    const fast = await agent.poll(claimToken)
    expect(fast.status).toBe(400)
    expect(fast.body.error).toBe('slow_down')
    // Now 10 s: 6 s later is still too soon.
    clock.advance(6)
    expect((await agent.poll(claimToken)).body.error).toBe('slow_down')
    clock.advance(15)
    expect((await agent.poll(claimToken)).body.error).toBe('authorization_pending')
  })

  it('case 10: bad input is refused with its code and creates no registration', async () => {
    const before = await registrationCount(web)
    const cases: [unknown, string][] = [
      [{ type: 'service_auth', login_hint: 'not-an-email' }, 'invalid_login_hint'],
      [{ type: 'service_auth' }, 'invalid_login_hint'],
      [{ login_hint: ALICE }, 'invalid_request'],
      [{ type: 'telepathy', login_hint: ALICE }, 'invalid_request'],
      [{ type: 'service_auth', login_hint: ALICE, scopes: ['artifacts:delete'] }, 'invalid_scope'],
      [{ type: 'service_auth', login_hint: ALICE, scopes: ['root'] }, 'invalid_scope'],
    ]
    for (const [body, error] of cases) {
      const refused = await agent.register(body)
      expect(refused.status, JSON.stringify(body)).toBe(400)
      expect(refused.body.error, JSON.stringify(body)).toBe(error)
      expect(typeof refused.body.error_description).toBe('string')
    }
    const notJson = await answer(
      await fetch(`${web.url}/agent/identity`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"type":' }),
    )
    expect(notJson.status).toBe(400)
    expect(notJson.body.error).toBe('invalid_request')
    expect(await registrationCount(web)).toBe(before)
  })

  it('case 11: an anonymous agent gets a short pre-claim token with exactly the pre-claim scopes, and may not write', async () => {
    const registered = await agent.register({ type: 'anonymous' })
    expect(registered.status).toBe(200)
    expect(registered.body).toMatchObject({ registration_type: 'anonymous', pre_claim_scopes: ['artifacts:read'] })
    const assertion = registered.body.identity_assertion as string
    handedOut.push(assertion, registered.body.claim_token as string)
    const token = await agent.exchange(assertion)
    expect(token.status, JSON.stringify(token.body)).toBe(200)
    expect(token.body.scope).toBe('artifacts:read')
    expect(token.body.expires_in).toBe(900)
    const accessToken = token.body.access_token as string
    handedOut.push(accessToken)
    // A public, publicly editable artifact: the agent sees it, and anyone signed in may add a version; not this token.
    const owner = await userWithKey(web, 'agents.owner@example.com')
    await agent.api(owner.token, 'POST', '/api/projects', { ownerUsername: owner.username, slug: 'open', title: 'Open', icon: 'O' })
    const open = await agent.api(owner.token, 'POST', '/api/artifacts', {
      ownerUsername: owner.username,
      projectSlug: 'open',
      slug: 'wiki',
      type: 'md',
      title: 'Wiki',
      content: '# Wiki',
      changelog: 'first',
      access: { publicView: true, publicEdit: true },
    })
    expect(open.status, JSON.stringify(open.body)).toBe(201)
    const read = await agent.api(accessToken, 'GET', `/api/artifacts/${open.body.id}/content`)
    expect(read.status).toBe(200)
    const write = await agent.api(accessToken, 'POST', `/api/artifacts/${open.body.id}/versions`, {
      content: '# Mine',
      expectedLatestVersion: 1,
    })
    expect(write.status).toBe(403)
    expect(write.body.code).toBe('insufficient_scope')
    expect(write.headers.get('www-authenticate')).toMatch(/error="insufficient_scope", scope="artifacts:update"/)
    // Its own account does not exist: an unclaimed agent owns nothing.
    expect((await agent.api(accessToken, 'GET', '/api/profile/artifacts')).status).toBe(403)
    expect((await agent.exchange(assertion, 'artifacts:create')).body.error).toBe('invalid_scope')
  })

  it('case 12: forged assertions are invalid_grant', async () => {
    const registered = await agent.register({ type: 'anonymous' })
    const assertion = registered.body.identity_assertion as string
    const [header = '', payload = '', signature = ''] = assertion.split('.')
    const decode = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
    const claims = decode(payload)
    expect(decode(header).alg).toBe('HS256')
    expect(claims).toMatchObject({ iss: web.url, aud: web.url, sub: registered.body.registration_id })
    const now = Math.floor(clock.now().getTime() / 1000)
    /** Signed with the deployment's own key (or another), so that only the claim in question is wrong. */
    const signed = (body: Record<string, unknown>, options: { alg?: 'HS256' | 'HS512'; key?: Uint8Array } = {}) =>
      new SignJWT(body).setProtectedHeader({ alg: options.alg ?? 'HS256', typ: 'JWT' }).sign(options.key ?? signingKey)
    const flipped = `${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`
    const forgeries: [string, string][] = [
      ['altered signature', `${header}.${payload}.${flipped}`],
      ['alg none', `${encode({ alg: 'none', typ: 'JWT' })}.${payload}.`],
      ['altered payload', `${header}.${encode({ ...claims, scope: 'artifacts:read artifacts:create' })}.${signature}`],
      ['another key', await signed(claims, { key: randomBytes(32) })],
      ['HS512', await signed(claims, { alg: 'HS512' })],
      ['wrong iss', await signed({ ...claims, iss: 'https://evil.example' })],
      ['wrong aud', await signed({ ...claims, aud: 'https://evil.example' })],
      ['expired', await signed({ ...claims, iat: now - 7200, exp: now - 3600 })],
      ['unknown registration', await signed({ ...claims, sub: 'agt_01unknown' })],
      ['another jti', await signed({ ...claims, jti: randomBytes(16).toString('base64url') })],
      ['not a JWT', 'not-a-jwt'],
    ]
    for (const [what, forged] of forgeries) {
      const refused = await agent.exchange(forged)
      expect(refused.status, what).toBe(400)
      expect(refused.body.error, what).toBe('invalid_grant')
    }
    expect((await agent.exchange(assertion)).status).toBe(200)
    clock.advance(3601)
    expect((await agent.exchange(assertion)).body.error).toBe('invalid_grant')
  })

  it('case 13: claiming an anonymous agent revokes its pre-claim token and assertion; the claim grant gives post-claim scopes', async () => {
    const registered = await agent.register({ type: 'anonymous' })
    const assertion = registered.body.identity_assertion as string
    const claimToken = registered.body.claim_token as string
    const preClaim = (await agent.exchange(assertion)).body.access_token as string
    handedOut.push(assertion, claimToken, preClaim)
    expect((await agent.api(preClaim, 'GET', '/health')).status).toBe(200)
    const requested = await agent.requestClaim({ claim_token: claimToken, login_hint: ALICE })
    expect(requested.status, JSON.stringify(requested.body)).toBe(200)
    expect(requested.body.status).toBe('initiated')
    const code = (requested.body.claim as Record<string, unknown>).user_code as string
    handedOut.push(code)
    expect((await confirmClaim(alice, code)).status).toBe(200)

    const refusedOld = await agent.api(preClaim, 'GET', '/api/profile/me')
    expect(refusedOld.status).toBe(401)
    expect((await agent.exchange(assertion)).body.error).toBe('invalid_grant')
    const post = await pollInTime(claimToken)
    expect(post.status, JSON.stringify(post.body)).toBe(200)
    expect((post.body.scope as string).split(' ').sort()).toEqual(ALLOWED.split(',').sort())
    handedOut.push(post.body.access_token as string, post.body.identity_assertion as string)
    const me = await agent.api(post.body.access_token as string, 'GET', '/api/profile/me')
    expect(me.body.email).toBe(ALICE)
  })

  it('case 14: the claim endpoint refuses an unknown token (401), a claimed registration (409) and an expired one (410), creating nothing', async () => {
    const before = await registrationCount(web)
    const unknown = await agent.requestClaim({ claim_token: 'qct_unknown', login_hint: ALICE })
    expect(unknown.status).toBe(401)
    expect(unknown.body.error).toBe('invalid_claim_token')

    const claimed = await registerNamed()
    await confirmClaim(alice, claimed.code)
    const conflict = await agent.requestClaim({ claim_token: claimed.claimToken, login_hint: ALICE })
    expect(conflict.status).toBe(409)
    expect(conflict.body.error).toBe('claimed_or_in_flight')

    const old = await agent.register({ type: 'anonymous' })
    clock.advance(86_401)
    const expired = await agent.requestClaim({ claim_token: old.body.claim_token as string, login_hint: ALICE })
    expect(expired.status).toBe(410)
    expect(expired.body.error).toBe('claim_expired')
    expect(await registrationCount(web)).toBe(before + 2)
  })

  it('case 15: revoking twice is fine; unknown tokens too; a missing token is invalid_request', async () => {
    const { claimToken, code } = await registerNamed()
    await confirmClaim(alice, code)
    const token = (await pollInTime(claimToken)).body.access_token as string
    expect((await agent.api(token, 'GET', '/api/profile/me')).status).toBe(200)
    const first = await agent.revoke({ token })
    expect(first.status).toBe(200)
    expect((await agent.api(token, 'GET', '/api/profile/me')).status).toBe(401)
    expect((await agent.revoke({ token })).status).toBe(200)
    expect((await agent.revoke({ token: 'qgt_never_issued' })).status).toBe(200)
    const missing = await agent.revoke({})
    expect(missing.status).toBe(400)
    expect(missing.body.error).toBe('invalid_request')
  })

  it('the person’s account trail records the registrations naming them, the claims, the tokens and the revocations', async () => {
    const key = await userWithKey(web, ALICE)
    const trail = async (action: string) =>
      (await agent.api(key.token, 'GET', `/api/audit-events?action=${action}&limit=100`)).body.items as {
        actor: { kind: string; id: string; onBehalfOf?: { id: string } }
        via: { credential: string | null }
        data: Record<string, unknown>
      }[]
    const registered = await trail('agent.registered')
    expect(registered.length).toBeGreaterThan(5)
    expect(registered[0]?.actor.kind).toBe('agent')
    const claimed = await trail('agent.claimed')
    expect(claimed.length).toBeGreaterThan(5)
    expect(claimed[0]?.actor).toMatchObject({ kind: 'user', id: key.userId })
    expect(claimed[0]?.via.credential).toBe('session')
    const issued = await trail('agent.token_issued')
    expect(issued[0]?.actor).toMatchObject({ kind: 'agent', onBehalfOf: { id: key.userId } })
    const revoked = await trail('token.revoked')
    expect(revoked).toHaveLength(1)
    expect(revoked[0]?.actor).toMatchObject({ kind: 'agent', onBehalfOf: { id: key.userId } })
    expect((await trail('agent.claim_requested')).length).toBeGreaterThan(0)
    // Mallory was never named: nothing about these agents is on her trail.
    const malloryKey = await userWithKey(web, MALLORY)
    const hers = (await agent.api(malloryKey.token, 'GET', '/api/audit-events?limit=100')).body.items as { action: string }[]
    expect(hers.filter((e) => e.action.startsWith('agent.'))).toEqual([])
  })

  it('case 17: GETs and prefetches confirm nothing', async () => {
    const { claimToken, code } = await registerNamed()
    const anonymousGet = await fetch(`${web.url}/agent/claim?user_code=${code}`, { redirect: 'manual', headers: { purpose: 'prefetch' } })
    expect(anonymousGet.status).toBe(302)
    for (let i = 0; i < 3; i++) expect((await viewClaim(alice, code)).status).toBe(200)
    expect((await pollInTime(claimToken)).body.error).toBe('authorization_pending')
  })

  it('case 16: after the flows the database holds none of the secrets handed out, only 64-hex SHA-256 values', async () => {
    expect(handedOut.length).toBeGreaterThan(20)
    const text = await databaseDump(web)
    for (const secret of handedOut) {
      expect(text).not.toContain(secret)
      // A user code without its hyphen, and the assertion's jti, are not there either.
      if (/^[A-Z]{4}-[A-Z]{4}$/.test(secret)) expect(text).not.toContain(secret.replace('-', ''))
      if (secret.split('.').length === 3) {
        const jti = JSON.parse(Buffer.from(secret.split('.')[1] ?? '', 'base64url').toString('utf8')).jti as string
        expect(text).not.toContain(jti)
      }
    }
    const rows = await sql<{ claim_token_hash: string; user_code_hash: string | null; assertion_id_hash: string | null }>`
      SELECT claim_token_hash, user_code_hash, assertion_id_hash FROM agent_registrations`.execute(web.runtime.database.db)
    for (const row of rows.rows) {
      expect(row.claim_token_hash).toMatch(/^[0-9a-f]{64}$/)
      if (row.user_code_hash !== null) expect(row.user_code_hash).toMatch(/^[0-9a-f]{64}$/)
      if (row.assertion_id_hash !== null) expect(row.assertion_id_hash).toMatch(/^[0-9a-f]{64}$/)
    }
  })
})

describe('with the layer off (the default)', () => {
  let web: TestWeb
  beforeAll(async () => {
    web = await startTestWeb({ api: true })
  })
  afterAll(async () => {
    await web?.close()
  })

  it('case 1: every agent path is 404, no agent_auth is advertised, both grants are unsupported, API keys still work', async () => {
    const agent = agentClient(web)
    for (const origin of [web.url, web.apiUrl]) expect((await fetch(`${origin}/auth.md`)).status).toBe(404)
    expect((await agent.register({ type: 'anonymous' })).status).toBe(404)
    expect((await agent.requestClaim({ claim_token: 'qct_x', login_hint: 'a@example.com' })).status).toBe(404)
    expect((await fetch(`${web.url}/agent/identity`, { method: 'DELETE', headers: { authorization: 'Bearer qgt_x' } })).status).toBe(404)
    expect((await fetch(`${web.url}/agent/claim?user_code=BCDF-GHJK`, { redirect: 'manual' })).status).toBe(404)
    for (const origin of [web.url, web.apiUrl]) {
      const as = await answer(await fetch(`${origin}/.well-known/oauth-authorization-server`))
      expect(as.body).not.toHaveProperty('agent_auth')
      expect(as.body.grant_types_supported).not.toContain(CLAIM_GRANT)
      expect(as.body.grant_types_supported).not.toContain(JWT_BEARER)
      const prm = await answer(await fetch(`${origin}/.well-known/oauth-protected-resource`))
      expect(prm.body).not.toHaveProperty('agent_auth')
    }
    expect((await agent.poll('qct_x')).body.error).toBe('unsupported_grant_type')
    expect((await agent.exchange('a.b.c')).body.error).toBe('unsupported_grant_type')
    const key = await userWithKey(web, 'agents.off@example.com')
    expect((await agent.api(key.token, 'GET', '/api/profile/me')).status).toBe(200)
  })
})

describe('misconfiguration', () => {
  it('case 2: enabled with a missing, short or undecodable secret, or an unknown scope, the configuration is refused in one line', () => {
    const base = { WEB_URL: 'http://127.0.0.1:1', AUTH_MD_ENABLED: 'true' }
    const refusals: [Record<string, string>, RegExp][] = [
      [{}, /AUTH_MD_SIGNING_SECRET/],
      [{ AUTH_MD_SIGNING_SECRET: randomBytes(31).toString('base64url') }, /AUTH_MD_SIGNING_SECRET.*32/],
      [{ AUTH_MD_SIGNING_SECRET: randomBytes(16).toString('hex') }, /AUTH_MD_SIGNING_SECRET/],
      [
        { AUTH_MD_SIGNING_SECRET: randomBytes(32).toString('base64url'), AUTH_MD_ALLOWED_SCOPES: 'artifacts:read,root' },
        /AUTH_MD_ALLOWED_SCOPES.*root/,
      ],
      [
        { AUTH_MD_SIGNING_SECRET: randomBytes(32).toString('base64url'), AUTH_MD_ANONYMOUS_PRE_CLAIM_SCOPES: 'artifacts:everything' },
        /AUTH_MD_ANONYMOUS_PRE_CLAIM_SCOPES/,
      ],
    ]
    for (const [settings, message] of refusals) {
      let refused: Error | null = null
      try {
        readEnv({ ...base, ...settings })
      } catch (error) {
        refused = error as Error
      }
      expect(refused, JSON.stringify(settings)).not.toBeNull()
      expect(refused?.name).toBe('ConfigurationError')
      expect(refused?.message).toMatch(message)
      expect(refused?.message).not.toContain('\n')
    }
    // Off, the same settings are not looked at; on with good ones, they are accepted.
    expect(() => readEnv({ WEB_URL: 'http://127.0.0.1:1', AUTH_MD_SIGNING_SECRET: 'short' })).not.toThrow()
    expect(() => readEnv({ ...base, AUTH_MD_SIGNING_SECRET: randomBytes(32).toString('hex') })).not.toThrow()
  })
})

describe('a process started with a bad agent setting', () => {
  it('case 2: exits 1 with one line naming the setting, before serving anything', { timeout: timeoutFor(1) }, async () => {
    const port = String(await freePort())
    const dataDir = await mkdtemp(join(tmpdir(), 'quire-agent-config-'))
    let started: NodeProcess | undefined
    try {
      started = spawnNode(resolve(import.meta.dirname, '../../api/src/main.ts'), {
        API_PORT: port,
        QUIRE_DATA_DIR: dataDir,
        AUTH_MD_ENABLED: 'true',
        AUTH_MD_SIGNING_SECRET: 'too-short',
      })
      const { code } = await untilExit(started)
      expect(code, started.output()).toBe(1)
      const lines = started.output().trim().split('\n')
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatch(/^Invalid environment: AUTH_MD_SIGNING_SECRET/)
    } finally {
      // However the test ends: the process (killed if it still runs, it may write there), then its data directory.
      await started?.kill()
      await rm(dataDir, { recursive: true, force: true })
    }
  })
})

describe('limits', () => {
  let web: TestWeb
  let agent: AgentClient
  beforeAll(async () => {
    web = await startTestWeb({ api: true, env: agentEnv() })
    agent = agentClient(web)
  })
  afterAll(async () => {
    await web?.close()
  })

  it('case 18: a burst of anonymous registrations from one address gets 429 rate_limited with Retry-After', async () => {
    const answers: Answer[] = []
    for (let i = 0; i < 7; i++) answers.push(await agent.register({ type: 'anonymous' }))
    expect(answers.slice(0, 5).map((a) => a.status)).toEqual([200, 200, 200, 200, 200])
    const limited = answers[5]
    expect(limited?.status).toBe(429)
    expect(limited?.body.error).toBe('rate_limited')
    expect(Number(limited?.headers.get('retry-after'))).toBeGreaterThan(0)
    // A person named too often is limited wherever the requests come from.
    const named: number[] = []
    for (let i = 0; i < 6; i++) named.push((await agent.register({ type: 'service_auth', login_hint: 'limits.named@example.com' })).status)
    expect(named).toEqual([200, 200, 200, 200, 200, 429])
  })

  it('case 19: wrong codes lock the account out after ten; every unknown code gets the same answer', async () => {
    const session = await signInOverHttp(web, 'limits.guesser@example.com')
    const pages: string[] = []
    for (const guess of ['BCDF-GHJK', 'ZZZZ-ZZZZ', 'not a code', 'QQQQ-QQQQ']) {
      const page = await viewClaim(session, guess)
      expect(page.status).toBe(404)
      pages.push(page.html.replace(/name="_csrf" value="[^"]+"/, ''))
    }
    expect(new Set(pages).size).toBe(1)
    for (let i = 0; i < 6; i++) expect((await viewClaim(session, 'BBBB-BBBB')).status).toBe(404)
    const locked = await viewClaim(session, 'CCCC-CCCC')
    expect(locked.status).toBe(429)
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0)
    // Locked even for a real code: the budget is the account's.
    const real = await agent.register({ type: 'service_auth', login_hint: 'limits.guesser@example.com' })
    const code = (real.body.claim as Record<string, unknown>).user_code as string
    expect((await viewClaim(session, code)).status).toBe(429)
  })
})
