import { spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join, resolve } from 'node:path'
import { freePort } from '@quire/testing/free-port'
import { type NodeProcess, spawnNode, spawnProcess } from '@quire/testing/node-process'
import { settleAll } from '@quire/testing/processes'
import { until, untilHealthy, untilListening } from '@quire/testing/waits'
import { haproxyConfig } from './haproxy.ts'
import { writePgbouncerConfig } from './pgbouncer.ts'

/**
 * Quire scaled out on this machine, with the real parts an operator runs (docs/deploy.md):
 *
 *   client ─▶ HAProxy ─┬─ web frontend ─▶ web_1, web_2 (roundrobin)      ─┐
 *                      │                  └ /dev-oidc/* ▶ idp (optional)  ├─▶ PgBouncer (transaction) ─▶ PostgreSQL
 *                      └─ api frontend ─▶ api_1, api_2 (roundrobin)      ─┘
 *                                          all of them count rate limits in one Redis database
 *
 * Every process is started tracked (packages/testing/src/processes.ts): `stop()` ends them, and whatever
 * way the test ends, the run's guard kills what is left. The apps run from their build (dist).
 */
export interface TopologyOptions {
  /** The database, directly on PostgreSQL (PgBouncer is put in front of it here). */
  readonly databaseUrl: string
  /** API processes (1 or more). */
  readonly apis?: number
  /** Web processes (0 or more). */
  readonly webs?: number
  /**
   * Runs the development OpenID provider as one process of its own (apps/web/src/dev-oidc/standalone.ts)
   * that the web processes use as their external provider: a sign-in may start on one web process
   * and finish on another. Without it each web process has its own in-memory provider.
   */
  readonly idp?: boolean
  /** More environment for both apps (RATE_LIMIT_MAX, say). */
  readonly env?: Record<string, string>
}

export interface Topology {
  /** The balancer's frontends. */
  readonly apiUrl: string
  readonly webUrl: string
  /** Each process, straight (bypassing the balancer), by its server name (api_1, web_2…). */
  readonly direct: Readonly<Record<string, string>>
  readonly apis: readonly NodeProcess[]
  readonly webs: readonly NodeProcess[]
  /** Waits until HAProxy sees `server` of `backend` in `status` (UP, DOWN): one wait (packages/testing/src/waits.ts). */
  untilServer(backend: 'api' | 'web' | 'idp', server: string, status: 'UP' | 'DOWN'): Promise<void>
  /** HAProxy's view of every server: `backend/server` → status. */
  serverStatus(): Promise<Record<string, string>>
  /** Every process's pid, by name (pgbouncer, haproxy, idp, api_1…). */
  readonly pids: Readonly<Record<string, number>>
  /** Everything the processes wrote, for a failure message. */
  output(): string
  /**
   * Stops every process (SIGTERM; SIGKILL for one that has not exited within a wait's budget, and
   * then fails naming it) and removes the configuration files.
   */
  stop(): Promise<void>
}

const root = resolve(import.meta.dirname, '../..')
export const apiMain = join(root, 'apps/api/dist/main.js')
export const webMain = join(root, 'apps/web/dist/main.js')
const idpMain = join(root, 'apps/web/src/dev-oidc/standalone.ts')
const redisUrl = process.env.QUIRE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'

/** Refuses at once, with the command to run, when the build or a program is missing. */
export function checkTopologyPrerequisites(): void {
  const missing = [apiMain, webMain].filter((file) => !existsSync(file))
  if (missing.length > 0)
    throw new Error(
      `The topology runs the built apps; missing ${missing.join(', ')}. Build first: pnpm exec turbo run build --filter=@quire/api... --filter=@quire/web...`,
    )
  for (const program of ['haproxy', 'pgbouncer', 'redis-cli']) programPath(program)
}

/** A program on PATH, or in /usr/sbin or /usr/local/sbin (where Debian puts HAProxy and PgBouncer, and a user's PATH may not look); null when none. */
export function findProgram(program: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter).concat('/usr/sbin', '/usr/local/sbin'))
    if (dir && existsSync(join(dir, program))) return join(dir, program)
  return null
}

/** `findProgram`, or an error naming the script that installs it. */
export function programPath(program: string): string {
  const found = findProgram(program)
  if (found === null)
    throw new Error(
      `${program} is not installed: run tooling/scripts/test-prerequisites.sh (it installs haproxy and pgbouncer with apt-get).`,
    )
  return found
}

/** The waits of a start (packages/testing/src/waits.ts): PgBouncer listening, the apps healthy, HAProxy seeing them up. */
export const startTopologyWaits = 3

export async function startTopology(options: TopologyOptions): Promise<Topology> {
  checkTopologyPrerequisites()
  const apiCount = options.apis ?? 2
  const webCount = options.webs ?? 2
  const dir = mkdtempSync(join(tmpdir(), 'quire-topology-'))
  const started: { name: string; process: NodeProcess }[] = []
  const apis: NodeProcess[] = []
  const webs: NodeProcess[] = []
  const stop = async () => {
    try {
      await settleAll(started.map(({ process }) => process.stop()))
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }
  try {
    const [bouncerPort, apiFront, webFront, statsPort, idpPort, ...appPorts] = await Promise.all(
      Array.from({ length: 5 + apiCount + webCount }, () => freePort()),
    )
    const apiUrl = `http://127.0.0.1:${apiFront}`
    const webUrl = `http://127.0.0.1:${webFront}`
    const apiServers = Array.from({ length: apiCount }, (_, i) => ({ name: `api_${i + 1}`, port: appPorts[i] as number }))
    const webServers = Array.from({ length: webCount }, (_, i) => ({ name: `web_${i + 1}`, port: appPorts[apiCount + i] as number }))
    const direct = Object.fromEntries([...apiServers, ...webServers].map((s) => [s.name, `http://127.0.0.1:${s.port}`]))

    // PgBouncer refuses to run as root: as root it drops to `postgres`, which must read its files.
    const runAs = process.getuid?.() === 0 ? 'postgres' : null
    if (runAs) {
      const ids = spawnSync('id', ['-u', runAs], { encoding: 'utf8' })
      const uid = Number(ids.stdout.trim())
      if (ids.status !== 0 || !Number.isInteger(uid)) throw new Error(`PgBouncer runs as ${runAs} here, and there is no such user.`)
      chownSync(dir, uid, -1)
    }
    chmodSync(dir, 0o755)
    const bouncer = writePgbouncerConfig({ dir, port: bouncerPort as number, databaseUrl: options.databaseUrl })
    const pgbouncer = spawnProcess(programPath('pgbouncer'), [...(runAs ? ['-u', runAs] : []), bouncer.configFile], {})
    started.push({ name: 'pgbouncer', process: pgbouncer })
    await untilListening(pgbouncer, bouncerPort as number)

    // Counters under a prefix of this topology's own: another test run on the machine, or another
    // topology of this one, shares the Redis server but never a counter.
    pingRedis(redisUrl)
    const redisPrefix = `topology-${randomBytes(6).toString('hex')}:`

    const idpSecret = randomBytes(32).toString('base64url')
    const haproxyFile = join(dir, 'haproxy.cfg')
    writeFileSync(
      haproxyFile,
      haproxyConfig({
        apiPort: apiFront as number,
        webPort: webFront as number,
        statsPort: statsPort as number,
        api: apiServers,
        web: webServers,
        idp: options.idp ? { name: 'idp', port: idpPort as number } : null,
      }),
    )
    const check = spawnSync(programPath('haproxy'), ['-c', '-q', '-f', haproxyFile], { encoding: 'utf8' })
    if (check.status !== 0) throw new Error(`HAProxy refused the generated configuration:\n${check.stdout}${check.stderr}`)

    const shared = {
      DATABASE_URL: bouncer.url,
      // The change feed's LISTEN holds a session: straight to PostgreSQL, past PgBouncer (docs/deploy.md).
      DATABASE_LISTEN_URL: options.databaseUrl,
      DATABASE_PREPARED_STATEMENTS: 'false',
      DATABASE_POOL_SIZE: '10',
      RATE_LIMIT_REDIS_URL: redisUrl,
      RATE_LIMIT_REDIS_PREFIX: redisPrefix,
      TRUST_PROXY: '127.0.0.1',
      API_URL: apiUrl,
      WEB_URL: webUrl,
      // Two web processes on one machine: the content origin's fixed local port would collide.
      CONTENT_URL: 'off',
      AUDIT_PRUNE_INTERVAL_MS: '0',
      SHUTDOWN_TIMEOUT_MS: '3000',
      ...options.env,
    }
    // Cookies signed by one web process are read by the other: one secret for all.
    const sessionSecret = randomBytes(32).toString('base64url')
    const oidc = options.idp
      ? { OIDC_ISSUER: `${webUrl}/dev-oidc`, OIDC_CLIENT_ID: 'quire-web', OIDC_CLIENT_SECRET: idpSecret }
      : ({} as Record<string, string>)

    const starts: Promise<unknown>[] = []
    if (options.idp) {
      const idp = spawnNode(idpMain, { ...oidc, WEB_URL: webUrl, WEB_PORT: String(idpPort), WEB_HOST: '127.0.0.1', LOG_LEVEL: 'warn' })
      started.push({ name: 'idp', process: idp })
      starts.push(untilHealthy(idp, [`http://127.0.0.1:${idpPort}/health`]))
    }
    // All at once, through PgBouncer: each process migrates at start, one transaction under a
    // transaction-scoped advisory lock (docs/deploy.md, "Migrations on deploy"), so on an empty
    // database one of them applies the migrations and the others wait for its commit.
    for (const server of apiServers) {
      const api = spawnNode(apiMain, { ...shared, API_PORT: String(server.port), API_HOST: '127.0.0.1' })
      started.push({ name: server.name, process: api })
      apis.push(api)
      starts.push(untilHealthy(api, [`${direct[server.name]}/health`]))
    }
    for (const server of webServers) {
      const web = spawnNode(webMain, {
        ...shared,
        ...oidc,
        SESSION_SECRET: sessionSecret,
        WEB_PORT: String(server.port),
        WEB_HOST: '127.0.0.1',
      })
      started.push({ name: server.name, process: web })
      webs.push(web)
      starts.push(untilHealthy(web, [`${direct[server.name]}/health`]))
    }
    await settleAll(starts)
    const haproxy = spawnProcess(programPath('haproxy'), ['-db', '-f', haproxyFile], {})
    started.push({ name: 'haproxy', process: haproxy })

    const statsUrl = `http://127.0.0.1:${statsPort}/stats;csv`
    const serverStatus = async () => {
      const csv = await (await fetch(statsUrl, { signal: AbortSignal.timeout(2_000) })).text()
      const status: Record<string, string> = {}
      for (const line of csv.split('\n').slice(1)) {
        const [proxy, server, ...rest] = line.split(',')
        if (!proxy || !server || server === 'FRONTEND' || server === 'BACKEND') continue
        status[`${proxy}/${server}`] = (rest[15] ?? '').split(' ')[0] ?? ''
      }
      return status
    }
    const untilServer = async (backend: string, server: string, want: 'UP' | 'DOWN') => {
      let now: Record<string, string> = {}
      const seen = async () => {
        now = await serverStatus().catch(() => ({}))
        return now[`${backend}/${server}`] === want
      }
      await until(() => `HAProxy to see ${backend}/${server} ${want} (it sees ${JSON.stringify(now)})`, seen, {
        process: haproxy,
        everyMs: 100,
      })
    }
    await settleAll([
      ...apiServers.map((s) => untilServer('api', s.name, 'UP')),
      ...webServers.map((s) => untilServer('web', s.name, 'UP')),
      ...(options.idp ? [untilServer('idp', 'idp', 'UP')] : []),
    ])

    return {
      apiUrl,
      webUrl,
      direct,
      apis,
      webs,
      untilServer,
      serverStatus,
      pids: Object.fromEntries(started.map(({ name, process }) => [name, process.pid])),
      output: () => started.map(({ name, process }) => `--- ${name}\n${process.output()}`).join('\n'),
      stop,
    }
  } catch (error) {
    const output = started.map(({ name, process }) => `--- ${name}\n${process.output()}`).join('\n')
    // What failed first is what is reported; the stop still ends every process.
    await stop().catch(() => {})
    if (error instanceof Error) error.message = `${error.message}\n${output}`
    throw error
  }
}

/** Empties the counters' Redis database, so that a run starts with full budgets. */
function pingRedis(url: string): void {
  const answer = spawnSync('redis-cli', ['-u', url, 'ping'], { encoding: 'utf8', timeout: 5_000 })
  if (answer.status !== 0 || !answer.stdout.includes('PONG'))
    throw new Error(
      `Redis at ${url} did not answer (redis-cli ping: ${answer.stdout}${answer.stderr}); start it or set QUIRE_TEST_REDIS_URL.`,
    )
}
