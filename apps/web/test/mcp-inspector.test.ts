/**
 * `POST /mcp` and its OAuth authorization server through two external tools, run as child
 * processes from apps/web's node_modules exactly as a developer checking our server would run them
 * (their own code, not the SDK client the other MCP tests use):
 * - the MCP Inspector CLI (`@modelcontextprotocol/inspector --cli`) with an API key: `tools/list`
 *   names exactly the 26 tools of `@quire/mcp`, and `--strict` finds nothing in their schemas, not even a warning;
 *   `tools/call` runs tools and prints their results; a tool's failure (an `isError` result) is
 *   its tool-error exit; no credential is its `auth_required` exit, with no tool call made;
 * - the MCP conformance suite's `authorization` scenarios against the web app's authorization
 *   server: the metadata document, and the authorization-code grant (PKCE, the `/mcp` resource)
 *   with a person signing in and approving in headless Chromium.
 */
import { mkdtemp, readdir, readFile, realpath, rm } from 'node:fs/promises'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { compiledTools } from '@quire/mcp'
import { freePort } from '@quire/testing/free-port'
import { type Finished, finish, settleAll, spawnTracked, watch } from '@quire/testing/processes'
import { timeoutFor, untilLine } from '@quire/testing/waits'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { browserTimeout, launchChromium, startTestWeb, type TestWeb } from './helper.ts'
import { userWithKey } from './mcp-helper.ts'

/**
 * The Inspector's exit codes, as its CLI defines them (`EXIT_CODES` in
 * clients/cli/build/index.js, from core/cli/error-handler.ts): 0 success; 3 `auth_required`
 * (the server answered 401/403, or OAuth would be needed and `--stored-auth-only` forbids it);
 * 5 `tool_error` (a `tools/call` whose result has `isError: true`); 6 `schema_unportable`
 * (`--strict` found an error-severity problem in a tool schema). 1 is a usage or unclassified
 * error, 4 an unreachable server. On a failure it writes `{"error":{"code":…,"message":…}}` on stderr.
 */
const exit = { ok: 0, authRequired: 3, toolError: 5 } as const

const webRoot = resolve(import.meta.dirname, '..')
let web: TestWeb
let browser: Browser
/** HOME of the tools: the Inspector creates ~/.mcp-inspector/storage even in --cli mode. */
let home: string
let owner: Awaited<ReturnType<typeof userWithKey>>

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'quire-mcp-tools-home-'))
  await settleAll([
    startTestWeb({ api: true }).then((started) => {
      web = started
    }),
    launchChromium().then((started) => {
      browser = started
    }),
  ])
  owner = await userWithKey(web, 'inspector.owner@example.com')
}, browserTimeout())
afterAll(async () => {
  await browser?.close()
  await web?.close()
  if (home) await rm(home, { recursive: true, force: true })
})

/** A package's bin, as apps/web's node_modules installs it (no npx, no network). */
async function binOf(pkg: string, name: string): Promise<string> {
  const dir = await realpath(join(webRoot, 'node_modules', pkg))
  const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as { bin: Record<string, string> }
  const bin = manifest.bin[name]
  if (bin === undefined) throw new Error(`${pkg} has no bin ${name}`)
  return join(dir, bin)
}

/**
 * Starts a Node script with this Node, in an environment built from scratch (a temporary HOME,
 * nothing of ours), in a process group of its own that cannot outlive the test
 * (packages/testing/src/processes.ts).
 */
function startNode(script: string, args: readonly string[]) {
  return spawnTracked(process.execPath, [script, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: home, LANG: 'C.UTF-8', ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}) },
    cwd: home,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
}

/** `inspector --cli {url} --transport http [--header "Authorization: Bearer …"] …` */
async function inspector(token: string | null, args: readonly string[], url = `${web.url}/mcp`): Promise<Finished> {
  const auth = token === null ? [] : ['--header', `Authorization: Bearer ${token}`]
  return finish(
    startNode(await binOf('@modelcontextprotocol/inspector', 'inspector'), ['--cli', url, '--transport', 'http', ...auth, ...args]),
  )
}

/** What a run printed, for failure messages. */
const printed = (run: Finished) => `exit ${run.code}\nstdout: ${run.stdout.slice(0, 4000)}\nstderr: ${run.stderr.slice(0, 4000)}`

/** The `{"error":{…}}` envelope the Inspector writes on stderr when it fails. */
function envelopeOf(run: Finished): { code: string; message: string } {
  const line = run.stderr
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('{"error"'))
  if (line === undefined) throw new Error(`no error envelope on stderr:\n${printed(run)}`)
  return (JSON.parse(line) as { error: { code: string; message: string } }).error
}

interface CallResult {
  content: { type: string; text?: string }[]
  structuredContent?: Record<string, unknown>
  isError?: boolean
}

/** One request a relay passed on: the JSON-RPC methods of its body, and the status the web app answered. */
interface Relayed {
  readonly method: string
  readonly path: string
  readonly rpc: readonly string[]
  readonly status: number
}

/**
 * A plain HTTP relay in front of the web app that records every request it passes on: what a
 * client sent, seen from outside it.
 */
async function startRelay(target: string) {
  const seen: Relayed[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', async () => {
      const body = Buffer.concat(chunks)
      let rpc: string[] = []
      try {
        const parsed = JSON.parse(body.toString('utf8')) as { method?: string } | { method?: string }[]
        rpc = (Array.isArray(parsed) ? parsed : [parsed]).map((m) => m.method ?? '(response)')
      } catch {
        // Not JSON: no JSON-RPC method.
      }
      const headers = forwardable(req.headers)
      try {
        const answer = await fetch(`${target}${req.url ?? '/'}`, {
          method: req.method ?? 'GET',
          headers,
          ...(body.length > 0 ? { body } : {}),
        })
        const payload = Buffer.from(await answer.arrayBuffer())
        seen.push({ method: req.method ?? '', path: req.url ?? '', rpc, status: answer.status })
        const back: Record<string, string> = {}
        answer.headers.forEach((value, name) => {
          if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(name)) back[name] = value
        })
        res.writeHead(answer.status, back).end(payload)
      } catch (error) {
        res.writeHead(502).end(String(error))
      }
    })
  })
  const port = await freePort()
  await new Promise<void>((done) => server.listen(port, '127.0.0.1', done))
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise<void>((done) => server.close(() => done())),
  }
}

function forwardable(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers))
    if (typeof value === 'string' && !['host', 'connection', 'content-length', 'transfer-encoding'].includes(name)) out[name] = value
  return out
}

// Each test runs the Inspector at most three times, each run one wait (packages/testing/src/waits.ts).
describe('the MCP Inspector CLI against /mcp', { timeout: timeoutFor(3) }, () => {
  it('lists exactly the 26 tools of @quire/mcp', async () => {
    const run = await inspector(owner.token, ['--method', 'tools/list'])
    expect(run.code, printed(run)).toBe(exit.ok)
    const { tools } = JSON.parse(run.stdout) as { tools: { name: string; inputSchema: unknown }[] }
    const expected = compiledTools.map((tool) => tool.name)
    expect(expected).toHaveLength(26)
    expect(tools.map((tool) => tool.name).sort()).toEqual([...expected].sort())
    for (const tool of tools) expect(tool.inputSchema, tool.name).toMatchObject({ type: 'object' })
  })

  it('finds nothing to report in the tool schemas with --strict, not even a warning', async () => {
    const run = await inspector(owner.token, ['--method', 'tools/list', '--strict', '--format', 'json'])
    expect(run.code, printed(run)).toBe(exit.ok)
    const { result, schemaFindings = [] } = JSON.parse(run.stdout) as {
      result: { tools: unknown[] }
      schemaFindings?: { toolName: string; findings: { severity: string; schema: string; path: string; issue: string }[] }[]
    }
    expect(result.tools).toHaveLength(26)
    // Warnings (an untyped schema, a type array) do not fail --strict, but a host may still drop or refuse such a schema.
    const findings = schemaFindings.flatMap((entry) =>
      entry.findings.map((finding) => `${finding.severity} in ${entry.toolName}: ${finding.schema}.${finding.path}: ${finding.issue}`),
    )
    expect(findings).toEqual([])
  })

  it('calls get_current_principal and prints who the key acts for', async () => {
    const run = await inspector(owner.token, ['--method', 'tools/call', '--tool-name', 'get_current_principal'])
    expect(run.code, printed(run)).toBe(exit.ok)
    const result = JSON.parse(run.stdout) as CallResult
    expect(result.isError).toBeFalsy()
    expect(result.structuredContent).toMatchObject({ id: owner.userId, username: owner.username, email: 'inspector.owner@example.com' })
    expect(JSON.parse(result.content[0]?.text ?? '')).toEqual(result.structuredContent)
  })

  it('creates an artifact and reads it back by id', async () => {
    const project = await inspector(owner.token, [
      '--method',
      'tools/call',
      '--tool-name',
      'create_project',
      '--tool-arg',
      `ownerUsername=${owner.username}`,
      'slug=inspected',
      'title=Inspected',
      'icon=I',
    ])
    expect(project.code, printed(project)).toBe(exit.ok)
    const created = await inspector(owner.token, [
      '--method',
      'tools/call',
      '--tool-name',
      'create_artifact',
      '--tool-args-json',
      JSON.stringify({
        ownerUsername: owner.username,
        projectSlug: 'inspected',
        slug: 'notes',
        type: 'md',
        title: 'Notes',
        content: '# Seen by the Inspector\n',
        changelog: 'first',
        access: { publicView: false, publicEdit: false },
      }),
    ])
    expect(created.code, printed(created)).toBe(exit.ok)
    const artifact = (JSON.parse(created.stdout) as CallResult).structuredContent ?? {}
    expect(artifact.id).toMatch(/\S/)

    const read = await inspector(owner.token, [
      '--method',
      'tools/call',
      '--tool-name',
      'get_artifact',
      '--tool-arg',
      `artifactId=${artifact.id}`,
    ])
    expect(read.code, printed(read)).toBe(exit.ok)
    expect((JSON.parse(read.stdout) as CallResult).structuredContent).toMatchObject({
      id: artifact.id,
      slug: 'notes',
      title: 'Notes',
      latestVersion: 1,
    })
  })

  it('exits with its tool-error code when a tool fails, printing the not_found error', async () => {
    const run = await inspector(owner.token, [
      '--method',
      'tools/call',
      '--tool-name',
      'get_artifact',
      '--tool-arg',
      'artifactId=art_00000000000000000000000000',
    ])
    expect(run.code, printed(run)).toBe(exit.toolError)
    expect(envelopeOf(run).code).toBe('tool_is_error')
    const result = JSON.parse(run.stdout) as CallResult
    expect(result.isError).toBe(true)
    const error = JSON.parse(result.content[1]?.text ?? '') as { error: { code: string; retryable: boolean } }
    expect(error.error).toMatchObject({ code: 'not_found', retryable: false })
  })

  it('without a credential, exits auth_required on the 401 and makes no tool call', async () => {
    const relay = await startRelay(web.url)
    try {
      // --stored-auth-only: the Inspector's way for non-interactive runs (never start a browser OAuth flow).
      const run = await inspector(
        null,
        ['--stored-auth-only', '--method', 'tools/call', '--tool-name', 'get_current_principal'],
        `${relay.url}/mcp`,
      )
      expect(run.code, printed(run)).toBe(exit.authRequired)
      const envelope = envelopeOf(run)
      expect(envelope.code).toBe('auth_required')
      expect(envelope.message).toContain('"status":401')
      expect(run.stdout).toBe('')
      // What reached the server: the handshake, refused with 401; never a tools/call.
      expect(relay.seen.length).toBeGreaterThan(0)
      expect(relay.seen.filter((r) => r.path === '/mcp' && r.method === 'POST')).toEqual([
        { method: 'POST', path: '/mcp', rpc: ['initialize'], status: 401 },
      ])
      expect(relay.seen.flatMap((r) => r.rpc)).not.toContain('tools/call')
    } finally {
      await relay.close()
    }
  })
})

/**
 * `conformance authorization` runs every scenario of its authorization-server list (`conformance
 * list --authorization`: authorization-server-metadata-endpoint, authorization-code-grant); the
 * grant reads the metadata the first one fetched, so they run together, not by `--scenario`.
 * Its `server` scenarios are not run here: that command has no option to send a credential (each
 * would meet our 401 before any check), and most need its fixture tools (tools-call-*, prompts-*).
 */
// Waits: the suite's authorization URL, then its end; the browser's steps between them.
describe('the MCP conformance suite against the authorization server', { timeout: browserTimeout(2) }, () => {
  it('passes every check of its authorization scenarios, signing in through the browser', async () => {
    // The suite's callback listener: a loopback redirect URI registered for a fresh public client.
    const port = await freePort()
    const redirectUri = `http://127.0.0.1:${port}/callback`
    const registered = await fetch(`${web.url}/oauth2/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'MCP conformance suite', redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' }),
    })
    expect(registered.status).toBe(201)
    const { client_id: clientId } = (await registered.json()) as { client_id: string }
    const outputDir = await mkdtemp(join(home, 'conformance-'))

    // The suite prints the authorization URL and waits for the redirect to its listener.
    const suite = startNode(await binOf('@modelcontextprotocol/conformance', 'conformance'), [
      'authorization',
      '--url',
      web.url,
      '--client-id',
      clientId,
      '--resource',
      `${web.url}/mcp`,
      '--port',
      String(port),
      '--output-dir',
      outputDir,
    ])
    const conformance = finish(suite)
    const [, url = ''] = await untilLine(watch(suite), /^(http\S*\/oauth2\/authorize\?\S+)/)
    expect(url.startsWith(`${web.url}/oauth2/authorize?`), url).toBe(true)

    const context = await browser.newContext()
    try {
      const page = await context.newPage()
      await page.goto(url)
      await page.waitForURL(/\/dev-oidc\/interaction\//)
      await page.fill('#email', 'conformance.person@example.com')
      await Promise.all([page.waitForURL((to) => to.pathname === '/oauth2/authorize'), page.click('button[value="sign-in"]')])
      await Promise.all([page.waitForURL((to) => to.href.startsWith(redirectUri)), page.click('button[value="approve"]')])
    } finally {
      await context.close()
    }

    const run = await conformance
    expect(run.code, printed(run)).toBe(0)
    const total = /Total: (\d+) passed, (\d+) failed/.exec(run.stdout)
    expect(total, printed(run)).not.toBeNull()

    const checks: { id: string; status: string; errorMessage?: string }[] = []
    for (const dir of await readdir(outputDir)) checks.push(...JSON.parse(await readFile(join(outputDir, dir, 'checks.json'), 'utf8')))
    const statuses = Object.fromEntries(checks.map((check) => [check.id, check.status]))
    expect(statuses).toMatchObject({ 'authorization-server-metadata': 'SUCCESS', 'authorization-code-grant': 'SUCCESS' })
    expect(checks.filter((check) => check.status === 'FAILURE')).toEqual([])
    console.info(
      `mcp conformance authorization: ${total?.[1]} passed, ${total?.[2]} failed of ${checks.length} checks (${checks
        .map((check) => `${check.id} ${check.status}${check.errorMessage ? `: ${check.errorMessage}` : ''}`)
        .join('; ')}) in ${Math.round(run.ms)} ms`,
    )
  })
})
