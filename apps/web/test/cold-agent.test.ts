/**
 * A cold agent: a script given nothing but `{web_url}` and the email of the person it works for.
 * It finds its way from the discovery documents and `/auth.md`, registers, shows the person a link
 * and a code, and polls; the person confirms in a real headless Chromium, signed in through the
 * development OpenID Connect provider. Then the agent works with its token on every surface: it
 * publishes an artifact over MCP, shares it, recovers from a version conflict with nothing but the
 * error it got, and runs the CLI with `AGENT_SERVICE_TOKEN`. The person's trail names the agent,
 * and a dump of the database afterwards holds none of the secrets the agent was given.
 */
import { randomBytes } from 'node:crypto'
import { join, resolve } from 'node:path'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { waitBudgetMs } from '@quire/testing/waits'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runNode } from '../../../packages/cli/test/quire-process.ts'
import { browserTimeout, databaseDump, launchChromium, signInWithBrowser, startTestWeb, type TestWeb } from './helper.ts'
import { call, mcpClient, restCall, textOf, toolError, userWithKey } from './mcp-helper.ts'

const PERSON = 'cold.person@example.com'
const repo = resolve(import.meta.dirname, '../../..')

/** What the person does with what the agent shows them: opens the link in a browser, signs in, checks the code, confirms. */
type Person = (link: string, code: string) => Promise<void>

interface Log {
  readonly secrets: string[]
  readonly steps: string[]
}

/**
 * The agent. Every URL it uses comes from a document it read; every request body is the one
 * `/auth.md` shows. It throws (with what it saw) where an agent would stop and ask for help.
 */
async function coldAgent(webUrl: string, personEmail: string, person: Person, log: Log) {
  const getJson = async (url: string) => {
    const response = await fetch(url)
    if (!response.ok) throw new Error(`${url}: ${response.status}`)
    return (await response.json()) as Record<string, unknown>
  }
  // Step 1: discover.
  const metadata = await getJson(`${webUrl}/.well-known/oauth-authorization-server`)
  const agentAuth = metadata.agent_auth as { skill: string; identity_endpoint: string; identity_types_supported: string[] }
  const manual = await (await fetch(agentAuth.skill)).text()
  log.steps.push(`read ${agentAuth.skill} (${manual.length} characters)`)
  // The manual names the grant this agent will poll with; the metadata confirms the server takes it.
  const claimGrant = /urn:[a-z]+:params:oauth:grant-type:claim_token/.exec(manual)?.[0]
  if (!claimGrant || !(metadata.grant_types_supported as string[]).includes(claimGrant)) throw new Error('no claim grant in auth.md')
  if (!agentAuth.identity_types_supported.includes('service_auth')) throw new Error('service_auth is not offered')

  // Step 3: register, naming the person.
  const registered = await fetch(agentAuth.identity_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      type: 'service_auth',
      login_hint: personEmail,
      scopes: ['artifacts:read', 'artifacts:create', 'artifacts:update', 'artifacts:share'],
    }),
  })
  const registration = (await registered.json()) as Record<string, unknown>
  if (registered.status !== 200) throw new Error(`registration refused: ${JSON.stringify(registration)}`)
  const claimToken = registration.claim_token as string
  const claim = registration.claim as { user_code: string; verification_uri_complete: string; interval: number }
  log.secrets.push(claimToken, claim.user_code)

  // Step 4: the person confirms while the agent polls. The agent sleeps `interval` seconds before
  // each poll, as the protocol demands (a sooner poll earns slow_down): that pace is what this
  // checks, not a stand-in for a signal. It polls while the person is at it (each of their browser
  // steps has its own budget) and for a wait's budget after they are done (packages/testing/src/waits.ts).
  let interval = claim.interval
  let token: Record<string, unknown> | null = null
  let personError: unknown
  let personDoneAt: number | undefined
  const confirmed = person(claim.verification_uri_complete, claim.user_code)
    .catch((error: unknown) => {
      personError = error ?? new Error('the person failed')
    })
    .finally(() => {
      personDoneAt = performance.now()
    })
  const polling = () =>
    token === null && personError === undefined && (personDoneAt === undefined || performance.now() - personDoneAt < waitBudgetMs)
  for (let polls = 0; polling(); polls++) {
    await new Promise((done) => setTimeout(done, interval * 1000))
    const response = await fetch(metadata.token_endpoint as string, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: claimGrant, claim_token: claimToken }).toString(),
    })
    const body = (await response.json()) as Record<string, unknown>
    log.steps.push(`poll ${polls + 1}: ${response.status} ${body.error ?? 'token'}`)
    if (response.ok) token = body
    else if (body.error === 'slow_down') interval += 5
    else if (body.error !== 'authorization_pending') throw new Error(`polling stopped: ${JSON.stringify(body)}`)
  }
  await confirmed
  if (personError !== undefined) throw personError
  if (token === null)
    throw new Error(`No token ${waitBudgetMs / 1000} s after the person confirmed; the agent saw: ${log.steps.join('; ')}`)
  const accessToken = token.access_token as string
  log.secrets.push(accessToken, token.identity_assertion as string)
  return { accessToken, scope: token.scope as string, manual }
}

describe('a cold agent, given only the web address', () => {
  let web: TestWeb
  let browser: Browser
  const log: Log = { secrets: [], steps: [] }

  beforeAll(async () => {
    web = await startTestWeb({
      api: true,
      env: {
        AUTH_MD_ENABLED: 'true',
        AUTH_MD_SIGNING_SECRET: randomBytes(32).toString('base64url'),
        AUTH_MD_ALLOWED_SCOPES: 'artifacts:read,artifacts:create,artifacts:update,artifacts:share',
      },
    })
    browser = await launchChromium()
  }, browserTimeout())
  afterAll(async () => {
    await browser?.close()
    await web?.close()
  })

  // Waits: the polling for the token beside the person's browser steps, then the CLI's run.
  it('registers, is claimed in a browser, publishes over MCP, shares, recovers from a conflict, and leaves no secret behind', {
    timeout: browserTimeout(2),
  }, async () => {
    // The person already uses Quire (a key for checking what happened, over REST).
    const personKey = await userWithKey(web, PERSON)
    const context = await browser.newContext()
    let sawCode = ''
    const person: Person = async (link, code) => {
      const page = await context.newPage()
      const url = new URL(link)
      expect(url.origin).toBe(web.url)
      await signInWithBrowser(page, web, PERSON, `${url.pathname}${url.search}`)
      await page.waitForURL((landed) => landed.pathname === '/agent/claim')
      sawCode = (await page.textContent('.user-code')) ?? ''
      expect(sawCode).toBe(code)
      await Promise.all([page.waitForLoadState('load'), page.click('button[type="submit"]:has-text("Connect agent")')])
      await page.waitForSelector('h1:has-text("Agent connected")')
      await page.close()
    }
    const { accessToken, scope } = await coldAgent(web.url, PERSON, person, log)
    await context.close()
    expect(sawCode).toMatch(/^[A-Z]{4}-[A-Z]{4}$/)
    expect(scope.split(' ').sort()).toEqual(['artifacts:create', 'artifacts:read', 'artifacts:share', 'artifacts:update'])

    // Over MCP, at the address the protected-resource metadata names.
    const mcpMetadata = (await (await fetch(`${web.url}/.well-known/oauth-protected-resource/mcp`)).json()) as { resource: string }
    expect(mcpMetadata.resource).toBe(`${web.url}/mcp`)
    const mcp = await mcpClient(web, accessToken)
    try {
      const me = await call(mcp, 'get_current_principal')
      expect(JSON.stringify(me)).toContain(personKey.username)
      await call(mcp, 'create_project', { ownerUsername: personKey.username, slug: 'agent-reports', title: 'Agent reports', icon: 'R' })
      const created = await call(mcp, 'create_artifact', {
        ownerUsername: personKey.username,
        projectSlug: 'agent-reports',
        slug: 'weekly',
        type: 'md',
        title: 'Weekly report',
        content: '# Weekly report\n\nAll quiet.\n',
        changelog: 'first draft',
        access: { publicView: false, publicEdit: false },
      })
      const artifactId = (created.artifact as { id: string } | undefined)?.id ?? (created.id as string)
      expect(artifactId).toMatch(/^art_/)
      const link = await call(mcp, 'create_share_link', { artifactId, role: 'viewer' })
      const linkUrl = (link.url ?? (link.shareLink as { url?: string } | undefined)?.url) as string
      expect(linkUrl).toContain('/s/')
      expect((await fetch(linkUrl)).status).toBe(200)

      // The person edits meanwhile; the agent's update, based on version 1, conflicts.
      await restCall(web, personKey.token, 'POST', `/api/artifacts/${artifactId}/versions`, {
        content: '# Weekly report\n\nAll quiet. (Checked by the person.)\n',
        changelog: 'person',
        expectedLatestVersion: 1,
      })
      const conflicted = (await mcp.callTool({
        name: 'update_artifact',
        arguments: {
          artifactId,
          content: '# Weekly report\n\nAll quiet.\n\n- one incident\n',
          changelog: 'agent',
          expectedLatestVersion: 1,
        },
      })) as CallToolResult
      const error = toolError(conflicted)
      expect(error.code).toBe('version_conflict')
      // Recovery from the error alone: it says the latest version and what was missed.
      const latest = error.latestVersion as number
      expect(latest).toBe(2)
      expect(textOf(conflicted)).toContain('(Checked by the person.)')
      const merged = await call(mcp, 'update_artifact', {
        artifactId,
        content: '# Weekly report\n\nAll quiet. (Checked by the person.)\n\n- one incident\n',
        changelog: 'agent, merged',
        expectedLatestVersion: latest,
      })
      expect(merged.versionNumber).toBe(3)

      // The artifact's trail names the agent and the person it acted for.
      const events = (await restCall(web, personKey.token, 'GET', `/api/audit-events?artifactId=${artifactId}`)).items as {
        action: string
        actor: { kind: string; id: string; onBehalfOf?: { id: string } }
        via: { credential: string }
      }[]
      const byAgent = events.filter((e) => e.actor.kind === 'agent')
      expect(byAgent.map((e) => e.action)).toEqual(
        expect.arrayContaining(['artifact.created', 'share_link.created', 'artifact.version_created']),
      )
      for (const event of byAgent) {
        expect(event.actor.id).toMatch(/^agt_/)
        expect(event.actor.onBehalfOf?.id).toBe(personKey.userId)
        expect(event.via.credential).toBe('agent')
      }
    } finally {
      await mcp.close()
    }

    // The CLI, with the token in its environment.
    const whoami = await runNode([join(repo, 'packages/cli/src/bin.ts'), 'whoami', '--format', 'json'], {
      env: { AGENT_SERVICE_BASE_URL: web.apiUrl, AGENT_SERVICE_TOKEN: accessToken, AGENT_SERVICE_NO_INPUT: '1' },
    })
    expect(whoami.code, whoami.stderr).toBe(0)
    expect(whoami.stdout).toContain(personKey.username)

    // The person's account trail.
    const account = (await restCall(web, personKey.token, 'GET', '/api/audit-events?limit=100')).items as { action: string }[]
    expect(account.map((e) => e.action)).toEqual(expect.arrayContaining(['agent.registered', 'agent.claimed', 'agent.token_issued']))

    // A dump of the database holds none of what the agent was handed.
    const dump = await databaseDump(web)
    expect(log.secrets).toHaveLength(4)
    for (const secret of log.secrets) {
      expect(dump).not.toContain(secret)
      if (secret.split('.').length === 3) {
        const jti = JSON.parse(Buffer.from(secret.split('.')[1] ?? '', 'base64url').toString('utf8')).jti as string
        expect(dump).not.toContain(jti)
      }
    }
    expect(dump).not.toContain(sawCode.replace('-', ''))
  })
})
