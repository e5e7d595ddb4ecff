/**
 * Hand-offs (issue 30, points 3 and 6): when an agent's token lacks a scope, every surface says
 * what it can do next. A scope its person may still grant (within AUTH_MD_ALLOWED_SCOPES) names
 * the step-up request; one no agent may hold here names the web page where the person does the
 * action, and a sentence to relay. At `/mcp` the agent gets a tool result (it cannot re-authorize
 * through OAuth), and is not offered the tools it can never use.
 */
import { randomBytes } from 'node:crypto'
import { join, resolve } from 'node:path'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runNode } from '../../../packages/cli/test/quire-process.ts'
import { CLAIM_GRANT } from './agent-helper.ts'
import { startTestWeb, type TestWeb } from './helper.ts'
import { type HttpSession, signInOverHttp } from './http-session.ts'
import { call, mcpClient, textOf, toolError, userWithKey } from './mcp-helper.ts'

const PERSON = 'hand-offs.person@example.com'
const repo = resolve(import.meta.dirname, '../../..')

/** Registers an agent naming the person, has the person confirm over HTTP, and exchanges the claim token. */
async function claimedAgent(web: TestWeb, person: HttpSession, scopes: readonly string[]): Promise<string> {
  const post = (path: string, init: RequestInit) => fetch(`${web.url}${path}`, { method: 'POST', ...init })
  const registered = (await (
    await post('/agent/identity', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'service_auth', login_hint: person.email, scopes, name: 'Status bot' }),
    })
  ).json()) as { claim_token: string; claim: { user_code: string } }
  const confirmed = await person.postForm('/agent/claim', { user_code: registered.claim.user_code, _csrf: await person.csrf() })
  expect(confirmed.status).toBe(200)
  const token = (await (
    await post('/oauth2/token', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: CLAIM_GRANT, claim_token: registered.claim_token }).toString(),
    })
  ).json()) as { access_token: string; scope: string }
  expect(token.scope.split(' ').sort()).toEqual([...scopes].sort())
  return token.access_token
}

async function rest(web: TestWeb, token: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${web.apiUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

describe('an agent whose token lacks a scope', () => {
  let web: TestWeb
  let person: HttpSession
  let token: string
  let artifact: { id: string; url: string }

  beforeAll(async () => {
    web = await startTestWeb({
      api: true,
      rateLimit: false,
      env: {
        AUTH_MD_ENABLED: 'true',
        AUTH_MD_SIGNING_SECRET: randomBytes(32).toString('base64url'),
        // Agents may be granted sharing here, never changing who may read.
        AUTH_MD_ALLOWED_SCOPES: 'artifacts:read,artifacts:create,artifacts:update,artifacts:share',
      },
    })
    person = await signInOverHttp(web, PERSON)
    token = await claimedAgent(web, person, ['artifacts:read', 'artifacts:create', 'artifacts:update'])
    const me = await rest(web, token, 'GET', '/api/profile/me')
    const owner = me.body.username as string
    expect(
      (await rest(web, token, 'POST', '/api/projects', { ownerUsername: owner, slug: 'status', title: 'Status', icon: 'S' })).status,
    ).toBe(201)
    const created = await rest(web, token, 'POST', '/api/artifacts', {
      ownerUsername: owner,
      projectSlug: 'status',
      slug: 'weekly',
      type: 'md',
      title: 'Weekly status',
      content: '# Weekly\n',
      changelog: 'first',
      access: { publicView: false, publicEdit: false },
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const body = (created.body.artifact ?? created.body) as { id: string; url: string }
    artifact = { id: body.id, url: body.url }
  })
  afterAll(async () => {
    await web?.close()
  })

  it('REST: a scope the person may grant names the step-up request; one no agent may hold names the page and a sentence to relay', async () => {
    const share = await rest(web, token, 'POST', `/api/artifacts/${artifact.id}/share-links`, { role: 'viewer' })
    expect(share.status).toBe(403)
    expect(share.body).toMatchObject({
      code: 'insufficient_scope',
      scope: 'artifacts:share',
      handOff: {
        kind: 'step_up',
        scope: 'artifacts:share',
        url: `${web.url}/agent/identity/scopes`,
        personUrl: `${artifact.url}/settings`,
      },
    })
    expect((share.body.handOff as { instruction: string }).instruction).toContain('{"scopes":"artifacts:share"}')
    expect(share.body.detail).toContain(`${web.url}/agent/identity/scopes`)

    const access = await rest(web, token, 'PATCH', `/api/artifacts/${artifact.id}/access`, { publicView: true })
    expect(access.status).toBe(403)
    const handOff = access.body.handOff as { kind: string; url: string; instruction: string }
    expect(handOff).toMatchObject({ kind: 'person', scope: 'artifacts:access:write', url: `${artifact.url}/settings` })
    expect(handOff.instruction).toBe(
      `Please change who may read it yourself at ${artifact.url}/settings: agents cannot hold \`artifacts:access:write\` on this Quire.`,
    )
    expect(access.body.detail).toContain('AUTH_MD_ALLOWED_SCOPES')

    const keys = await rest(web, token, 'GET', '/api/api-keys')
    expect(keys.status).toBe(403)
    expect(keys.body.handOff).toMatchObject({ kind: 'person', url: `${web.url}/settings/keys` })

    // Each page is where the person does it: signed in, it answers with the form.
    const settings = await person.get(new URL(handOff.url).pathname)
    expect(settings.status).toBe(200)
    expect(await settings.text()).toMatch(/Anyone with the link|Who can read/i)
    expect((await person.get('/settings/keys')).status).toBe(200)
  })

  it('REST: an API key lacking a scope gets no hand-off (its owner re-issues it)', async () => {
    const key = await userWithKey(web, PERSON, ['artifacts:read'])
    const refused = await rest(web, key.token, 'PATCH', `/api/artifacts/${artifact.id}/access`, { publicView: true })
    expect(refused.status).toBe(403)
    expect(refused.body.code).toBe('insufficient_scope')
    expect(refused.body).not.toHaveProperty('handOff')
  })

  it('MCP: a scope failure is a tool result with the hand-off, and tools it can never use are not offered', async () => {
    const mcp = await mcpClient(web, token)
    try {
      const listed = (await mcp.listTools()).tools.map((tool) => tool.name)
      expect(listed).toContain('create_share_link')
      expect(listed).toContain('update_artifact')
      expect(listed).not.toContain('set_artifact_access')
      expect(listed).not.toContain('delete_artifact')
      expect(mcp.getInstructions()).toContain('Not listed: ')
      expect(mcp.getInstructions()).toContain('set_artifact_access')

      const shared = (await mcp.callTool({
        name: 'create_share_link',
        arguments: { artifactId: artifact.id, role: 'viewer' },
      })) as CallToolResult
      expect(shared.isError).toBe(true)
      expect(toolError(shared)).toMatchObject({ code: 'insufficient_scope', handOff: { kind: 'step_up' } })
      expect(textOf(shared)).toContain(`POST ${web.url}/agent/identity/scopes`)

      // Called anyway, a tool it was not offered answers the same way, with the page for the person.
      const access = (await mcp.callTool({
        name: 'set_artifact_access',
        arguments: { artifactId: artifact.id, access: { publicView: true } },
      })) as CallToolResult
      expect(access.isError).toBe(true)
      expect(toolError(access).handOff).toMatchObject({ kind: 'person', url: `${artifact.url}/settings` })
      expect(textOf(access)).toContain('relay this to your person')

      // What it may do still works over the same connection.
      expect((await call(mcp, 'get_artifact', { artifactId: artifact.id })).id ?? artifact.id).toBe(artifact.id)
    } finally {
      await mcp.close()
    }
  })

  it('the CLI prints the hand-off as the next step', async () => {
    const run = await runNode([join(repo, 'packages/cli/src/bin.ts'), 'share', 'create', artifact.id, '--role', 'viewer'], {
      env: { AGENT_SERVICE_BASE_URL: web.apiUrl, AGENT_SERVICE_TOKEN: token, AGENT_SERVICE_NO_INPUT: '1' },
    })
    expect(run.code).not.toBe(0)
    expect(run.stderr).toContain(`POST ${web.url}/agent/identity/scopes`)
  })
})
