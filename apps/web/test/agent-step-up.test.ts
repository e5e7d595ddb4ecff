/**
 * More scopes on request (step-up, issue 30), black-box: a claimed agent asks its person for a
 * scope beyond its grant, polls the token endpoint while the person has not approved, the person
 * approves on the claim page, and the agent's next token carries the scope and works. Real HTTP
 * against the web app and API; the clock is one the test moves.
 */
import { randomBytes } from 'node:crypto'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { answer, CLAIM_GRANT, JWT_BEARER, TestClock } from './agent-helper.ts'
import { startTestWeb, type TestWeb } from './helper.ts'
import { type HttpSession, signInOverHttp } from './http-session.ts'
import { userWithKey } from './mcp-helper.ts'

describe('more scopes on request (step-up)', () => {
  let web: TestWeb
  const clock = new TestClock()
  const ALICE = 'stepup.alice@example.com'
  const MALLORY = 'stepup.mallory@example.com'
  let alice: HttpSession
  let mallory: HttpSession

  beforeAll(async () => {
    web = await startTestWeb({
      api: true,
      clock,
      rateLimit: false,
      env: {
        AUTH_MD_ENABLED: 'true',
        AUTH_MD_SIGNING_SECRET: randomBytes(32).toString('base64url'),
        AUTH_MD_ALLOWED_SCOPES: 'artifacts:read,artifacts:create,artifacts:share',
        AUTH_MD_ANONYMOUS_PRE_CLAIM_SCOPES: 'artifacts:read',
      },
    })
    alice = await signInOverHttp(web, ALICE)
    mallory = await signInOverHttp(web, MALLORY)
  })
  afterAll(async () => {
    await web?.close()
  })

  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) =>
    answer(
      await fetch(`${web.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      }),
    )
  const form = async (fields: Record<string, string>) =>
    answer(
      await fetch(`${web.url}/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields).toString(),
      }),
    )
  const askFor = (token: string | null, scopes: unknown) =>
    post('/agent/identity/scopes', { scopes }, token === null ? {} : { authorization: `Bearer ${token}` })
  /** A jwt-bearer exchange, a polling interval after the previous one. */
  const exchange = (assertion: string, scope?: string) => {
    clock.advance(5)
    return form({ grant_type: JWT_BEARER, assertion, ...(scope === undefined ? {} : { scope }) })
  }
  const api = async (token: string, method: string, path: string, body?: unknown) =>
    answer(
      await fetch(`${web.apiUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    )
  const viewClaim = async (session: HttpSession, code: string) => {
    const response = await session.get(`/agent/claim?user_code=${encodeURIComponent(code)}`, { accept: 'text/html' })
    return { status: response.status, html: await response.text() }
  }
  const confirm = async (session: HttpSession, code: string) => {
    const response = await session.postForm('/agent/claim', { user_code: code, _csrf: await session.csrf() })
    return { status: response.status, html: await response.text() }
  }
  const pendingRequest = async (id: string) =>
    (
      await sql<{ requested_scopes: string[] | null }>`SELECT requested_scopes FROM agent_registrations WHERE id = ${id}`.execute(
        web.runtime.database.db,
      )
    ).rows[0]?.requested_scopes ?? null

  /** An agent Alice claimed, holding artifacts:read and artifacts:create: its token and assertion. */
  async function claimedAgent() {
    const registered = await post('/agent/identity', {
      type: 'service_auth',
      login_hint: ALICE,
      name: 'Release bot',
      scopes: ['artifacts:read', 'artifacts:create'],
    })
    expect(registered.status, JSON.stringify(registered.body)).toBe(200)
    const code = (registered.body.claim as { user_code: string }).user_code
    expect((await confirm(alice, code)).status).toBe(200)
    clock.advance(5)
    const token = await form({ grant_type: CLAIM_GRANT, claim_token: registered.body.claim_token as string })
    expect(token.status, JSON.stringify(token.body)).toBe(200)
    expect(token.body.scope).toBe('artifacts:read artifacts:create')
    return {
      id: registered.body.registration_id as string,
      accessToken: token.body.access_token as string,
      assertion: token.body.identity_assertion as string,
    }
  }

  it('the person approves exactly the added scope on the claim page; the next token carries it, and it works', async () => {
    const agent = await claimedAgent()

    // Outside the allowed set: refused at the request, naming the setting; nothing is created.
    const outside = await askFor(agent.accessToken, 'artifacts:share artifacts:delete agents:manage')
    expect(outside.status).toBe(400)
    expect(outside.body.error).toBe('invalid_scope')
    expect(outside.body.error_description).toContain('AUTH_MD_ALLOWED_SCOPES')
    expect(outside.body.error_description).toContain('artifacts:delete, agents:manage')
    expect(await pendingRequest(agent.id)).toBeNull()
    expect((await askFor(agent.accessToken, 'artifacts:launch')).body.error).toBe('invalid_scope')
    const held = await askFor(agent.accessToken, ['artifacts:read'])
    expect(held.status).toBe(400)
    expect(held.body.error_description).toContain('already holds')
    expect((await askFor(agent.accessToken, 42)).body.error).toBe('invalid_request')
    expect(await pendingRequest(agent.id)).toBeNull()

    // The request: a code for the person, as the claim's.
    const first = await askFor(agent.accessToken, 'artifacts:share artifacts:read')
    expect(first.status, JSON.stringify(first.body)).toBe(200)
    expect(first.headers.get('cache-control')).toBe('no-store')
    expect(first.body).toMatchObject({ registration_id: agent.id, status: 'initiated', scopes_requested: ['artifacts:share'] })
    const firstCode = (first.body.claim as { user_code: string }).user_code
    expect(first.body.claim).toEqual({
      user_code: expect.stringMatching(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/),
      verification_uri: `${web.url}/agent/claim`,
      verification_uri_complete: `${web.url}/agent/claim?user_code=${firstCode}`,
      expires_in: 600,
      interval: 5,
    })
    expect(Date.parse(first.body.expires_at as string)).toBe(clock.at + 600_000)

    // A second request (a list this time) replaces the first: the earlier code stops working.
    const second = await askFor(agent.accessToken, ['artifacts:share'])
    expect(second.status).toBe(200)
    const code = (second.body.claim as { user_code: string }).user_code
    expect((await viewClaim(alice, firstCode)).status).toBe(404)

    // Polling while the person has not approved: authorization_pending; other exchanges go on.
    const pending = await exchange(agent.assertion, 'artifacts:share')
    expect(pending.status).toBe(400)
    expect(pending.body.error).toBe('authorization_pending')
    const plain = await exchange(agent.assertion)
    expect(plain.status).toBe(200)
    expect(plain.body.scope).toBe('artifacts:read artifacts:create')
    // That token creates, but may not share yet.
    const before = plain.body.access_token as string
    const username = (await api(before, 'GET', '/api/profile/me')).body.username as string
    const project = await api(before, 'POST', '/api/projects', { ownerUsername: username, slug: 'step-up', title: 'S', icon: 'S' })
    expect(project.status).toBe(201)
    const artifact = await api(before, 'POST', '/api/artifacts', {
      ownerUsername: username,
      projectSlug: 'step-up',
      slug: 'notes',
      type: 'md',
      title: 'Notes',
      content: '# Notes',
      changelog: 'first',
      access: { publicView: false, publicEdit: false },
    })
    expect(artifact.status, JSON.stringify(artifact.body)).toBe(201)
    const artifactId = artifact.body.id as string
    const refused = await api(before, 'POST', `/api/artifacts/${artifactId}/share-links`, { role: 'viewer' })
    expect(refused.status).toBe(403)
    expect(refused.body.code).toBe('insufficient_scope')
    // The refusal's hand-off names this very request.
    expect(refused.body.handOff).toMatchObject({ kind: 'step_up', scope: 'artifacts:share', url: `${web.url}/agent/identity/scopes` })

    // Someone else: the wrong-account page, and nothing changes.
    const seen = await viewClaim(mallory, code)
    expect(seen.status).toBe(403)
    expect(seen.html).toContain('another account')
    expect((await confirm(mallory, code)).status).toBe(403)
    expect(await pendingRequest(agent.id)).toEqual(['artifacts:share'])

    // The person sees exactly what is added, and what the agent keeps.
    const page = await viewClaim(alice, code)
    expect(page.status).toBe(200)
    expect(page.html).toContain('Release bot</strong> asks for more access')
    const added = page.html.slice(page.html.indexOf('class="scopes-added"'), page.html.indexOf('It keeps'))
    expect(added).toContain('<code>artifacts:share</code>: create and revoke share links')
    expect(added).not.toContain('artifacts:read')
    expect(page.html.slice(page.html.indexOf('It keeps'))).toContain('<code>artifacts:create</code>')
    expect(page.html).toContain('>Confirm</button>')

    // Where the person keeps their agents, the request waits too (no code there: only the agent shows it).
    const aliceKey = await userWithKey(web, ALICE)
    const listed = async () =>
      ((await api(aliceKey.token, 'GET', '/api/agents')).body.items as { id: string; scopeRequest: unknown }[]).find(
        (a) => a.id === agent.id,
      )?.scopeRequest
    expect(await listed()).toEqual({ scopes: ['artifacts:share'], expiresAt: expect.any(String) })
    const agentsPage = await (await alice.get('/settings/agents')).text()
    expect(agentsPage).toContain('Asks for more: <span class="badge">artifacts:share</span>')
    expect(agentsPage).not.toContain(code)

    const confirmed = await confirm(alice, code)
    expect(confirmed.status).toBe(200)
    expect(confirmed.html).toContain('Done: Release bot can now')
    expect(await pendingRequest(agent.id)).toBeNull()
    expect(await listed()).toBeNull()
    expect((await viewClaim(alice, code)).status).toBe(404)

    // The next token carries the scope, and it works.
    const token = await exchange(agent.assertion, 'artifacts:share artifacts:create')
    expect(token.status, JSON.stringify(token.body)).toBe(200)
    expect(token.body.scope).toBe('artifacts:create artifacts:share')
    const full = await exchange(agent.assertion)
    expect(full.body.scope).toBe('artifacts:read artifacts:create artifacts:share')
    const link = await api(full.body.access_token as string, 'POST', `/api/artifacts/${artifactId}/share-links`, { role: 'viewer' })
    expect(link.status, JSON.stringify(link.body)).toBe(201)

    // On the person's trail: the agent asked, the person granted.
    const key = await userWithKey(web, ALICE)
    const trail = async (action: string) =>
      (await api(key.token, 'GET', `/api/audit-events?action=${action}&limit=100`)).body.items as {
        actor: { kind: string; id: string; onBehalfOf?: { id: string } }
        via: { credential: string | null }
        data: Record<string, unknown>
      }[]
    const requested = await trail('agent.scopes_requested')
    expect(requested).toHaveLength(2)
    expect(requested[0]).toMatchObject({
      actor: { kind: 'agent', id: agent.id, onBehalfOf: { id: key.userId } },
      via: { credential: 'agent' },
      data: { agentId: agent.id, added: ['artifacts:share'] },
    })
    const granted = await trail('agent.scopes_granted')
    expect(granted).toHaveLength(1)
    expect(granted[0]).toMatchObject({
      actor: { kind: 'user', id: key.userId },
      via: { credential: 'session' },
      data: { agentId: agent.id, added: ['artifacts:share'], scopes: ['artifacts:read', 'artifacts:create', 'artifacts:share'] },
    })
  })

  it('a code that expires unapproved answers expired_token to the poll; asking again gives a new one', async () => {
    const agent = await claimedAgent()
    expect((await askFor(agent.accessToken, 'artifacts:share')).status).toBe(200)
    clock.advance(601)
    const expired = await exchange(agent.assertion, 'artifacts:share')
    expect(expired.status).toBe(400)
    expect(expired.body.error).toBe('expired_token')
    expect(expired.body.error_description).toContain('/agent/identity/scopes')
    expect((await askFor(agent.accessToken, 'artifacts:share')).status).toBe(200)
    expect((await exchange(agent.assertion, 'artifacts:share')).body.error).toBe('authorization_pending')
  })

  it('refuses a missing, unknown or revoked token (401 invalid_token) and an unclaimed agent', async () => {
    const missing = await askFor(null, 'artifacts:share')
    expect(missing.status).toBe(401)
    expect(missing.body.error).toBe('invalid_token')
    expect(missing.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"')
    expect((await askFor('qgt_unknown', 'artifacts:share')).status).toBe(401)

    const agent = await claimedAgent()
    const revoked = await answer(
      await fetch(`${web.url}/oauth2/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: agent.accessToken }).toString(),
      }),
    )
    expect(revoked.status).toBe(200)
    expect((await askFor(agent.accessToken, 'artifacts:share')).status).toBe(401)

    const anonymous = await post('/agent/identity', { type: 'anonymous' })
    const preClaim = await form({ grant_type: JWT_BEARER, assertion: anonymous.body.identity_assertion as string })
    expect(preClaim.status).toBe(200)
    const unclaimed = await askFor(preClaim.body.access_token as string, 'artifacts:share')
    expect(unclaimed.status).toBe(403)
    expect(unclaimed.body.error).toBe('not_claimed')
    expect(unclaimed.body.error_description).toContain('claim first')
  })
})
