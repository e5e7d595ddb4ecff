/**
 * `POST /mcp` as HTTP: what the edge answers before the MCP server runs (challenges, methods,
 * content negotiation, origins, sizes, limits), statelessness across processes, and the
 * authorization matrix of the tools for every kind of caller.
 */
import { createHash, randomBytes } from 'node:crypto'
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js'
import { bindings, type Caller } from '@quire/core'
import { defaultRateLimit } from '@quire/http-edge'
import { buildWebApp } from '@quire/site'
import { oauthTokensFor } from '@quire/testing/oauth-tokens'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort, startTestWeb, type TestWeb } from './helper.ts'
import { call, callFailing, mcpClient, userWithKey } from './mcp-helper.ts'

let web: TestWeb
const extraApps: FastifyInstance[] = []
let owner: Awaited<ReturnType<typeof userWithKey>>
let artifactId: string

const rpc = (method: string, params: Record<string, unknown> = {}, id = 1) => ({ jsonrpc: '2.0', id, method, params })
const toolCall = (name: string, args: Record<string, unknown> = {}) => rpc('tools/call', { name, arguments: args })
const mcpHeaders = {
  accept: 'application/json, text/event-stream',
  'content-type': 'application/json',
  'mcp-protocol-version': '2025-11-25',
}

/** One raw POST /mcp to `base` (the test web app unless given). */
async function post(body: unknown, options: { token?: string | null; headers?: Record<string, string>; base?: string } = {}) {
  const headers: Record<string, string> = { ...mcpHeaders, ...options.headers }
  if (options.token) headers.authorization = `Bearer ${options.token}`
  const response = await fetch(`${options.base ?? web.url}/mcp`, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
  // Read at once: an unread answer (a whole tool list) can keep its connection busy until the
  // Response is garbage-collected, and a busy connection holds up the app's close in afterAll.
  const read = await response.arrayBuffer()
  return new Response(response.status === 204 ? null : read, { status: response.status, headers: response.headers })
}

const callerOf = (token: string): Caller => ({
  credential: { secretHash: createHash('sha256').update(token).digest('hex') },
  surface: 'api',
})

/** Another web app process on the same database, as behind a load balancer (same public URL). */
async function anotherProcess(options: Partial<Parameters<typeof buildWebApp>[1]> = {}): Promise<string> {
  const app = await buildWebApp(web.runtime, {
    webUrl: web.url,
    sessionSecret: randomBytes(32).toString('base64url'),
    oidc: null,
    production: false,
    ...options,
  })
  extraApps.push(app)
  const port = await freePort()
  await app.listen({ port, host: '127.0.0.1' })
  return `http://127.0.0.1:${port}`
}

beforeAll(async () => {
  web = await startTestWeb({ api: true })
  owner = await userWithKey(web, 'owner@example.com')
  const client = await mcpClient(web, owner.token)
  await call(client, 'create_project', { ownerUsername: owner.username, slug: 'notes', title: 'Notes', icon: 'N' })
  const created = await call(client, 'create_artifact', {
    ownerUsername: owner.username,
    projectSlug: 'notes',
    slug: 'doc',
    type: 'md',
    title: 'Doc',
    content: 'v1\n',
    changelog: 'first',
    access: { publicView: false, publicEdit: false },
  })
  artifactId = created.id as string
  await client.close()
})
afterAll(async () => {
  for (const app of extraApps) await app.close()
  await web?.close()
})

describe('the HTTP edge of /mcp', () => {
  it('answers no credential with 401 and the challenge naming the resource metadata, readable cross-origin', async () => {
    const res = await post(
      rpc('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } }),
      {
        headers: { origin: web.url },
      },
    )
    expect(res.status).toBe(401)
    // The API's challenge, naming this resource's metadata.
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer realm="quire", resource_metadata="${web.url}/.well-known/oauth-protected-resource/mcp"`,
    )
    expect(res.headers.get('access-control-expose-headers')).toContain('www-authenticate')
    expect(res.headers.get('access-control-allow-origin')).toBe(web.url)
    const metadata = await (await fetch(`${web.url}/.well-known/oauth-protected-resource/mcp`)).json()
    expect(metadata).toMatchObject({ resource: `${web.url}/mcp`, authorization_servers: [web.url] })
  })

  it('allows the preflight of an allowed origin with the MCP headers', async () => {
    const res = await fetch(`${web.url}/mcp`, {
      method: 'OPTIONS',
      headers: {
        origin: web.url,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, mcp-protocol-version',
      },
    })
    expect(res.status).toBe(204)
    expect(res.headers.get('access-control-allow-headers')).toContain('mcp-protocol-version')
  })

  it('answers GET and DELETE with 405', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${web.url}/mcp`, { method, headers: { authorization: `Bearer ${owner.token}` } })
      expect(res.status, method).toBe(405)
      expect(res.headers.get('allow')).toContain('POST')
    }
  })

  it('answers a wrong Accept with 406 and an unsupported protocol version with 400', async () => {
    expect((await post(rpc('tools/list'), { token: owner.token, headers: { accept: 'text/html' } })).status).toBe(406)
    const res = await post(rpc('tools/list'), { token: owner.token, headers: { 'mcp-protocol-version': '1999-01-01' } })
    expect(res.status).toBe(400)
    expect(await res.text()).toContain('2025-11-25')
  })

  it('answers a body that is not JSON with a parse error, a foreign Content-Type with 415, both as JSON-RPC', async () => {
    const parse = await post('{"jsonrpc":"2.0","id":1,', { token: owner.token })
    expect(parse.status).toBe(400)
    expect(await parse.json()).toEqual({ jsonrpc: '2.0', error: { code: ErrorCode.ParseError, message: expect.any(String) }, id: null })
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded']) {
      const res = await post(JSON.stringify(rpc('tools/list')), { token: owner.token, headers: { 'content-type': contentType } })
      expect(res.status, contentType).toBe(415)
      expect(await res.json(), contentType).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 }, id: null })
    }
  })

  it('answers notifications with 202 and no body, an unknown method with -32601 and a message that is none with -32600', async () => {
    const note = await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, { token: owner.token })
    expect(note.status).toBe(202)
    expect(await note.text()).toBe('')
    const unknown = await post(rpc('prompts/list', {}, 9), { token: owner.token })
    expect(unknown.status).toBe(200)
    expect(await unknown.json()).toMatchObject({ jsonrpc: '2.0', id: 9, error: { code: ErrorCode.MethodNotFound } })
    const invalid = await post({ jsonrpc: '2.0', id: 9, method: 'tools/list', params: ['x'] }, { token: owner.token })
    expect(invalid.status).toBe(400)
    expect(await invalid.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: ErrorCode.InvalidRequest } })
    const params = await post(rpc('tools/call', { name: 'get_artifact', arguments: 'artifactId' }, 9), { token: owner.token })
    expect(await params.json()).toMatchObject({ jsonrpc: '2.0', id: 9, error: { code: ErrorCode.InvalidParams } })
  })

  it('refuses a foreign Origin with 403 (DNS rebinding) and lets the web origin through', async () => {
    expect((await post(rpc('tools/list'), { token: owner.token, headers: { origin: 'https://evil.example' } })).status).toBe(403)
    expect((await post(rpc('tools/list'), { token: owner.token, headers: { origin: web.url } })).status).toBe(200)
  })

  it('answers a body over the limit with 413, not a 500', async () => {
    const huge = JSON.stringify(toolCall('update_artifact', { artifactId, content: 'x'.repeat(9 * 1024 * 1024), expectedLatestVersion: 1 }))
    expect((await post(huge, { token: owner.token })).status).toBe(413)
  })

  it('refuses a JSON-RPC batch whole, as the SDK refuses an invalid request (400, -32600), and runs none of its calls', async () => {
    const slugs = Array.from({ length: 10 }, (_, i) => `batched-${i}`)
    const creates = slugs.map((slug, i) => ({
      ...toolCall('create_project', { ownerUsername: owner.username, slug, title: `Batched ${i}`, icon: 'B' }),
      id: i + 1,
    }))
    for (const batch of [creates, creates.slice(0, 1), [rpc('tools/list')], []]) {
      const res = await post(batch, { token: owner.token })
      expect(res.status, `a batch of ${batch.length}`).toBe(400)
      expect(res.headers.get('content-type')).toMatch(/^application\/json/)
      expect(await res.json()).toEqual({
        jsonrpc: '2.0',
        error: { code: ErrorCode.InvalidRequest, message: expect.stringMatching(/^Invalid Request: JSON-RPC batches are not supported/) },
        id: null,
      })
    }
    // Not one of the ten projects was made.
    const client = await mcpClient(web, owner.token)
    for (const slug of slugs)
      expect(await call(client, 'check_project_slug_availability', { ownerUsername: owner.username, slug }), slug).toMatchObject({
        available: true,
      })
    await client.close()
    // The same call alone runs.
    const one = await post(creates[0], { token: owner.token })
    expect(one.status).toBe(200)
    expect(((await one.json()) as { result: { structuredContent: { slug: string } } }).result.structuredContent.slug).toBe('batched-0')
  })

  it('mints no session: a call needs no initialize, and any process answers any call', async () => {
    const init = await post(
      rpc('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } }),
      {
        token: owner.token,
      },
    )
    expect(init.status).toBe(200)
    expect(init.headers.get('mcp-session-id')).toBeNull()
    const other = await anotherProcess()
    for (const base of [web.url, other, web.url]) {
      const res = await post(toolCall('get_artifact', { artifactId }), { token: owner.token, base })
      expect(res.status).toBe(200)
      expect(res.headers.get('mcp-session-id')).toBeNull()
      const body = (await res.json()) as { result: { structuredContent: { id: string } } }
      expect(body.result.structuredContent.id).toBe(artifactId)
    }
  })
})

describe('authorization', () => {
  it('accepts an OAuth token issued for {web_url}/mcp, and refuses one for the API with 401 invalid_token', async () => {
    const forMcp = await oauthTokensFor(web.runtime.deps, 'owner@example.com', `${web.url}/mcp`)
    const client = await mcpClient(web, forMcp.access_token)
    expect(await call(client, 'get_current_principal')).toMatchObject({ username: owner.username })
    // …and it records the exact token on the trail.
    await call(client, 'update_artifact', { artifactId, content: 'by oauth\n', expectedLatestVersion: 1 })
    const events = await call(client, 'list_audit_events', { artifactId, limit: 1 })
    expect((events.items as { via: unknown }[])[0]?.via).toMatchObject({ surface: 'mcp', credential: 'oauth' })
    await client.close()

    const forApi = await oauthTokensFor(web.runtime.deps, 'owner@example.com', web.apiUrl)
    const res = await post(rpc('tools/list'), { token: forApi.access_token })
    expect(res.status).toBe(401)
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"')
    expect(res.headers.get('www-authenticate')).toContain('resource_metadata=')
    // The MCP token is no key to the API either.
    expect((await fetch(`${web.apiUrl}/api/profile/me`, { headers: { authorization: `Bearer ${forMcp.access_token}` } })).status).toBe(401)
  })

  it('refuses an unknown, a revoked key and a share link secret with 401 invalid_token', async () => {
    const revoked = await userWithKey(web, 'revoked@example.com')
    const keys = await bindings.listApiKeys(
      web.runtime.deps,
      callerOf(revoked.token),
      { params: undefined, query: {}, body: undefined },
      {},
    )
    if (!keys.ok) throw new Error(keys.error.message)
    const keyId = (keys.value.value.items[0] as { id: string }).id
    const before = await post(rpc('tools/list'), { token: revoked.token })
    expect(before.status).toBe(200)
    await bindings.revokeApiKey(
      web.runtime.deps,
      callerOf(revoked.token),
      { params: { apiKeyId: keyId }, query: undefined, body: undefined },
      {},
    )

    const link = await bindings.createShareLink(
      web.runtime.deps,
      callerOf(owner.token),
      { params: { artifactId }, query: undefined, body: {} },
      {},
    )
    if (!link.ok) throw new Error(link.error.message)
    for (const token of ['qk_not_a_real_key', revoked.token, link.value.value.secret as string]) {
      // Refused alike before any call and by the call's own operation (a share link reads its artifact on REST).
      for (const body of [rpc('tools/list'), toolCall('get_artifact_content', { artifactId })]) {
        const res = await post(body, { token })
        expect(res.status, `${token.slice(0, 4)} ${body.method}`).toBe(401)
        expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"')
      }
    }
  })

  it('answers a tools/call whose scope the key lacks with 403 insufficient_scope naming the scope, as REST does', async () => {
    const reader = await userWithKey(web, 'reader@example.com', ['artifacts:read', 'artifacts:create'])
    const client = await mcpClient(web, reader.token)
    expect((await client.listTools()).tools).toHaveLength(26)
    const error = await client
      .callTool({ name: 'set_artifact_access', arguments: { artifactId: 'art_x', access: {} } })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(StreamableHTTPError)
    expect((error as StreamableHTTPError).code).toBe(403)
    await client.close()

    const res = await post(toolCall('update_artifact', { artifactId, content: 'x', expectedLatestVersion: 1 }), { token: reader.token })
    expect(res.status).toBe(403)
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer realm="quire", resource_metadata="${web.url}/.well-known/oauth-protected-resource/mcp", error="insufficient_scope", scope="artifacts:update"`,
    )
    // REST answers the same for an artifact the key's user may write: the scope decides.
    const mine = await mcpClient(web, reader.token)
    await call(mine, 'create_project', { ownerUsername: reader.username, slug: 'mine', title: 'Mine', icon: 'M' })
    const own = await call(mine, 'create_artifact', {
      ownerUsername: reader.username,
      projectSlug: 'mine',
      slug: 'own',
      type: 'md',
      title: 'Own',
      content: 'own\n',
      changelog: 'first',
      access: { publicView: false, publicEdit: false },
    })
    await mine.close()
    const viaMcp = await post(toolCall('update_artifact', { artifactId: own.id, content: 'x', expectedLatestVersion: 1 }), {
      token: reader.token,
    })
    expect(viaMcp.status).toBe(403)
    const rest = await fetch(`${web.apiUrl}/api/artifacts/${own.id}/versions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${reader.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'x', expectedLatestVersion: 1 }),
    })
    expect(rest.status).toBe(403)
    expect(rest.headers.get('www-authenticate')).toContain('error="insufficient_scope", scope="artifacts:update"')
  })

  it('names in its 403 every scope a tool needs, those its answer or effect needs included', async () => {
    const challenge = (scope: string) =>
      `Bearer realm="quire", resource_metadata="${web.url}/.well-known/oauth-protected-resource/mcp", error="insufficient_scope", scope="${scope}"`
    for (const [name, args, holds, needs] of [
      [
        'set_artifact_access',
        { artifactId, access: {}, dryRun: true },
        ['artifacts:access:write'],
        'artifacts:access:write artifacts:access:read',
      ],
      ['create_share_link', { artifactId }, ['artifacts:share'], 'artifacts:share artifacts:read'],
    ] as const) {
      const key = await userWithKey(web, `${name.replaceAll('_', '-')}@example.com`, holds)
      const res = await post(toolCall(name, args), { token: key.token })
      expect(res.status, name).toBe(403)
      expect(res.headers.get('www-authenticate'), name).toBe(challenge(needs))
      const problem = (await res.json()) as { code: string; scope: string; detail: string }
      expect(problem, name).toMatchObject({ code: 'insufficient_scope', scope: needs })
      for (const scope of needs.split(' ')) expect(problem.detail, name).toContain(`\`${scope}\``)
    }
  })

  it('lets owner and workspace member act, a stranger not find, and a read-only key read but not write', async () => {
    // A team workspace with a member, and an artifact in it.
    const member = await userWithKey(web, 'member@example.com')
    const ownerCaller = callerOf(owner.token)
    const team = await bindings.createWorkspace(
      web.runtime.deps,
      ownerCaller,
      { params: undefined, query: undefined, body: { slug: 'team', name: 'Team' } },
      {},
    )
    if (!team.ok) throw new Error(team.error.message)
    const workspaceId = team.value.value.id
    const invited = await bindings.createInvitation(
      web.runtime.deps,
      ownerCaller,
      { params: { workspaceId }, query: undefined, body: { email: 'member@example.com' } },
      {},
    )
    if (!invited.ok) throw new Error(invited.error.message)
    const accepted = await bindings.acceptInvitation(
      web.runtime.deps,
      callerOf(member.token),
      { params: { invitationId: invited.value.value.id }, query: undefined, body: undefined },
      {},
    )
    if (!accepted.ok) throw new Error(accepted.error.message)

    const ownerClient = await mcpClient(web, owner.token)
    await call(ownerClient, 'create_project', { ownerUsername: 'team', slug: 'shared', title: 'Shared', icon: 'S' })
    const shared = await call(ownerClient, 'create_artifact', {
      ownerUsername: 'team',
      projectSlug: 'shared',
      slug: 'plan',
      type: 'md',
      title: 'Plan',
      content: 'plan\n',
      changelog: 'first',
      access: { publicView: false, publicEdit: false },
    })
    const id = shared.id as string

    const memberClient = await mcpClient(web, member.token)
    expect(await call(memberClient, 'get_artifact', { artifactId: id })).toMatchObject({ id })
    expect(await call(memberClient, 'update_artifact', { artifactId: id, content: 'plan v2\n', expectedLatestVersion: 1 })).toMatchObject({
      versionNumber: 2,
    })
    expect(((await call(memberClient, 'list_workspace_artifacts', { workspaceId })).items as { id: string }[]).map((a) => a.id)).toEqual([
      id,
    ])

    const strangerClient = await mcpClient(web, (await userWithKey(web, 'stranger@example.com')).token)
    expect((await callFailing(strangerClient, 'get_artifact', { artifactId: id })).error.code).toBe('not_found')
    expect((await callFailing(strangerClient, 'list_workspace_artifacts', { workspaceId })).error.code).toBe('not_found')

    const readOnly = await userWithKey(web, 'ro@example.com', ['artifacts:read'])
    const roClient = await mcpClient(web, readOnly.token)
    expect((await callFailing(roClient, 'get_artifact', { artifactId: id })).error.code).toBe('not_found') // not a member
    const readOnlyMemberKey = await userWithKey(web, 'member@example.com', ['artifacts:read'])
    const roMember = await mcpClient(web, readOnlyMemberKey.token)
    expect(await call(roMember, 'get_artifact_content', { artifactId: id })).toMatchObject({ content: 'plan v2\n' })
    expect((await post(toolCall('delete_artifact', { artifactId: id }), { token: readOnlyMemberKey.token })).status).toBe(403)

    for (const client of [ownerClient, memberClient, strangerClient, roClient, roMember]) await client.close()
  })

  it('counts refused credentials per address and answers 429 past the budget; a good key still passes', async () => {
    const limited = await anotherProcess({ mcpRateLimit: { ...defaultRateLimit, authFailures: { max: 3, windowMs: 60_000 } } })
    // A key this process has seen valid stays good for the address once it is blocked.
    expect((await post(rpc('tools/list'), { token: owner.token, base: limited })).status).toBe(200)
    const statuses: number[] = []
    for (let i = 0; i < 6; i++) statuses.push((await post(rpc('tools/list'), { token: `qk_bogus_${i}`, base: limited })).status)
    expect(statuses).toEqual([401, 401, 401, 429, 429, 429])
    const blocked = await post(rpc('tools/list'), { token: 'qk_bogus_x', base: limited })
    expect(blocked.headers.get('retry-after')).toMatch(/^\d+$/)
    expect((await post(rpc('tools/list'), { token: owner.token, base: limited })).status).toBe(200)
  })
  it("spends the credential's request budget as the API does: 429 with Retry-After past it, another key unaffected", async () => {
    const limited = await anotherProcess({ mcpRateLimit: { ...defaultRateLimit, max: 3, windowMs: 60_000 } })
    const first = await post(rpc('tools/list'), { token: owner.token, base: limited })
    expect(first.status).toBe(200)
    expect(first.headers.get('ratelimit-limit')).toBe('3')
    const statuses = [first.status]
    for (let i = 0; i < 3; i++) statuses.push((await post(rpc('tools/list'), { token: owner.token, base: limited })).status)
    expect(statuses).toEqual([200, 200, 200, 429])
    const refused = await post(rpc('tools/list'), { token: owner.token, base: limited })
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/)
    expect(await refused.json()).toMatchObject({ code: 'rate_limited', status: 429 })
    const other = await userWithKey(web, 'mcp.budget.other@example.com')
    expect((await post(rpc('tools/list'), { token: other.token, base: limited })).status).toBe(200)
  })
})
