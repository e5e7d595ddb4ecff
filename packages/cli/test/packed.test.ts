/**
 * What a user installing from npm gets: `npm pack` of the built CLI, installed into a fresh
 * prefix (its dependencies from the registry), then `quire --version`, `quire health`, a user's
 * first commands and `quire mcp` against a running Quire.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawnTracked } from '../../../tooling/vitest/processes.ts'
import { type Finished, finish, type Quire, startQuire } from './quire-process.ts'

const packageDir = resolve(import.meta.dirname, '..')
let quire: Quire
let scratch = ''

beforeAll(async () => {
  if (!existsSync(join(packageDir, 'dist/bin.js'))) throw new Error('packages/cli/dist is missing: build first (`pnpm check` does).')
  scratch = await mkdtemp(join(tmpdir(), 'quire-cli-pack-'))
  quire = await startQuire()
}, 120_000)
afterAll(async () => {
  await quire?.stop()
  if (scratch) await rm(scratch, { recursive: true, force: true })
})

function networkEnv(): Record<string, string> {
  const keep =
    /^(PATH|TMPDIR|LANG|NODE_EXTRA_CA_CERTS|SSL_CERT_(FILE|DIR)|(HTTPS?|NO)_PROXY|npm_config_(registry|cafile|proxy|https_proxy|strict_ssl))$/i
  return Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => keep.test(e[0]) && e[1] !== undefined))
}

/** Runs a program to its end without blocking the test's event loop (npm may take a while). */
function run(command: string, args: readonly string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<Finished> {
  const child = spawnTracked(command, args, {
    cwd: options.cwd ?? scratch,
    // The machine's network settings (proxy, CA bundle: npm needs them to reach the registry), not
    // its Quire settings; a private npm cache, so the install is a first install.
    env: { ...networkEnv(), HOME: scratch, npm_config_cache: join(scratch, 'npm-cache'), ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  return finish(child, performance.now(), { timeoutMs: 180_000 })
}

describe('the packed CLI, installed with npm', { timeout: 300_000 }, () => {
  it('installs into a fresh prefix, answers --version and health, runs the first commands and serves quire mcp', async () => {
    const packed = await run('npm', ['pack', '--pack-destination', scratch, '--loglevel=error'], { cwd: packageDir })
    expect(packed.code, packed.stderr).toBe(0)
    const tarball = (await readdir(scratch)).find((f) => f.endsWith('.tgz'))
    expect(tarball).toBeDefined()

    const prefix = join(scratch, 'prefix')
    const installed = await run('npm', [
      'install',
      '-g',
      '--prefix',
      prefix,
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      join(scratch, tarball ?? ''),
    ])
    expect(installed.code, installed.stderr).toBe(0)
    // Only published dependencies: the workspace packages and yargs are bundled in (the MCP SDK is a dependency of `quire mcp`, jq-wasm of --jq).
    const manifest = JSON.parse(readFileSync(join(prefix, 'lib/node_modules/@quire/cli/package.json'), 'utf8'))
    expect(Object.keys(manifest.dependencies).sort()).toEqual(['@modelcontextprotocol/sdk', '@napi-rs/keyring', 'jq-wasm', 'openid-client'])
    // yargs is bundled (bench/cli: one file to compile instead of some forty modules to resolve).
    expect(existsSync(join(prefix, 'lib/node_modules/@quire/cli/node_modules/yargs'))).toBe(false)
    expect(existsSync(join(prefix, 'lib/node_modules/@quire/cli/node_modules/@quire'))).toBe(false)

    const quireBin = join(prefix, 'bin/quire')
    const version = await run(quireBin, ['--version'])
    expect(version.code).toBe(0)
    expect(version.stdout.trim()).toBe(JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')).version)
    const health = await run(quireBin, ['--format', 'json', 'health'], { env: { AGENT_SERVICE_BASE_URL: quire.apiUrl } })
    expect(health.code, health.stderr).toBe(0)
    expect(JSON.parse(health.stdout)).toMatchObject({ status: 'ok', database: 'ok' })

    // The bundle does real work too: a user's first minutes, with the installed binary.
    const env = { AGENT_SERVICE_BASE_URL: quire.apiUrl, AGENT_SERVICE_TOKEN: await quire.token('packed@example.com') }
    const me = JSON.parse((await run(quireBin, ['--format', 'json', 'whoami'], { env })).stdout)
    const project = { ownerUsername: me.username, slug: 'guides', title: 'Guides', icon: 'G' }
    const created = await run(quireBin, ['project', 'create', '--json', JSON.stringify(project)], { env })
    expect(created.code, created.stderr).toBe(0)
    writeFileSync(join(scratch, 'hello.md'), '# Hello\n\nFrom the packed CLI.\n')
    const pushed = await run(
      quireBin,
      ['--format', 'json', 'push', '--owner', me.username, '--project-slug', 'guides', '--file', 'hello.md'],
      {
        env,
      },
    )
    expect(pushed.code, pushed.stderr).toBe(0)
    const { artifact } = JSON.parse(pushed.stdout)
    expect(artifact).toMatchObject({ slug: 'hello', title: 'Hello' })
    expect((await run(quireBin, ['artifact', 'content', '--artifact-id', artifact.id], { env })).stdout).toBe(
      '# Hello\n\nFrom the packed CLI.\n',
    )
    const listed = await run(quireBin, ['artifact', 'list', '--ndjson'], { env })
    expect(
      listed.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).id),
    ).toEqual([artifact.id])

    // `quire mcp` from the installed package: a host's requests on standard input, all answered
    // although the input ends right after the last one.
    const messages = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'packed', version: '0' } },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'get_artifact_content', arguments: { artifactId: artifact.id } } },
    ]
    const child = spawnTracked(quireBin, ['mcp'], {
      cwd: scratch,
      env: { ...networkEnv(), HOME: scratch, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    const served = await finish(child, performance.now(), {
      stdin: messages.map((m) => `${JSON.stringify(m)}\n`).join(''),
      timeoutMs: 60_000,
    })
    expect(served.code, served.stderr).toBe(0)
    const answers = new Map(
      served.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { id: number; result: Record<string, unknown> })
        .map((answer) => [answer.id, answer.result]),
    )
    expect(answers.get(1)).toMatchObject({ serverInfo: { name: 'quire' }, protocolVersion: '2025-11-25' })
    expect(answers.get(2)?.tools).toHaveLength(23)
    expect(answers.get(3)).toMatchObject({ structuredContent: { content: '# Hello\n\nFrom the packed CLI.\n', truncated: false } })
  })
})
