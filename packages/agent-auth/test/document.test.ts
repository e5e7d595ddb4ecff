import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { type CoreDeps, scopes } from '@quire/core'
import { describe, expect, it } from 'vitest'
import { documentedErrors } from '../src/document.ts'
import { agentErrors } from '../src/errors.ts'
import { agentGrantTypes, agentLifetimes, agentPaths, createAgentAuth } from '../src/index.ts'
import { testSettings, urls } from './canned-store.ts'

// The document and the metadata touch no port.
const noPorts = {} as CoreDeps
const auth = (settings = testSettings()) => createAgentAuth(noPorts, settings, { webUrl: `${urls.webUrl}/`, apiUrl: urls.apiUrl })

/** Every `agentFail(<endpoint>, '<code>'…)` and endpoint-local `fail('<code>'…)` in the sources, by endpoint. */
function codesInSources(): Set<string> {
  const src = join(import.meta.dirname, '../src')
  const endpointOf: Record<string, string> = {
    'register.ts': 'identity',
    'claim.ts': 'claim',
    'grants.ts': 'token',
    'revoke.ts': 'revoke',
    'scopes.ts': 'scopes',
  }
  const found = new Set<string>()
  for (const file of readdirSync(src)) {
    const text = readFileSync(join(src, file), 'utf8')
    for (const m of text.matchAll(/agentFail\('(\w+)', '(\w+)'/g)) found.add(`${m[1]}:${m[2]}`)
    const endpoint = endpointOf[file]
    // The first argument of a local `fail(…)`: a literal, or a conditional between literals.
    if (endpoint)
      for (const m of text.matchAll(/\bfail\(\s*([^,]+),/g))
        for (const c of (m[1] as string).matchAll(/'([a-z]+_[a-z_]+)'/g)) found.add(`${endpoint}:${c[1]}`)
    if (endpoint) for (const m of text.matchAll(/\{ code: '(\w+)'/g)) found.add(`${endpoint}:${m[1]}`)
  }
  return found
}

describe('the /auth.md document', () => {
  const doc = auth().document()

  it('is Markdown addressed to the agent, with every step in order', () => {
    expect(doc.startsWith('# ')).toBe(true)
    expect(doc).toContain('You are an agent.')
    const steps = [
      '## Step 1: Discover',
      '## Step 2',
      '## Step 3: Register',
      '## Step 4: The claim',
      '## Step 5',
      '## Step 6',
      '## Step 7: Revoke',
      '## Errors',
      '## Retry policy',
      '## Lifetimes',
      '## Scopes',
      '## Security',
    ]
    const positions = steps.map((heading) => doc.indexOf(heading))
    expect(positions.every((p) => p >= 0)).toBe(true)
    expect([...positions].sort((a, b) => a - b)).toEqual(positions)
  })

  it('names every endpoint by this deployment’s real URL (no trailing slash kept, no placeholder)', () => {
    for (const path of [
      agentPaths.document,
      agentPaths.identity,
      agentPaths.claim,
      agentPaths.scopeRequest,
      agentPaths.claimPage,
      agentPaths.token,
      agentPaths.revoke,
      agentPaths.authorizationServerMetadata,
      agentPaths.mcp,
    ]) {
      expect(doc, path).toContain(`${urls.webUrl}${path}`)
    }
    expect(doc).toContain(`${urls.apiUrl}${agentPaths.protectedResourceMetadata}`)
    expect(doc).toContain(`${urls.apiUrl}/api/profile/me`)
    expect(doc).not.toContain(`${urls.webUrl}//`)
    expect(doc).not.toMatch(/\{(web_url|api_url|base_url)\}/)
  })

  it('tells a claimed agent how to ask for more scopes and how to poll for them', () => {
    const section = doc.slice(doc.indexOf('### More scopes (step-up)'), doc.indexOf('## Step 7: Revoke'))
    expect(section).toContain(`curl -sS -X POST ${urls.webUrl}${agentPaths.scopeRequest}`)
    expect(section).toContain('"scopes_requested"')
    expect(section).toContain('AUTH_MD_ALLOWED_SCOPES')
    expect(section).toContain(`grant_type=${agentGrantTypes.jwtBearer}`)
    for (const answer of ['authorization_pending', 'slow_down', 'expired_token', 'invalid_scope', 'invalid_token', 'not_claimed'])
      expect(section, answer).toContain(`\`${answer}\``)
  })

  it('lists every error code of every endpoint, with its status, in the errors table', () => {
    const table = doc.slice(doc.indexOf('## Errors'), doc.indexOf('## Retry policy'))
    for (const { code, info, endpoint } of documentedErrors()) {
      const row = table
        .split('\n')
        .find(
          (line) =>
            line.startsWith(`| \`${code}\` | ${info.status} | \`${endpoint === 'selfRevoke' ? 'DELETE' : 'POST'} /`) &&
            line.includes(endpoint === 'identity' ? '/agent/identity`' : ''),
        )
      expect(row, `${endpoint}:${code}`).toBeDefined()
    }
    expect(documentedErrors().length).toBe(Object.values(agentErrors).reduce((n, e) => n + Object.keys(e).length, 0))
  })

  it('lists every error code the sources can answer (the catalogue covers the code)', () => {
    const produced = codesInSources()
    expect(produced.size).toBeGreaterThan(10)
    for (const entry of produced) {
      const [endpoint, code] = entry.split(':') as [keyof typeof agentErrors, string]
      expect(Object.keys(agentErrors[endpoint]), entry).toContain(code)
      expect(doc, entry).toContain(`\`${code}\``)
    }
    // And the catalogue lists nothing the package never answers, except what the edge answers.
    for (const { endpoint, code, info } of documentedErrors()) {
      if (info.by === 'agent-auth') expect(produced, `${endpoint}:${code}`).toContain(`${endpoint}:${code}`)
    }
  })

  it('names the grant types and shows form-encoded requests', () => {
    for (const grant of Object.values(agentGrantTypes)) expect(doc).toContain(grant)
    expect(doc).toContain(`-d 'grant_type=${agentGrantTypes.claim}'`)
    expect(doc).toContain(`-d 'grant_type=${agentGrantTypes.jwtBearer}'`)
    expect(doc).toContain('authorization_pending')
    expect(doc).toContain('slow_down')
    expect(doc).toContain('expired_token')
  })

  it('carries the lifetimes from the constants', () => {
    const table = doc.slice(doc.indexOf('## Lifetimes'), doc.indexOf('## Scopes'))
    for (const seconds of Object.values(agentLifetimes)) expect(table).toContain(seconds >= 60 ? `(${seconds} s)` : `${seconds} seconds`)
    expect(doc).toContain(`"expires_in": ${agentLifetimes.userCodeSeconds}`)
    expect(doc).toContain(`"interval": ${agentLifetimes.pollIntervalSeconds}`)
  })

  it('lists the eight scopes, which are allowed here and which pre-claim', () => {
    const table = doc.slice(doc.indexOf('## Scopes'), doc.indexOf('## Security'))
    for (const scope of scopes) expect(table).toMatch(new RegExp(`\\| \`${scope}\` \\| .+ \\| (yes|no) \\| (yes|no) \\|`))
    expect(table).toMatch(/\| `artifacts:read` \| .+ \| yes \| yes \|/)
    expect(table).toMatch(/\| `artifacts:update` \| .+ \| yes \| no \|/)
    expect(table).toMatch(/\| `agents:manage` \| .+ \| no \| no \|/)
  })

  it('shows the example responses as valid JSON with the real URLs', () => {
    const blocks = [...doc.matchAll(/```json\n([\s\S]*?)\n```/g)].map((m) => JSON.parse(m[1] as string))
    expect(blocks.length).toBeGreaterThanOrEqual(5)
    const registration = blocks.find((b) => b.registration_type === 'service_auth')
    expect(registration.claim.verification_uri_complete).toBe(`${urls.webUrl}/agent/claim?user_code=BCDF-GHJK`)
    const metadata = blocks.find((b) => b.agent_auth)
    expect(metadata.agent_auth).toEqual(auth().authorizationServerAdditions().agentAuth)
    expect(metadata.grant_types_supported).toEqual(expect.arrayContaining([agentGrantTypes.claim, agentGrantTypes.jwtBearer]))
  })

  it('tells the agent to keep secrets in memory and out of logs; from a shell, in a 0600 file it deletes', () => {
    expect(doc).toMatch(/hold (it|them) in memory/)
    expect(doc).toMatch(/never write them to logs/)
    const shell = doc.split('\n').find((line) => line.includes('shell whose commands cannot share memory')) ?? ''
    expect(shell).toContain('mode 0600')
    expect(shell).toContain('umask 077')
    expect(shell).toMatch(/delete it when you are done/)
    expect(shell).toContain('rm -f "$secrets"')
  })

  it('links the REST reference and the MCP endpoint by absolute URLs of this deployment', () => {
    const links = [`${urls.apiUrl}/openapi.json`, `${urls.apiUrl}/docs`, `${urls.webUrl}/mcp`]
    for (const link of links) expect(doc, link).toContain(`\`${link}\``)
    // No link is relative: every mention of these paths is after an origin.
    for (const path of ['/openapi.json', '/docs', '/mcp']) expect(doc).not.toMatch(new RegExp(`[\\s\`(]${path.replace('.', '\\.')}\\b`))
  })

  it('tells the agent how to end its own registration, with the exact request and answer, inside Step 7', () => {
    const step = doc.slice(doc.indexOf('## Step 7: Revoke'), doc.indexOf('## Errors'))
    const ending = step.slice(step.indexOf('### Ending your registration'))
    expect(ending).toContain(`curl -sS -X DELETE ${urls.webUrl}${agentPaths.identity} -H 'Authorization: Bearer qgt_…'`)
    const [answer] = [...ending.matchAll(/```json\n([\s\S]*?)\n```/g)].map((m) => JSON.parse(m[1] as string))
    expect(answer).toEqual({ registration_id: expect.stringMatching(/^agt_/), status: 'revoked' })
    expect(ending).toContain('`invalid_token`')
    expect(ending).toContain(`${urls.webUrl}${agentPaths.revoke}`)
  })

  it('says what a missing scope answers: the hand-off, its two kinds, the scope request by its URL', () => {
    const section = doc.slice(doc.indexOf('## When a scope is missing'), doc.indexOf('## Retry policy'))
    expect(section).toContain('`handOff`')
    expect(section).toContain('`"kind": "step_up"`')
    expect(section).toContain('`"kind": "person"`')
    expect(section).toContain(`\`${urls.webUrl}${agentPaths.scopeRequest}\``)
    expect(doc.indexOf('## When a scope is missing')).toBeGreaterThan(doc.indexOf('## Step 6'))
  })

  it('says anonymous registration is off when no pre-claim scopes are configured', () => {
    const off = auth(testSettings({ preClaimScopes: [] })).document()
    expect(off).toContain('**not enabled** on this deployment')
    expect(off).toContain('anonymous_not_enabled')
    expect(off).not.toContain('{"type":"anonymous"}')
    expect(off).not.toContain('"pre_claim_scopes"')
    expect(doc).toContain('{"type":"anonymous"}')
  })
})

describe('discovery additions', () => {
  it('append both agent grants and carry the agent_auth block with real URLs', () => {
    expect(auth().authorizationServerAdditions()).toEqual({
      grantTypes: [agentGrantTypes.jwtBearer, agentGrantTypes.claim],
      agentAuth: {
        skill: 'https://quire.example/auth.md',
        identity_endpoint: 'https://quire.example/agent/identity',
        claim_endpoint: 'https://quire.example/agent/identity/claim',
        scope_request_endpoint: 'https://quire.example/agent/identity/scopes',
        identity_revocation_endpoint: 'https://quire.example/agent/identity',
        identity_types_supported: ['service_auth', 'anonymous'],
      },
    })
  })

  it('list anonymous only when pre-claim scopes are configured', () => {
    expect(auth(testSettings({ preClaimScopes: [] })).authorizationServerAdditions().agentAuth.identity_types_supported).toEqual([
      'service_auth',
    ])
  })
})
