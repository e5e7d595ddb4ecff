/**
 * An agent ends its own registration (auth.md "Ending your registration"), black-box against the
 * running web app and API: `DELETE /agent/identity` with its access token or its identity
 * assertion, and the identity assertion at `/oauth2/revoke`. Every token and the assertion stop at
 * once, and the person's trail records it; an unclaimed agent's end is on nobody's trail.
 */
import { randomBytes } from 'node:crypto'
import { SignJWT } from 'jose'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { answer, CLAIM_GRANT, JWT_BEARER, TestClock } from './agent-helper.ts'
import { startTestWeb, type TestWeb } from './helper.ts'
import { type HttpSession, signInOverHttp } from './http-session.ts'
import { userWithKey } from './mcp-helper.ts'

interface TrailEvent {
  readonly action: string
  readonly actor: { kind: string; id: string; onBehalfOf?: { id: string } }
  readonly via: { surface: string; credential: string | null; credentialId: string | null }
  readonly data: Record<string, unknown>
}

describe('an agent ends its own registration', () => {
  let web: TestWeb
  const clock = new TestClock()
  const ALICE = 'selfrevoke.alice@example.com'
  let alice: HttpSession
  /** Alice's API key: her trail and her agents, as she sees them. */
  let key: { token: string; userId: string }

  beforeAll(async () => {
    web = await startTestWeb({
      api: true,
      clock,
      rateLimit: false,
      env: {
        AUTH_MD_ENABLED: 'true',
        AUTH_MD_SIGNING_SECRET: randomBytes(32).toString('base64url'),
        AUTH_MD_ALLOWED_SCOPES: 'artifacts:read,artifacts:create',
        AUTH_MD_ANONYMOUS_PRE_CLAIM_SCOPES: 'artifacts:read',
      },
    })
    alice = await signInOverHttp(web, ALICE)
    key = await userWithKey(web, ALICE)
  })
  afterAll(async () => {
    await web?.close()
  })

  const post = async (path: string, body: unknown) =>
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
  /** `DELETE /agent/identity` with this bearer credential (none: no header). */
  const end = async (credential: string | null) =>
    answer(
      await fetch(`${web.url}/agent/identity`, {
        method: 'DELETE',
        headers: credential === null ? {} : { authorization: `Bearer ${credential}` },
      }),
    )
  const exchange = (assertion: string) => form('/oauth2/token', { grant_type: JWT_BEARER, assertion })
  const api = async (token: string, path: string) =>
    answer(await fetch(`${web.apiUrl}${path}`, { headers: { authorization: `Bearer ${token}` } }))

  /** A service_auth agent Alice claimed: its first token, its post-claim assertion and a second token from it. */
  async function claimedAgent() {
    const registered = await post('/agent/identity', { type: 'service_auth', login_hint: ALICE })
    expect(registered.status, JSON.stringify(registered.body)).toBe(200)
    const code = (registered.body.claim as Record<string, unknown>).user_code as string
    const confirmed = await alice.postForm('/agent/claim', { user_code: code, _csrf: await alice.csrf() })
    expect(confirmed.status).toBe(200)
    clock.advance(5)
    const granted = await form('/oauth2/token', { grant_type: CLAIM_GRANT, claim_token: registered.body.claim_token as string })
    expect(granted.status, JSON.stringify(granted.body)).toBe(200)
    const assertion = granted.body.identity_assertion as string
    const second = await exchange(assertion)
    expect(second.status, JSON.stringify(second.body)).toBe(200)
    const tokens = [granted.body.access_token as string, second.body.access_token as string]
    for (const token of tokens) expect((await api(token, '/api/profile/me')).status).toBe(200)
    return { id: registered.body.registration_id as string, tokens, assertion }
  }

  /** Every token is refused, the assertion no longer exchanges. */
  async function expectDead(agent: { tokens: string[]; assertion: string }) {
    for (const token of agent.tokens) {
      const refused = await api(token, '/api/profile/me')
      expect(refused.status).toBe(401)
    }
    const again = await exchange(agent.assertion)
    expect(again.status).toBe(400)
    expect(again.body.error).toBe('invalid_grant')
  }

  async function trail(agentId: string): Promise<TrailEvent[]> {
    const page = await api(key.token, '/api/audit-events?action=agent.revoked&limit=100')
    expect(page.status).toBe(200)
    return (page.body.items as TrailEvent[]).filter((e) => e.data.agentId === agentId)
  }

  async function listed(agentId: string) {
    const page = await api(key.token, '/api/agents?limit=100')
    expect(page.status).toBe(200)
    return (page.body.items as { id: string; revokedAt: string | null }[]).find((a) => a.id === agentId)
  }

  it('with its access token: 200, every token and the assertion die, the person’s trail and agent list say so', async () => {
    const agent = await claimedAgent()
    const ended = await end(agent.tokens[0] ?? '')
    expect(ended.status, JSON.stringify(ended.body)).toBe(200)
    expect(ended.body).toEqual({ registration_id: agent.id, status: 'revoked' })
    expect(ended.headers.get('cache-control')).toBe('no-store')
    await expectDead(agent)

    const events = await trail(agent.id)
    expect(events).toHaveLength(1)
    expect(events[0]?.actor).toMatchObject({ kind: 'agent', id: agent.id, onBehalfOf: { id: key.userId } })
    expect(events[0]?.via).toMatchObject({ surface: 'api', credential: 'agent' })
    expect(events[0]?.via.credentialId).toMatch(/^tok_/)
    expect(events[0]?.data).toEqual({ agentId: agent.id, reason: 'revoked_by_agent' })
    expect((await listed(agent.id))?.revokedAt).not.toBeNull()
    const page = await alice.get('/settings/agents', { accept: 'text/html' })
    const html = await page.text()
    const row = html.slice(html.indexOf(agent.id) - 2000, html.indexOf(agent.id) + 2000)
    expect(row).toContain('Revoked')

    // The second call: its token died with the first, so 401, and nothing more is filed.
    const twice = await end(agent.tokens[1] ?? '')
    expect(twice.status).toBe(401)
    expect(twice.body.error).toBe('invalid_token')
    expect(twice.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"')
    expect(await trail(agent.id)).toHaveLength(1)
  })

  it('with its identity assertion: the same, the event names no token', async () => {
    const agent = await claimedAgent()
    const ended = await end(agent.assertion)
    expect(ended.status, JSON.stringify(ended.body)).toBe(200)
    expect(ended.body).toEqual({ registration_id: agent.id, status: 'revoked' })
    await expectDead(agent)
    const events = await trail(agent.id)
    expect(events).toHaveLength(1)
    expect(events[0]?.actor).toMatchObject({ kind: 'agent', id: agent.id, onBehalfOf: { id: key.userId } })
    expect(events[0]?.via).toEqual({ surface: 'api', credential: 'agent', credentialId: null })
    expect(events[0]?.data).toEqual({ agentId: agent.id, reason: 'revoked_by_agent' })
    expect((await listed(agent.id))?.revokedAt).not.toBeNull()
    expect((await end(agent.assertion)).status).toBe(401)
  })

  it('the identity assertion at /oauth2/revoke ends the registration (RFC 7009: 200, empty)', async () => {
    const agent = await claimedAgent()
    const revoked = await form('/oauth2/revoke', { token: agent.assertion })
    expect(revoked.status).toBe(200)
    expect(revoked.body).toEqual({})
    await expectDead(agent)
    expect(await trail(agent.id)).toHaveLength(1)
    expect((await listed(agent.id))?.revokedAt).not.toBeNull()
  })

  it('at /oauth2/revoke, an assertion that does not verify, or is not the current one, changes nothing (200, empty)', async () => {
    const agent = await claimedAgent()
    const forged = await new SignJWT({ scope: 'artifacts:read', registration_type: 'service_auth', stage: 'claimed' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(web.url)
      .setAudience(web.url)
      .setSubject(agent.id)
      .setJti('forged')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(randomBytes(32))
    const refusedForged = await form('/oauth2/revoke', { token: forged })
    expect(refusedForged.status).toBe(200)
    expect(refusedForged.body).toEqual({})

    // An anonymous agent's assertion, replaced by the post-claim one when Alice claimed it.
    const anonymous = await post('/agent/identity', { type: 'anonymous' })
    const preClaimAssertion = anonymous.body.identity_assertion as string
    const claimToken = anonymous.body.claim_token as string
    const requested = await post('/agent/identity/claim', { claim_token: claimToken, login_hint: ALICE })
    const code = (requested.body.claim as Record<string, unknown>).user_code as string
    expect((await alice.postForm('/agent/claim', { user_code: code, _csrf: await alice.csrf() })).status).toBe(200)
    clock.advance(5)
    const granted = await form('/oauth2/token', { grant_type: CLAIM_GRANT, claim_token: claimToken })
    expect(granted.status, JSON.stringify(granted.body)).toBe(200)
    const replaced = await form('/oauth2/revoke', { token: preClaimAssertion })
    expect(replaced.status).toBe(200)
    expect(replaced.body).toEqual({})

    for (const token of [...agent.tokens, granted.body.access_token as string]) {
      expect((await api(token, '/api/profile/me')).status).toBe(200)
    }
    expect((await exchange(agent.assertion)).status).toBe(200)
    expect((await exchange(granted.body.identity_assertion as string)).status).toBe(200)
    expect(await trail(agent.id)).toEqual([])
    expect((await listed(agent.id))?.revokedAt).toBeNull()
  })

  it('a missing, unknown, forged or foreign credential gets 401 invalid_token with WWW-Authenticate', async () => {
    const forged = await new SignJWT({ scope: 'artifacts:read', registration_type: 'anonymous', stage: 'unclaimed' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(web.url)
      .setAudience(web.url)
      .setSubject('agt_01jh0000000000000000000000')
      .setJti('forged')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(randomBytes(32))
    for (const credential of [null, 'qgt_never_issued', 'not-a-token', forged, key.token]) {
      const refused = await end(credential)
      expect(refused.status, String(credential)).toBe(401)
      expect(refused.body.error).toBe('invalid_token')
      expect(typeof refused.body.error_description).toBe('string')
      expect(refused.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"')
      expect(refused.headers.get('cache-control')).toBe('no-store')
    }
    // The person's API key is not an agent's credential: it still works.
    expect((await api(key.token, '/api/profile/me')).status).toBe(200)
  })

  it('an unclaimed anonymous agent ends itself: 200, its pre-claim token dies, nobody’s trail hears of it', async () => {
    const registered = await post('/agent/identity', { type: 'anonymous' })
    expect(registered.status).toBe(200)
    const id = registered.body.registration_id as string
    const assertion = registered.body.identity_assertion as string
    const preClaim = (await exchange(assertion)).body.access_token as string
    expect((await api(preClaim, '/api/profile/me')).status).toBe(403)
    const ended = await end(preClaim)
    expect(ended.status, JSON.stringify(ended.body)).toBe(200)
    expect(ended.body).toEqual({ registration_id: id, status: 'revoked' })
    await expectDead({ tokens: [preClaim], assertion })
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM audit_events
      WHERE action = 'agent.revoked' AND data->>'agentId' = ${id}`.execute(web.runtime.database.db)
    expect(rows[0]?.n).toBe(0)
    // Its claim token cannot start a claim any more.
    const claim = await post('/agent/identity/claim', { claim_token: registered.body.claim_token as string, login_hint: ALICE })
    expect(claim.status).toBe(409)
  })
})
