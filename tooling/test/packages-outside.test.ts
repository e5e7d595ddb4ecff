/**
 * The published packages as a stranger gets them: each packed by pnpm (as `pnpm publish` would
 * send it) into a directory outside the repository, installed with npm into a fresh project
 * (third-party dependencies from the npm registry, a fresh npm cache), and used there against a
 * real Quire API started from this repository on its embedded database:
 *
 * - the installed `quire` carries only its published dependencies (yargs-parser and Quire's own packages
 *   bundled in), answers `--version`, `--help`, and real commands with a minted API key, and
 *   serves `quire mcp` on standard input;
 * - every entry point of every package loads (a dependency left undeclared fails here);
 * - a TypeScript program using `@quire/client` and `@quire/mcp` type-checks (strict, with
 *   `nodenext` and with `bundler` resolution) and runs on this Node (type stripping).
 *
 * It needs the packages built (`pnpm check` builds them) and the npm registry.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, dirname, join, resolve } from 'node:path'
import { freePort } from '@quire/testing/free-port'
import { killAllNodeProcesses, type NodeProcess, spawnNode } from '@quire/testing/node-process'
import { finish, spawnTracked } from '@quire/testing/processes'
import { timeoutFor, untilHealthy, waitBudgetMs } from '@quire/testing/waits'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Manifest, packPackage, publishedPackages } from '../scripts/check-packages.ts'

const root = resolve(import.meta.dirname, '../..')
const packages = publishedPackages(root)
/** The repository's TypeScript and Node types, so the consumer compiles with what the workspace does. */
const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }
const typescriptVersion = rootManifest.devDependencies.typescript
const nodeTypesVersion = rootManifest.devDependencies['@types/node']

const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'quire-outside-')))
const project = join(scratch, 'project')
const home = join(scratch, 'home')
/** This Node first on PATH: the installed `quire` (`#!/usr/bin/env node`) and npm's scripts run on it. */
const path = [dirname(process.execPath), process.env.PATH ?? ''].join(delimiter)

/**
 * Runs a command to its end (one wait, of `budgetMs` when given: packages/testing/src/waits.ts) as the
 * leader of a tracked process group (killed with everything it started when the wait gives up or
 * the file ends), with `env` as its whole environment.
 */
function runCommand(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: Record<string, string>; budgetMs?: number; stdin?: string },
) {
  const child = spawnTracked(command, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  })
  return finish(child, {
    ...(options.budgetMs === undefined ? {} : { budgetMs: options.budgetMs }),
    ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
  })
}

/** A command that must succeed; its standard output. */
async function must(command: string, args: readonly string[], options: Parameters<typeof runCommand>[2]): Promise<string> {
  const ran = await runCommand(command, args, options)
  if (ran.code !== 0) throw new Error(`${[command, ...args].join(' ')} exited ${ran.code}:\n${ran.stdout}\n${ran.stderr}`)
  return ran.stdout
}

/**
 * npm's own script: the one bundled with this Node when it has one (`<bin>/npm` beside it, or
 * `<prefix>/lib/node_modules/npm`), else the npm on PATH. It always runs on this Node.
 */
function npmScript(): string {
  const bin = dirname(process.execPath)
  const candidates = [join(bin, '../lib/node_modules/npm/bin/npm-cli.js'), join(bin, 'npm')]
  for (const dir of (process.env.PATH ?? '').split(delimiter)) candidates.push(join(dir, 'npm'))
  for (const candidate of candidates) {
    if (!existsSync(candidate)) continue
    const real = realpathSync(candidate)
    if (real.endsWith('.js')) return real
  }
  throw new Error('No npm found beside this Node or on PATH: the test installs the packed packages with npm.')
}

/**
 * How this machine reaches the registry (a proxy, an extra certificate authority, a mirror): passed
 * on to npm, which otherwise starts from a clean environment.
 */
const networkVariables = [
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'npm_config_registry',
  'npm_config_cafile',
  'NPM_CONFIG_REGISTRY',
  'NPM_CONFIG_CAFILE',
]
const networkEnv = Object.fromEntries(networkVariables.flatMap((name) => (process.env[name] ? [[name, process.env[name]]] : [])))

/**
 * npm in the consumer project: a clean environment (no pnpm settings leaking in, the developer's
 * ~/.npmrc left out), a cache of its own, few retries so that an unreachable registry fails fast.
 */
function npm(args: readonly string[], budgetMs?: number) {
  return must(process.execPath, [npmScript(), ...args], {
    cwd: project,
    env: {
      ...networkEnv,
      PATH: path,
      HOME: home,
      npm_config_cache: join(scratch, 'npm-cache'),
      npm_config_userconfig: join(home, '.npmrc'),
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
      npm_config_fetch_retries: '1',
      npm_config_loglevel: 'warn',
      ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
    },
    ...(budgetMs === undefined ? {} : { budgetMs }),
  })
}

/** The installed `quire`, on this Node, against the test's API with the minted key (and `stdin`, when given). */
function quire(...args: string[]) {
  return quireWithInput(undefined, ...args)
}
function quireWithInput(stdin: string | undefined, ...args: string[]) {
  return runCommand(join(project, 'node_modules/.bin/quire'), args, {
    cwd: project,
    ...(stdin === undefined ? {} : { stdin }),
    env: {
      PATH: path,
      HOME: home,
      AGENT_SERVICE_BASE_URL: api.url,
      AGENT_SERVICE_TOKEN: token,
      AGENT_SERVICE_NO_INPUT: '1',
      NO_COLOR: '1',
    },
  })
}

let api: NodeProcess & { url: string }
let token = ''
let username = ''
const manifests = new Map<string, Manifest>()

/** The Quire API from this repository on an embedded database in the scratch directory, and an API key for a fresh user. */
async function startQuire(): Promise<void> {
  const port = await freePort()
  const env = { QUIRE_DATA_DIR: join(scratch, 'data') }
  const started = spawnNode(join(root, 'apps/api/src/main.ts'), {
    ...env,
    API_HOST: '127.0.0.1',
    API_PORT: String(port),
    RATE_LIMIT_ENABLED: 'false',
  })
  api = { ...started, url: `http://127.0.0.1:${port}` }
  await untilHealthy(api, [`${api.url}/health`])
  // The operator command reaches the running server through its socket (the embedded database has one owner).
  const minted = await must(
    process.execPath,
    ['--conditions=source', join(root, 'apps/api/src/admin.ts'), 'token', '--email', 'outside@example.com'],
    {
      cwd: root,
      env: { PATH: path, HOME: home, LOG_LEVEL: 'silent', ...env },
    },
  )
  token = minted.trim()
  username = 'outside'
}

/**
 * How long the install from the registry may take: a download, which a loaded machine slows less
 * than the rest, but a slow registry more.
 */
const installBudgetMs = 2 * waitBudgetMs

/** Every package packed into the scratch directory and installed with npm into a fresh project. */
async function install(): Promise<void> {
  const tarballs = []
  for (const pkg of packages) tarballs.push(await packPackage(pkg.dir, scratch, root))
  await npm(['init', '-y'])
  await npm(['pkg', 'set', 'type=module'])
  await npm(
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--save-exact',
      ...tarballs,
      `typescript@${typescriptVersion}`,
      `@types/node@${nodeTypesVersion}`,
    ],
    installBudgetMs,
  )
  for (const pkg of packages)
    manifests.set(
      pkg.manifest.name,
      JSON.parse(readFileSync(join(project, 'node_modules', pkg.manifest.name, 'package.json'), 'utf8')) as Manifest,
    )
}

beforeAll(
  async () => {
    const unbuilt = packages.filter((p) => !existsSync(join(root, p.dir, 'dist')))
    if (unbuilt.length > 0)
      throw new Error(
        `Not built: ${unbuilt.map((p) => p.manifest.name).join(', ')}. Run \`pnpm exec turbo run build\` (\`pnpm check\` does) first.`,
      )
    mkdirSync(project)
    mkdirSync(home)
    writeFileSync(join(home, '.npmrc'), '')
    // Both at once; each keeps what it started, and afterAll stops it whatever the other did.
    const results = await Promise.allSettled([startQuire(), install()])
    for (const result of results) if (result.status === 'rejected') throw result.reason
    // The longer of the two at once: the packing (its own budgets, tooling/scripts/check-packages.ts), npm init, pkg set, the install.
  },
  timeoutFor(packages.length + 2) + installBudgetMs,
)

afterAll(async () => {
  try {
    await api?.stop()
  } finally {
    await killAllNodeProcesses()
    rmSync(scratch, { recursive: true, force: true })
  }
}, timeoutFor(1))

// A test here runs at most five commands, each one wait.
describe('the published packages, installed with npm outside the workspace', { timeout: timeoutFor(5) }, () => {
  it('installs every published package (and no private one) from its tarball', () => {
    expect([...manifests.keys()].sort()).toEqual(
      ['@quire/agent-auth', '@quire/authz', '@quire/cli', '@quire/client', '@quire/core', '@quire/mcp', '@quire/storage'].sort(),
    )
    // `workspace:^` becomes a caret range once packed (independent versions: a minor release of the
    // client moves the MCP package's range, see .changeset/config.json), met by the tarball installed here.
    const mcp = manifests.get('@quire/mcp')
    expect(mcp?.dependencies?.['@quire/client']).toBe(`^${manifests.get('@quire/client')?.version}`)
    expect(existsSync(join(project, 'node_modules/@quire/runtime'))).toBe(false)
  })

  it('loads every entry point of every package on this Node', async () => {
    const entryPoints = [...manifests].flatMap(([name, manifest]) =>
      Object.keys((manifest.exports ?? {}) as Record<string, unknown>)
        .filter((key) => key !== './package.json')
        .map((key) => (key === '.' ? name : `${name}/${key.slice(2)}`)),
    )
    expect(entryPoints).toEqual(
      expect.arrayContaining(['@quire/core', '@quire/core/contract', '@quire/storage', '@quire/client', '@quire/mcp']),
    )
    const script = `for (const name of ${JSON.stringify(entryPoints)}) { const m = await import(name); console.log(name, Object.keys(m).length) }`
    const ran = await runCommand(process.execPath, ['--input-type=module', '-e', script], { cwd: project, env: { PATH: path, HOME: home } })
    expect(ran.stderr).toBe('')
    expect(ran.code).toBe(0)
    for (const name of entryPoints) expect(ran.stdout).toMatch(new RegExp(`^${name} [1-9]\\d*$`, 'm'))
  })

  it("installs quire with only its published dependencies: yargs-parser and Quire's own packages are bundled in", () => {
    const cli = manifests.get('@quire/cli')
    // The MCP SDK is a dependency of `quire mcp`, jq-wasm of --jq.
    expect(Object.keys(cli?.dependencies ?? {}).sort()).toEqual([
      '@modelcontextprotocol/sdk',
      '@napi-rs/keyring',
      'jq-wasm',
      'openid-client',
    ])
    // The flag parser is bundled (bench/cli); yargs itself is no longer used at all.
    expect(existsSync(join(project, 'node_modules/yargs-parser'))).toBe(false)
    expect(existsSync(join(project, 'node_modules/yargs'))).toBe(false)
    expect(existsSync(join(project, 'node_modules/@quire/cli/node_modules'))).toBe(false)
  })

  it('runs the installed quire: --version, --help', async () => {
    const version = await quire('--version')
    expect(version).toMatchObject({ code: 0, stdout: `${manifests.get('@quire/cli')?.version}\n` })
    const help = await quire('--help')
    expect(help.code, help.stderr).toBe(0)
    for (const command of ['whoami', 'push', 'artifact', 'project', 'mcp']) expect(help.stdout).toMatch(new RegExp(`^  ${command} `, 'm'))
  })

  it('runs real commands of the installed quire against a running Quire', async () => {
    const whoami = await quire('whoami', '--format', 'json')
    expect(whoami.code, whoami.stderr).toBe(0)
    expect(JSON.parse(whoami.stdout)).toMatchObject({ email: 'outside@example.com', username })

    const created = await quire(
      'project',
      'create',
      '--owner-username',
      username,
      '--slug',
      'cli',
      '--title',
      'From the CLI',
      '--icon',
      'C',
    )
    expect(created.code, created.stderr).toBe(0)
    writeFileSync(join(scratch, 'plan.md'), '# Plan\n\nInstalled from npm.\n')
    const pushed = await quire('push', '--owner', username, '--project-slug', 'cli', '--file', join(scratch, 'plan.md'))
    expect(pushed.code, pushed.stderr).toBe(0)
    expect(pushed.stdout).toMatch(/\/outside\/cli\/plan version 1/)
    const content = await quire('artifact', 'content', `${username}/cli/plan`)
    expect(content).toMatchObject({ code: 0, stdout: '# Plan\n\nInstalled from npm.\n' })
    const refused = await runCommand(join(project, 'node_modules/.bin/quire'), ['whoami'], {
      cwd: project,
      env: {
        PATH: path,
        HOME: home,
        AGENT_SERVICE_BASE_URL: api.url,
        AGENT_SERVICE_TOKEN: 'qk_not-a-real-key',
        AGENT_SERVICE_NO_INPUT: '1',
      },
    })
    // A refused credential: exit code 4 and one readable line, never a stack trace.
    expect(refused.code).toBe(4)
    expect(refused.stderr).not.toMatch(/\n\s+at /)
  })

  it('the installed quire answers health, lists what it pushed, and serves `quire mcp` on standard input to its end', async () => {
    const health = await quire('--format', 'json', 'health')
    expect(health.code, health.stderr).toBe(0)
    expect(JSON.parse(health.stdout)).toMatchObject({ status: 'ok', database: 'ok' })
    writeFileSync(join(scratch, 'hello.md'), '# Hello\n\nFrom the packed CLI.\n')
    const pushed = await quire(
      '--format',
      'json',
      'push',
      '--owner',
      username,
      '--project-slug',
      'cli',
      '--file',
      join(scratch, 'hello.md'),
    )
    expect(pushed.code, pushed.stderr).toBe(0)
    const { artifact } = JSON.parse(pushed.stdout) as { artifact: { id: string } }
    const listed = await quire('artifact', 'list', '--ndjson')
    expect(listed.code, listed.stderr).toBe(0)
    expect(
      listed.stdout
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { id: string }).id),
    ).toContain(artifact.id)

    // A host's requests on standard input, all answered although the input ends right after the last one.
    const messages = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'outside', version: '0' } },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'get_artifact_content', arguments: { artifactId: artifact.id } } },
    ]
    const served = await quireWithInput(messages.map((m) => `${JSON.stringify(m)}\n`).join(''), 'mcp')
    expect(served.code, served.stderr).toBe(0)
    const answers = new Map(
      served.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { id: number; result: Record<string, unknown> })
        .map((answer) => [answer.id, answer.result]),
    )
    expect(answers.get(1)).toMatchObject({ serverInfo: { name: 'quire' }, protocolVersion: '2025-11-25' })
    expect(answers.get(2)?.tools).toHaveLength(26)
    expect(answers.get(3)).toMatchObject({ structuredContent: { content: '# Hello\n\nFrom the packed CLI.\n', truncated: false } })
  })

  // Waits: the two type-checks (at once), the run.
  it('type-checks a TypeScript program using @quire/client and @quire/mcp (nodenext and bundler, strict) and runs it on this Node', {
    timeout: timeoutFor(2),
  }, async () => {
    writeFileSync(join(project, 'consumer.ts'), consumerProgram)
    const compilerOptions = { target: 'es2024', strict: true, noEmit: true, skipLibCheck: false, types: ['node'] }
    const files = ['consumer.ts']
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          ...compilerOptions,
          module: 'nodenext',
          moduleResolution: 'nodenext',
          erasableSyntaxOnly: true,
          verbatimModuleSyntax: true,
        },
        files,
      }),
    )
    writeFileSync(
      join(project, 'tsconfig.bundler.json'),
      JSON.stringify({ compilerOptions: { ...compilerOptions, module: 'preserve', moduleResolution: 'bundler' }, files }),
    )
    const tsc = join(project, 'node_modules/typescript/bin/tsc')
    // Both resolutions at once (two cores); with skipLibCheck off, every shipped .d.ts is checked too.
    const configs = ['tsconfig.json', 'tsconfig.bundler.json']
    const checks = await Promise.all(
      configs.map((config) => runCommand(process.execPath, [tsc, '-p', config], { cwd: project, env: { PATH: path, HOME: home } })),
    )
    checks.forEach((checked, i) => {
      expect(`${checked.stdout}${checked.stderr}`, configs[i]).toBe('')
      expect(checked.code, configs[i]).toBe(0)
    })
    const ran = await runCommand(process.execPath, ['consumer.ts'], {
      cwd: project,
      env: { PATH: path, HOME: home, QUIRE_URL: api.url, QUIRE_TOKEN: token },
    })
    expect(ran.code, ran.stderr).toBe(0)
    expect(JSON.parse(ran.stdout)).toEqual({
      username,
      content: '# Hello from outside\n',
      principal: expect.objectContaining({ username, email: 'outside@example.com' }),
      listed: expect.arrayContaining([`${username}/from-ts/hello`]),
      toolError: false,
      missing: 'not_found',
    })
  })
})

/**
 * What a user of the two libraries writes: the client's typed operations, typed errors, and the
 * MCP server and one tool call over that client. The `@ts-expect-error` lines make sure the types
 * are real (an `any` would leave them unused, which is an error).
 */
const consumerProgram = `import { createClient, isQuireApiError, type QuireClient } from '@quire/client'
import { callTool, clientExecutor, createMcpServer, type McpServerOptions, toolNamed } from '@quire/mcp'

const baseUrl = process.env.QUIRE_URL
const token = process.env.QUIRE_TOKEN
if (!baseUrl || !token) throw new Error('Set QUIRE_URL and QUIRE_TOKEN.')

const client: QuireClient = createClient({ baseUrl, token, clientName: 'outside-test/1.0' })
const profile = await client.ops.getProfile()
// @ts-expect-error: a profile has no password
void profile.password
const username: string = profile.username

await client.ops.createProject({ body: { ownerUsername: username, slug: 'from-ts', title: 'From TypeScript', icon: 'T' } })
const artifact = await client.ops.createArtifact(
  {
    body: {
      ownerUsername: username,
      projectSlug: 'from-ts',
      slug: 'hello',
      type: 'md',
      title: 'Hello',
      content: '# Hello from outside\\n',
      changelog: 'first',
      access: { publicView: false, publicEdit: false },
    },
  },
  { idempotencyKey: crypto.randomUUID() },
)
// @ts-expect-error: artifact types are a closed list
await client.ops.createArtifact({ body: { ownerUsername: username, projectSlug: 'from-ts', slug: 'x', type: 'docx', title: 'X', content: '', changelog: '', access: { publicView: false, publicEdit: false } } }).catch(() => null)
const { content } = await client.ops.getContent({ params: { artifactId: artifact.id } })

const options: McpServerOptions = { execute: clientExecutor(client), version: '0.0.0-outside' }
const server = createMcpServer(options)
const whoami = toolNamed('get_current_principal')
const listing = toolNamed('list_artifacts')
if (!whoami || !listing) throw new Error('missing tools')
const principal = await callTool(whoami, {}, options)
const listed = await callTool(listing, {}, options)
await server.close()
const items = (listed.structuredContent as { items: { ownerUsername: string; projectSlug: string; slug: string }[] }).items

let missing = 'found'
try {
  await client.ops.resolveProjectPath({ params: { owner: username, projectSlug: 'no-such-project' } })
} catch (error) {
  if (isQuireApiError(error, 'not_found')) missing = error.code
  else throw error
}

console.log(
  JSON.stringify({
    username,
    content,
    principal: principal.structuredContent,
    listed: items.map((item) => item.ownerUsername + '/' + item.projectSlug + '/' + item.slug),
    toolError: Boolean(principal.isError || listed.isError),
    missing,
  }),
)
`
