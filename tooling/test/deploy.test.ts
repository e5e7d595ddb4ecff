/**
 * The deployables: each app's standalone folder, made by the one deploy command the Dockerfiles
 * run (tooling/scripts/deploy-app.sh), is tried as an operator would use it. Deployed into a
 * temporary directory outside the repository, it must hold nothing that resolves back into the
 * repository, start with plain `node dist/main.js` (no `--conditions=source`: packages load from
 * their dist) against PostgreSQL, serve real requests, and stop on SIGTERM with exit code 0.
 *
 * It assumes the build has run (`pnpm test` builds first; alone: `pnpm exec turbo run build
 * --filter=@quire/api... --filter=@quire/web...`).
 */
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, dirname, join, relative, resolve, sep } from 'node:path'
import { openDatabase } from '@quire/storage'
import { freshTestDatabase, type TestDatabase } from '@quire/storage/testing'
import { freePort } from '@quire/testing/free-port'
import { killAllNodeProcesses, spawnNode, spawnProcess } from '@quire/testing/node-process'
import { finish, spawnTracked } from '@quire/testing/processes'
import { timeoutFor, untilExit, untilHealthy, untilListening } from '@quire/testing/waits'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { writePgbouncerConfig } from '../topology/pgbouncer.ts'
import { findProgram } from '../topology/topology.ts'

const repo = resolve(import.meta.dirname, '../..')
const deployScript = join(repo, 'tooling/scripts/deploy-app.sh')
const apps = ['api', 'web'] as const
type App = (typeof apps)[number]

/** What the deploy copies: each app's bundle and the dist of every workspace package it runs on. */
const builtFiles = [
  'apps/api/dist/main.js',
  'apps/api/dist/admin.js',
  'apps/web/dist/main.js',
  ...[
    'runtime',
    'http-edge',
    'rest',
    'core',
    'storage',
    'authz',
    'agent-auth',
    'mcp',
    'render',
    'pages',
    'web-http',
    'sign-in',
    'site',
  ].map((p) => `packages/${p}/dist/index.js`),
]

const inside = (dir: string, path: string) => path === dir || path.startsWith(dir + sep)

/** pnpm, for the deploy script: on PATH, else the repository's bootstrap toolchain. */
function pnpmDir(): string {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) if (dir && existsSync(join(dir, 'pnpm'))) return dir
  const toolchain = join(repo, '.toolchain/pnpm/node_modules/.bin')
  if (existsSync(join(toolchain, 'pnpm'))) return toolchain
  throw new Error('pnpm is not on PATH: run `eval "$(tooling/bootstrap.sh --env)"` first.')
}

/** Runs the deploy script for `app` into `target` (one wait); resolves with how long it took. */
async function deploy(app: App, target: string): Promise<number> {
  const child = spawnTracked('sh', [deployScript, app, target], {
    cwd: repo,
    env: { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${pnpmDir()}${delimiter}${process.env.PATH ?? ''}` },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const ran = await finish(child)
  if (ran.code !== 0) throw new Error(`deploy-app.sh ${app} failed (exit ${ran.code}):\n${ran.stdout}${ran.stderr}`)
  return ran.ms
}

interface Walk {
  files: number
  bytes: number
  /** Symlinks whose target is outside the deployed folder, with where they lead. */
  escaping: string[]
  /** Any path whose real path is inside the repository. */
  intoRepo: string[]
}

/** Every entry of a deployed folder, symlinks resolved (and not followed further: they are checked where they lead). */
function walk(root: string): Walk {
  const result: Walk = { files: 0, bytes: 0, escaping: [], intoRepo: [] }
  const realRoot = realpathSync(root)
  const visit = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name)
      const stat = lstatSync(path)
      const real = realpathSync(path)
      if (inside(repo, real)) result.intoRepo.push(`${relative(root, path)} -> ${real}`)
      if (stat.isSymbolicLink()) {
        if (!inside(realRoot, real)) result.escaping.push(`${relative(root, path)} -> ${real}`)
      } else if (stat.isDirectory()) visit(path)
      else {
        result.files++
        result.bytes += stat.size
      }
    }
  }
  visit(root)
  return result
}

const scratch = mkdtempSync(join(tmpdir(), 'quire-deploy-'))
let database: TestDatabase | null = null
const figures: string[] = []

beforeAll(async () => {
  const missing = builtFiles.filter((f) => !existsSync(join(repo, f)))
  if (missing.length > 0)
    throw new Error(
      `Not built: ${missing.join(', ')}. Build first: pnpm exec turbo run build --filter=@quire/api... --filter=@quire/web... (pnpm test does).`,
    )
  // An empty database, not the migrated template: the deployed API folder must bring its own migrations.
  database = await freshTestDatabase(inject('testRun'), 'postgres', { poolSize: 1, empty: true })
})

afterAll(async () => {
  await killAllNodeProcesses()
  await database?.close()
  rmSync(scratch, { recursive: true, force: true })
  if (figures.length > 0) console.info(`deploy figures:\n${figures.join('\n')}`)
})

/** Deploys `app`, checks the folder is self-contained, and returns its path. */
async function deployed(app: App): Promise<string> {
  const target = join(scratch, app)
  const ms = await deploy(app, target)
  const found = walk(target)
  figures.push(`  ${app}: ${Math.round(ms)} ms, ${(found.bytes / 1024 / 1024).toFixed(1)} MiB in ${found.files} files`)
  expect(found.intoRepo, 'paths resolving into the repository').toEqual([])
  expect(found.escaping, 'symlinks leading out of the folder').toEqual([])
  expect(readdirSync(target).sort()).toEqual(
    app === 'api' ? ['dist', 'migrate.mjs', 'node_modules', 'package.json'] : ['dist', 'node_modules', 'package.json'],
  )
  // Production dependencies only: none of the app's devDependencies (its test tools) is there.
  const manifest = JSON.parse(readFileSync(join(target, 'package.json'), 'utf8')) as { devDependencies?: object }
  expect(Object.keys(manifest.devDependencies ?? {})).toEqual([])
  const devDependencies = Object.keys(
    (JSON.parse(readFileSync(join(repo, `apps/${app}/package.json`), 'utf8')) as { devDependencies: object }).devDependencies,
  )
  expect(devDependencies.length).toBeGreaterThan(0)
  expect(devDependencies.filter((name) => existsSync(join(target, 'node_modules', name)))).toEqual([])
  // Workspace packages are real directories with their dist.
  for (const pkg of ['runtime', 'http-edge', 'rest', 'core', 'storage']) {
    const real = realpathSync(join(target, 'node_modules/@quire', pkg))
    expect(inside(realpathSync(target), real)).toBe(true)
    expect(existsSync(join(real, 'dist/index.js')), `@quire/${pkg}/dist/index.js`).toBe(true)
  }
  return target
}

const pgUrl = () => {
  if (!database?.url) throw new Error('No PostgreSQL test database')
  return database.url
}

/** A command of a deployed folder (plain node, cwd the folder), run to its end (one wait). */
async function runToEnd(script: string, env: Record<string, string>, cwd: string, args: readonly string[] = []) {
  const command = spawnNode(script, env, { cwd, source: false, args })
  const outcome = await untilExit(command)
  return { outcome, output: command.output(), stdout: command.stdout() }
}

async function json(res: Response): Promise<Record<string, unknown>> {
  const text = await res.text()
  try {
    return JSON.parse(text) as Record<string, unknown>
  } catch {
    return { text }
  }
}

// Waits of the longest test: the deploy, two migrations, the start, a token, the stop.
describe('deployed folders, run from outside the repository', { timeout: timeoutFor(6) }, () => {
  it('the scratch directory is outside the repository', () => {
    expect(inside(repo, realpathSync(scratch))).toBe(false)
  })

  it('each Dockerfile deploys with the tested command', () => {
    for (const app of apps) {
      const dockerfile = readFileSync(join(repo, `apps/${app}/Dockerfile`), 'utf8')
      expect(dockerfile).toMatch(new RegExp(`RUN sh tooling/scripts/deploy-app\\.sh ${app} /deploy\\b`))
    }
  })

  it('api: migrate.mjs migrates an empty database; dist/admin.js mints a token; the API serves it; SIGTERM stops it with 0', async () => {
    const dir = await deployed('api')
    // What compose.yaml's `migrate` service runs, on a direct connection, before the app processes.
    for (const expected of [/migrate: applied 0001-foundation, /, /migrate: the schema is up to date/]) {
      const migrate = await runToEnd(join(dir, 'migrate.mjs'), { DATABASE_URL: pgUrl() }, dir)
      expect(migrate.outcome, migrate.output).toEqual({ code: 0, signal: null })
      expect(migrate.output).toMatch(expected)
    }
    const migrated = await database?.query<{ n: number }>('SELECT count(*)::int AS n FROM kysely_migration', [])
    expect(migrated?.[0]?.n).toBeGreaterThan(0)

    const port = await freePort()
    const env = { DATABASE_URL: pgUrl(), API_HOST: '127.0.0.1', API_PORT: String(port), NODE_ENV: 'production' }
    const api = spawnNode(join(dir, 'dist/main.js'), env, { cwd: dir, source: false })
    const base = `http://127.0.0.1:${port}`
    await untilHealthy(api, [`${base}/health`])

    const admin = await runToEnd(join(dir, 'dist/admin.js'), { DATABASE_URL: pgUrl() }, dir, ['token', '--email', 'deploy@example.com'])
    expect(admin.outcome, admin.output).toEqual({ code: 0, signal: null })
    const token = admin.stdout.trim()
    expect(token).toMatch(/^\S{20,}$/)

    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
    const project = await fetch(`${base}/api/projects`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ ownerUsername: 'deploy', slug: 'shipped', title: 'Shipped', icon: '📦' }),
    })
    expect(project.status, JSON.stringify(await json(project.clone()))).toBe(201)
    const created = await fetch(`${base}/api/artifacts`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        ownerUsername: 'deploy',
        projectSlug: 'shipped',
        slug: 'notes',
        type: 'md',
        title: 'Notes',
        content: '# From the deployed folder\n',
        changelog: 'first',
        access: { publicView: false, publicEdit: false },
      }),
    })
    const body = await json(created)
    expect(created.status, JSON.stringify(body)).toBe(201)
    expect(body).toMatchObject({ ownerUsername: 'deploy', slug: 'notes', latestVersion: 1 })
    const read = await fetch(`${base}/api/artifacts/${String(body.id)}/content`, { headers: { authorization: `Bearer ${token}` } })
    expect(read.status).toBe(200)
    expect(await read.text()).toContain('# From the deployed folder')

    expect(await api.stop(), api.output()).toEqual({ code: 0, signal: null })
  })

  it('web: in production, serves the home page and its stylesheet, and the content origin, stops on SIGTERM with 0', async () => {
    const dir = await deployed('web')
    const [port, contentPort] = [await freePort(), await freePort()]
    const web = spawnNode(
      join(dir, 'dist/main.js'),
      {
        DATABASE_URL: pgUrl(),
        WEB_HOST: '127.0.0.1',
        WEB_PORT: String(port),
        WEB_URL: 'https://quire.example.test',
        // The content origin with its assets (Mermaid's bundle among them), from the deployed folder.
        CONTENT_URL: 'https://quire-usercontent.example.test',
        CONTENT_PORT: String(contentPort),
        NODE_ENV: 'production',
        SESSION_SECRET: 'deploy-test-session-secret-0123456789abcdef',
        // Production refuses the development provider; discovery happens at the first sign-in, not at boot.
        OIDC_ISSUER: 'https://oidc.example.test',
        OIDC_CLIENT_ID: 'quire',
        OIDC_CLIENT_SECRET: 'deploy-test-client-secret',
      },
      { cwd: dir, source: false },
    )
    const base = `http://127.0.0.1:${port}`
    await untilHealthy(web, [`${base}/health`])
    const home = await fetch(`${base}/`)
    expect(home.status).toBe(200)
    const html = await home.text()
    expect(html).toContain('<title>Welcome · Quire</title>')
    const stylesheet = html.match(/<link rel="stylesheet" href="([^"]+)">/)?.[1]
    expect(stylesheet, html).toBeDefined()
    const css = await fetch(`${base}${stylesheet}`)
    expect(css.status).toBe(200)
    expect(css.headers.get('content-type')).toMatch(/^text\/css/)
    // The page styles and the code highlighting theme, both bundled into dist.
    const text = await css.text()
    expect(text.length).toBeGreaterThan(1000)
    expect(text).toContain('.hljs')
    // The content origin answers on its port, and an unknown capability is a 404.
    const content = `http://127.0.0.1:${contentPort}`
    expect(await (await fetch(`${content}/robots.txt`)).text()).toBe('User-agent: *\nDisallow: /\n')
    expect((await fetch(`${content}/d/not-a-capability`)).status).toBe(404)

    expect(await web.stop(), web.output()).toEqual({ code: 0, signal: null })
  })

  it('web: outside production, the bundled development sign-in provider answers from the deployed folder', async () => {
    const dir = join(scratch, 'web')
    if (!existsSync(join(dir, 'dist/main.js'))) throw new Error('the web deploy of the previous test is missing')
    const port = await freePort()
    const base = `http://127.0.0.1:${port}`
    const web = spawnNode(
      join(dir, 'dist/main.js'),
      // The generated session secret goes to QUIRE_DATA_DIR, outside the deployed folder.
      {
        DATABASE_URL: pgUrl(),
        WEB_HOST: '127.0.0.1',
        WEB_PORT: String(port),
        WEB_URL: base,
        CONTENT_URL: 'off',
        QUIRE_DATA_DIR: join(scratch, 'web-data'),
      },
      { cwd: dir, source: false },
    )
    await untilHealthy(web, [`${base}/health`])
    const discovery = await fetch(`${base}/dev-oidc/.well-known/openid-configuration`)
    expect(discovery.status).toBe(200)
    expect((await json(discovery)).issuer).toBe(`${base}/dev-oidc`)
    expect(await web.stop(), web.output()).toEqual({ code: 0, signal: null })
  })
})

/** A program on PATH, or null. */
describe('compose.yaml and its HAProxy configuration', () => {
  const haproxyCfg = readFileSync(join(repo, 'tooling/deploy/haproxy.cfg'), 'utf8')
  const compose = readFileSync(join(repo, 'compose.yaml'), 'utf8')

  it('three frontends (web :8080, api :8081, content :8082), round-robin over two servers each, checked with GET /health', () => {
    expect(haproxyCfg).toMatch(/^frontend web\n {2}bind :8080\n/m)
    expect(haproxyCfg).toMatch(/^frontend api\n {2}bind :8081\n/m)
    expect(haproxyCfg).toMatch(/^frontend content\n {2}bind :8082\n/m)
    expect(haproxyCfg).toMatch(/^ {2}option httpchk GET \/health$/m)
    expect(haproxyCfg).toMatch(/^ {2}option forwardfor$/m)
    // No stickiness: no cookie insertion, no stick tables.
    expect(haproxyCfg).not.toMatch(/^\s*(cookie|stick|stick-table|balance source)\b/m)
    for (const backend of ['web', 'api', 'content']) {
      const start = haproxyCfg.search(new RegExp(`^backend ${backend}$`, 'm'))
      expect(start).toBeGreaterThan(-1)
      const block = haproxyCfg.slice(start).split('\n\n')[0] ?? ''
      expect(block).toContain('balance roundrobin')
      expect(block.match(/^ {2}server /gm)).toHaveLength(2)
    }
  })

  it('every server HAProxy balances over is a service of compose.yaml, on the port its image listens on', () => {
    const servers = [...haproxyCfg.matchAll(/^ {2}server (\S+) (\S+):(\d+)$/gm)].map((m) => ({ service: m[2], port: m[3] }))
    expect(servers).toHaveLength(6)
    for (const { service, port } of servers) {
      expect(compose, `service ${service}`).toMatch(new RegExp(`^ {2}${service}: \\*(api|web)$`, 'm'))
      const app = service?.startsWith('api') ? 'api' : 'web'
      expect(readFileSync(join(repo, `apps/${app}/Dockerfile`), 'utf8')).toMatch(new RegExp(`^EXPOSE ${port}$`, 'm'))
    }
    // The address the apps trust for X-Forwarded-For is haproxy's.
    const trusted = compose.match(/TRUST_PROXY: (\S+)/)?.[1]
    expect(compose).toMatch(new RegExp(`haproxy:[\\s\\S]*ipv4_address: ${trusted?.replaceAll('.', '\\.')}`))
  })

  it('HAProxy accepts the configuration (haproxy -c), where HAProxy is installed', { timeout: timeoutFor(1) }, async (context) => {
    const haproxy = findProgram('haproxy')
    if (!haproxy) return context.skip('haproxy is not installed (tooling/scripts/test-prerequisites.sh installs it)')
    const child = spawnTracked(haproxy, ['-c', '-f', join(repo, 'tooling/deploy/haproxy.cfg')], { stdio: ['ignore', 'pipe', 'pipe'] })
    const result = await finish(child)
    const output = result.stdout + result.stderr
    expect(result.code, output).toBe(0)
    expect(output).toContain('Configuration file is valid')
  })
})

describe('the PgBouncer configuration of compose.yaml', { timeout: timeoutFor(1) }, () => {
  it('no session advisory lock outlives its transaction (the migrator locks and unlocks in different ones)', async (context) => {
    const pgbouncer = findProgram('pgbouncer')
    if (!pgbouncer) return context.skip('pgbouncer is not installed (tooling/scripts/test-prerequisites.sh installs it)')
    if (!database?.url) throw new Error('No PostgreSQL test database')
    // The deployed file, pointed at the local PostgreSQL and a free port instead of the compose services.
    const dir = join(scratch, 'pgbouncer')
    mkdirSync(dir)
    const port = await freePort()
    const { configFile, url } = writePgbouncerConfig({ dir, port, databaseUrl: database.url })
    expect(readFileSync(configFile, 'utf8')).toContain(`listen_port = ${port}`)
    // PgBouncer refuses to run as root: then as the postgres user, who must read the files.
    const runAs = process.getuid?.() === 0 ? ['-u', 'postgres'] : []
    for (const path of [scratch, dir]) chmodSync(path, 0o755)
    for (const file of ['pgbouncer.ini', 'userlist.txt']) chmodSync(join(dir, file), 0o644)
    const bouncer = spawnProcess(pgbouncer, [...runAs, configFile], {})
    const a = await openDatabase({ kind: 'postgres', url, poolSize: 1, preparedStatements: false })
    const b = await openDatabase({ kind: 'postgres', url, poolSize: 1, preparedStatements: false })
    try {
      await untilListening(bouncer, port)
      // A locks (one transaction); B then holds that same backend in a transaction of its own, so
      // A's unlock (its next transaction) lands on another backend: as the migrator does, unlucky.
      const [locked] = await a.query<{ pid: number }>('SELECT pg_advisory_lock(4242), pg_backend_pid() AS pid', [])
      // B's pool has one connection: BEGIN … COMMIT is one PgBouncer transaction, one backend.
      await b.query('BEGIN', [])
      const [inB] = await b.query<{ pid: number }>('SELECT pg_backend_pid() AS pid', [])
      const [unlocked] = await a.query<{ pid: number; unlocked: boolean }>(
        'SELECT pg_advisory_unlock(4242) AS unlocked, pg_backend_pid() AS pid',
        [],
      )
      await b.query('COMMIT', [])
      // The situation the setting is for: lock and unlock on different backends.
      expect(inB?.pid).toBe(locked?.pid)
      expect(unlocked?.pid).not.toBe(locked?.pid)
      const left = await database.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND objid = 4242",
        [],
      )
      expect(left[0]?.n, 'advisory locks still held on a pooled backend').toBe(0)
    } finally {
      await a.close()
      await b.close()
      await bouncer.kill()
    }
  })
})
