/**
 * `quire mcp` as an MCP host runs it: the SDK's `Client` over `StdioClientTransport` launches the
 * CLI (its sources, or the built bundle with QUIRE_TEST_CLI=built) against a real Quire on a fresh
 * embedded database, with an API key in its environment. The tools run on that Quire over REST,
 * named `mcp` in its audit trail.
 */
import { existsSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { runDirVariable } from '@quire/testing/process-records'
import { trackGroup } from '@quire/testing/processes'
import { tail, timeoutFor, waitBudgetMs } from '@quire/testing/waits'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cliEntry, commandsTimeout, type Quire, startQuire } from './quire-process.ts'

let quire: Quire
let key = ''
const clients: Client[] = []

beforeAll(async () => {
  quire = await startQuire()
  key = await quire.token('mia@example.com')
  // Waits: the start, a token.
}, timeoutFor(2))
afterAll(async () => {
  // Closing ends the server's standard input (it exits), then SIGTERM, then SIGKILL if it did not.
  await Promise.allSettled(clients.map((client) => client.close()))
  await quire?.stop()
}, timeoutFor(1))

/** Each request waits for the server's answer as long as a wait for a process may (packages/testing/src/waits.ts). */
const answered = { timeout: waitBudgetMs }

/** `setsid` (Linux) makes the server the leader of a process group of its own, which the test tooling can track and kill. */
const setsid = process.env.PATH?.split(delimiter)
  .map((dir) => join(dir, 'setsid'))
  .find((path) => existsSync(path))

/**
 * Starts `quire mcp` as a host would (the transport spawns it, the SDK's default environment plus
 * the CLI's private one) and connects. Whatever way the test ends, the server goes: afterAll closes
 * the client, a server whose input ends exits, and its process group is tracked
 * (packages/testing/src/processes.ts) when `setsid` gives it one.
 */
async function connect(env: Record<string, string>): Promise<{ client: Client; stderr: () => string }> {
  const node = [process.execPath, '--conditions=source', cliEntry, 'mcp']
  const transport = new StdioClientTransport({
    command: setsid ?? process.execPath,
    args: setsid ? node : node.slice(1),
    env: quire.cliEnv({ ...(process.env[runDirVariable] ? { [runDirVariable]: process.env[runDirVariable] } : {}), ...env }),
    stderr: 'pipe',
  })
  let stderr = ''
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8')
  })
  const exited = new Promise<void>((done) => {
    transport.onclose = () => done()
  })
  const start = transport.start.bind(transport)
  transport.start = async () => {
    await start()
    if (setsid && transport.pid !== null) trackGroup(transport.pid, `quire mcp (${cliEntry})`, exited)
  }
  const client = new Client({ name: 'quire-cli-test', version: '0.0.0' })
  clients.push(client)
  try {
    await client.connect(transport, answered)
  } catch (error) {
    throw new Error(`\`${node.join(' ')}\` did not answer initialize: ${(error as Error).message}\nThe end of its stderr:\n${tail(stderr)}`)
  }
  return { client, stderr: () => stderr }
}

async function callTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args }, undefined, answered)) as CallToolResult
}

/** A successful call's structured answer. */
async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const result = await callTool(client, name, args)
  const first = result.content[0]
  if (result.isError) throw new Error(`${name} failed: ${first?.type === 'text' ? first.text : ''}`)
  return result.structuredContent as Record<string, unknown>
}

/** A failed call's error: the JSON of its second content block. */
function errorOf(result: CallToolResult): Record<string, unknown> {
  expect(result.isError).toBe(true)
  const block = result.content[1]
  if (block?.type !== 'text') throw new Error(`no error JSON block in ${JSON.stringify(result)}`)
  return (JSON.parse(block.text) as { error: Record<string, unknown> }).error
}

describe('quire mcp, the MCP tools over stdio against a running Quire', { timeout: commandsTimeout }, () => {
  it('lists the 26 tools, runs them on the API, and the audit trail names the mcp surface', async () => {
    const { client, stderr } = await connect({ AGENT_SERVICE_TOKEN: key })
    expect(client.getServerVersion()).toMatchObject({ name: 'quire' })
    const { tools } = await client.listTools(undefined, answered)
    expect(tools).toHaveLength(26)

    const me = await call(client, 'get_current_principal')
    const owner = String(me.username)
    await call(client, 'create_project', { ownerUsername: owner, slug: 'mcp-notes', title: 'MCP notes', icon: 'M' })
    const artifact = await call(client, 'create_artifact', {
      ownerUsername: owner,
      projectSlug: 'mcp-notes',
      slug: 'plan',
      type: 'md',
      title: 'Plan',
      content: '# Plan\n\nFirst.\n',
      changelog: 'first',
      access: { publicView: false, publicEdit: false },
    })
    const artifactId = String(artifact.id)
    expect(await call(client, 'get_artifact_content', { artifactId })).toMatchObject({ versionNumber: 1, content: '# Plan\n\nFirst.\n' })

    expect(await call(client, 'update_artifact', { artifactId, content: '# Plan\n\nSecond.\n', expectedLatestVersion: 1 })).toMatchObject({
      versionNumber: 2,
    })
    const stale = await callTool(client, 'update_artifact', { artifactId, content: '# Plan\n\nThird.\n', expectedLatestVersion: 1 })
    expect(errorOf(stale)).toMatchObject({ code: 'version_conflict', latestVersion: 2 })

    // The audit trail, over REST: every change made through the tools came in as `mcp`.
    const response = await fetch(`${quire.apiUrl}/api/audit-events?artifactId=${encodeURIComponent(artifactId)}`, {
      headers: { authorization: `Bearer ${key}` },
    })
    expect(response.status).toBe(200)
    const { items } = (await response.json()) as { items: { action: string; via: { surface: string; credential: string | null } }[] }
    expect(items.length).toBeGreaterThanOrEqual(2)
    for (const event of items) expect(event.via, event.action).toMatchObject({ surface: 'mcp', credential: 'api_key' })
    // And through the tool itself.
    const listed = await call(client, 'list_audit_events', { artifactId })
    expect((listed.items as { via: { surface: string } }[]).map((e) => e.via.surface)).toEqual(items.map(() => 'mcp'))

    expect(stderr()).toContain('credential: AGENT_SERVICE_TOKEN')
    expect(stderr()).not.toContain(key)
  })

  it('an invalid token: the server starts, and a tool call is an isError result with code invalid_token', async () => {
    const { client } = await connect({ AGENT_SERVICE_TOKEN: 'qk_not-a-real-key' })
    expect((await client.listTools(undefined, answered)).tools).toHaveLength(26)
    const result = await callTool(client, 'get_current_principal')
    expect(errorOf(result)).toMatchObject({ code: 'invalid_token' })
  })

  it('standard output carries MCP messages only; without a credential it warns on stderr, answers unauthenticated, and exits 0 when its input ends', async () => {
    const messages = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'pipe', version: '0' } },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_current_principal', arguments: {} } },
    ]
    // The input ends right after the call: it is still answered, then the process exits by itself.
    const done = await quire.cli(['mcp'], { stdin: messages.map((m) => `${JSON.stringify(m)}\n`).join('') })
    expect(done.code, done.stderr).toBe(0)
    const lines = done.stdout.split('\n').filter((line) => line !== '')
    const answers = lines.map((line) => JSON.parse(line) as { jsonrpc: string; id: number; result: Record<string, unknown> })
    expect(answers.map((a) => [a.jsonrpc, a.id])).toEqual([
      ['2.0', 1],
      ['2.0', 2],
    ])
    expect(answers[0]?.result).toMatchObject({ serverInfo: { name: 'quire' } })
    expect(errorOf(answers[1]?.result as CallToolResult)).toMatchObject({ code: 'unauthenticated' })
    expect(done.stderr).toContain('no credential')
    expect(done.stderr).toContain('quire login')
  })

  it('refuses --token-stdin and --dry-run (usage, exit 2), writing nothing on standard output', async () => {
    for (const flag of ['--token-stdin', '--dry-run']) {
      const done = await quire.cli(['mcp', flag], { stdin: key })
      expect(done.code, flag).toBe(2)
      expect(done.stdout, flag).toBe('')
      expect(done.stderr, flag).toContain(flag)
    }
  })
})
