/**
 * A cold job: a script given nothing but `{web_url}`, the email of the person it works for and a
 * task ("publish my weekly status report in a project called `status`, let me review it, and share
 * a read-only link with my team"). It finds its way from the discovery documents and `/auth.md`,
 * registers with a name, shows the person a link and a code, and polls; the person confirms in a
 * real headless Chromium, signed in through the development OpenID Connect provider. Then it
 * publishes over MCP into `status`, recovers from a version conflict with nothing but the error it
 * got, learns from the refused share link that it must ask for `artifacts:share`, asks, is approved
 * in the browser, creates a read-only link an anonymous reader opens, runs the CLI, and ends its own
 * registration. Every URL it uses comes from a response or `/auth.md`; the person does nothing but
 * confirm twice. The person's trail names the agent, and a dump of the database afterwards holds
 * none of the secrets the agent was given. */
import { randomBytes } from 'node:crypto'
import { join, resolve } from 'node:path'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { waitBudgetMs } from '@quire/testing/waits'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runNode } from '../../../packages/cli/test/quire-process.ts'
import { JWT_BEARER } from './agent-helper.ts'
import { browserTimeout, databaseDump, launchChromium, signInWithBrowser, startTestWeb, type TestWeb } from './helper.ts'
import { call, mcpClient, restCall, textOf, toolError, userWithKey } from './mcp-helper.ts'

const PERSON = 'cold.person@example.com'
const AGENT_NAME = 'Status bot'
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
      scopes: ['artifacts:read', 'artifacts:create', 'artifacts:update'],
      name: AGENT_NAME,
      description: 'Publishes the weekly status report.',
    }),
  })
  const registration = (await registered.json()) as Record<string, unknown>
  if (registered.status !== 200) throw new Error(`registration refused: ${JSON.stringify(registration)}`)
  const claimToken = registration.claim_token as string
  const claim = registration.claim as { user_code: string; verification_uri_complete: string; interval: number }
  log.secrets.push(claimToken, claim.user_code)

  // Step 4: the person confirms while the agent polls the claim grant.
  const token = await whilePersonConfirms(person, claim, log, {
    url: metadata.token_endpoint as string,
    form: { grant_type: claimGrant, claim_token: claimToken },
  })
  const accessToken = token.access_token as string
  const assertion = token.identity_assertion as string
  log.secrets.push(accessToken, assertion)
  return { accessToken, assertion, scope: token.scope as string, manual, metadata }
}

/** A code the person must confirm, as the registration and the scope request answer it. */
interface ClaimBlock {
  readonly user_code: string
  readonly verification_uri_complete: string
  readonly interval: number
}

/**
 * Shows the person the link and the code, and polls the token endpoint with `grant` while they
 * confirm. The agent sleeps `interval` seconds before each poll, as the protocol demands (a sooner
 * poll earns slow_down): that pace is what this checks, not a stand-in for a signal. It polls
 * while the person is at it (each of their browser steps has its own budget) and for a wait's
 * budget after they are done (packages/testing/src/waits.ts).
 */
async function whilePersonConfirms(
  person: Person,
  claim: ClaimBlock,
  log: Log,
  grant: { readonly url: string; readonly form: Record<string, string> },
): Promise<Record<string, unknown>> {
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
    const response = await fetch(grant.url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(grant.form).toString(),
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
  return token
}

describe('a cold job, given only the web address', () => {
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

  // Waits: the polling for the token beside the person's browser steps (twice), then the CLI's run.
  it('registers with a name, is claimed in a browser, publishes into `status`, merges a conflict, asks for sharing, shares, and revokes itself', {
    timeout: browserTimeout(3),
  }, async () => {
    // The person already uses Quire (a key for checking what happened, over REST).
    const personKey = await userWithKey(web, PERSON)
    const context = await browser.newContext()
    const seen: { code: string; heading: string; text: string }[] = []
    /** What the person does with a link and a code: opens it (signing in the first time), checks the code, confirms. */
    const person: Person = async (link, code) => {
      const page = await context.newPage()
      const url = new URL(link)
      expect(url.origin).toBe(web.url)
      if (seen.length === 0) await signInWithBrowser(page, web, PERSON, `${url.pathname}${url.search}`)
      else await page.goto(link)
      await page.waitForURL((landed) => landed.pathname === url.pathname)
      seen.push({
        code: (await page.textContent('.user-code')) ?? '',
        heading: (await page.textContent('h1')) ?? '',
        text: (await page.textContent('main')) ?? '',
      })
      expect(seen.at(-1)?.code).toBe(code)
      const [confirmed] = await Promise.all([
        page.waitForResponse((response) => response.request().method() === 'POST' && new URL(response.url()).pathname === url.pathname),
        page.click('main form button[type="submit"]'),
      ])
      expect(confirmed.status()).toBe(200)
      await page.waitForLoadState('load')
      await page.close()
    }
    const { accessToken, assertion, scope, metadata } = await coldAgent(web.url, PERSON, person, log)
    expect(scope.split(' ').sort()).toEqual(['artifacts:create', 'artifacts:read', 'artifacts:update'])
    // The claim page led with the agent's name, not its id.
    expect(seen[0]?.text).toContain(AGENT_NAME)

    // Over MCP, at the address the protected-resource metadata names.
    const mcpMetadata = (await (await fetch(`${web.url}/.well-known/oauth-protected-resource/mcp`)).json()) as { resource: string }
    expect(mcpMetadata.resource).toBe(`${web.url}/mcp`)
    let shareToken = ''
    let artifactId = ''
    const mcp = await mcpClient(web, accessToken)
    try {
      const me = await call(mcp, 'get_current_principal')
      expect(JSON.stringify(me)).toContain(personKey.username)
      // The project the person asked for is called `status`: a project slug, not a username.
      await call(mcp, 'create_project', { ownerUsername: personKey.username, slug: 'status', title: 'Status', icon: 'S' })
      const created = await call(mcp, 'create_artifact', {
        ownerUsername: personKey.username,
        projectSlug: 'status',
        slug: 'weekly',
        type: 'md',
        title: 'Weekly status',
        content: '# Weekly status\n\nAll quiet.\n',
        changelog: 'first draft',
        access: { publicView: false, publicEdit: false },
      })
      artifactId = (created.artifact as { id: string } | undefined)?.id ?? (created.id as string)
      expect(artifactId).toMatch(/^art_/)

      // The person reviews and edits meanwhile; the agent's update, based on version 1, conflicts.
      await restCall(web, personKey.token, 'POST', `/api/artifacts/${artifactId}/versions`, {
        content: '# Weekly status\n\nAll quiet. (Checked by the person.)\n',
        changelog: 'person',
        expectedLatestVersion: 1,
      })
      const conflicted = (await mcp.callTool({
        name: 'update_artifact',
        arguments: {
          artifactId,
          content: '# Weekly status\n\nAll quiet.\n\n- one incident\n',
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
        content: '# Weekly status\n\nAll quiet. (Checked by the person.)\n\n- one incident\n',
        changelog: 'agent, merged',
        expectedLatestVersion: latest,
      })
      expect(merged.versionNumber).toBe(3)

      // Sharing needs a scope the agent does not hold: the refusal says how to ask for it.
      const refused = (await mcp.callTool({ name: 'create_share_link', arguments: { artifactId, role: 'viewer' } })) as CallToolResult
      const handOff = toolError(refused).handOff as { kind: string; url: string; scope: string }
      expect(handOff).toMatchObject({ kind: 'step_up', scope: 'artifacts:share' })
      log.steps.push(`asked for ${handOff.scope} at ${handOff.url}`)
      const requested = await fetch(handOff.url, {
        method: 'POST',
        headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ scopes: handOff.scope }),
      })
      const request = (await requested.json()) as { claim: ClaimBlock }
      expect(requested.status, JSON.stringify(request)).toBe(200)
      log.secrets.push(request.claim.user_code)
      const stepped = await whilePersonConfirms(person, request.claim, log, {
        url: metadata.token_endpoint as string,
        form: { grant_type: JWT_BEARER, assertion, scope: [...scope.split(' '), handOff.scope].join(' ') },
      })
      shareToken = stepped.access_token as string
      log.secrets.push(shareToken)
      expect((stepped.scope as string).split(' ')).toContain('artifacts:share')
      // The person saw exactly what was added.
      expect(seen[1]?.text).toContain(AGENT_NAME)
      expect(seen[1]?.text).toContain('artifacts:share')
    } finally {
      await mcp.close()
    }
    await context.close()

    const shared = await mcpClient(web, shareToken)
    try {
      const link = await call(shared, 'create_share_link', { artifactId, role: 'viewer' })
      const linkUrl = (link.url ?? (link.shareLink as { url?: string } | undefined)?.url) as string
      expect(linkUrl).toContain('/s/')
      // Anyone with the link reads it, signed out.
      const opened = await fetch(linkUrl)
      expect(opened.status).toBe(200)
      expect(await opened.text()).toContain('Checked by the person.')
    } finally {
      await shared.close()
    }

    // The artifact's trail names the agent by its name and the person it acted for.
    const events = (await restCall(web, personKey.token, 'GET', `/api/audit-events?artifactId=${artifactId}`)).items as {
      action: string
      actor: { kind: string; id: string; label: string; onBehalfOf?: { id: string } }
      via: { credential: string }
    }[]
    const byAgent = events.filter((e) => e.actor.kind === 'agent')
    expect(byAgent.map((e) => e.action)).toEqual(
      expect.arrayContaining(['artifact.created', 'share_link.created', 'artifact.version_created']),
    )
    for (const event of byAgent) {
      expect(event.actor.id).toMatch(/^agt_/)
      expect(event.actor.label).toBe(`${AGENT_NAME} (agent of ${personKey.username})`)
      expect(event.actor.onBehalfOf?.id).toBe(personKey.userId)
      expect(event.via.credential).toBe('agent')
    }

    // The CLI, with the token in its environment.
    const whoami = await runNode([join(repo, 'packages/cli/src/bin.ts'), 'whoami', '--format', 'json'], {
      env: { AGENT_SERVICE_BASE_URL: web.apiUrl, AGENT_SERVICE_TOKEN: shareToken, AGENT_SERVICE_NO_INPUT: '1' },
    })
    expect(whoami.code, whoami.stderr).toBe(0)
    expect(whoami.stdout).toContain(personKey.username)

    // The person tells their agents apart by name (`quire agent list`, a table on a terminal or a pipe).
    const agents = await runNode([join(repo, 'packages/cli/src/bin.ts'), 'agent', 'list'], {
      env: { AGENT_SERVICE_BASE_URL: web.apiUrl, AGENT_SERVICE_TOKEN: personKey.token, AGENT_SERVICE_NO_INPUT: '1' },
    })
    expect(agents.code, agents.stderr).toBe(0)
    const [header, row] = agents.stdout.split('\n')
    expect(header).toMatch(/\bNAME\b/)
    expect(row).toContain(AGENT_NAME)
    expect(row).toMatch(/agt_/)

    // Done: the agent ends its own registration at the identity endpoint the metadata named.
    const identityEndpoint = (metadata.agent_auth as { identity_endpoint: string }).identity_endpoint
    const ended = await fetch(identityEndpoint, { method: 'DELETE', headers: { authorization: `Bearer ${shareToken}` } })
    expect(ended.status, await ended.clone().text()).toBe(200)
    for (const token of [shareToken, accessToken])
      expect((await fetch(`${web.apiUrl}/api/profile/me`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401)

    // The person's account trail.
    const account = (await restCall(web, personKey.token, 'GET', '/api/audit-events?limit=100')).items as { action: string }[]
    expect(account.map((e) => e.action)).toEqual(
      expect.arrayContaining(['agent.registered', 'agent.claimed', 'agent.token_issued', 'agent.revoked']),
    )

    // A dump of the database holds none of what the agent was handed.
    const dump = await databaseDump(web)
    expect(log.secrets).toHaveLength(6)
    for (const secret of log.secrets) {
      expect(dump).not.toContain(secret)
      expect(dump).not.toContain(secret.replace('-', ''))
      if (secret.split('.').length === 3) {
        const jti = JSON.parse(Buffer.from(secret.split('.')[1] ?? '', 'base64url').toString('utf8')).jti as string
        expect(dump).not.toContain(jti)
      }
    }
  })
})
