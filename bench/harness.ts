/**
 * What the server benchmarks (bench/api, bench/mcp) share: their options, the PostgreSQL they run
 * on, the server processes they start and stop, the measuring of one side of a case with
 * autocannon and /proc, the cleanup however a run ends, and the markdown table they print.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { freshTestDatabase, prepareTestRun, type TestRun } from '@quire/storage/testing'
import { freePort } from '@quire/testing/free-port'
import autocannon from 'autocannon'
import { databaseCpu, processCpuMs } from './api/cpu.ts'

/** The repository root: servers start from it, as `pnpm start` starts them. */
const root = resolve(import.meta.dirname, '..')

/** A whole number in [min, max], or exit 2 naming the option: every run is bounded. */
export function bounded<Name extends string>(args: Partial<Record<Name, string>>, name: Name, min: number, max: number): number {
  const value = Number(args[name])
  if (Number.isInteger(value) && value >= min && value <= max) return value
  process.stderr.write(`--${name} takes a whole number from ${min} to ${max}, not ${JSON.stringify(args[name])}.\n`)
  process.exit(2)
}

/** The options of a server benchmark, checked. */
export interface LoadOptions {
  /** Seconds measured per side and round. */
  readonly duration: number
  readonly connections: number
  readonly rounds: number
  /** The database pool size of each server under test. */
  readonly pool: number
  /** Run only the cases whose name contains this. */
  readonly only: string | undefined
  /** How many artifacts (and bare rows) the spread cases read at random. */
  readonly spread: number
}

/** Parses the command line of a server benchmark; `poolMeaning` says whose pool `--pool` sizes, in its help. */
export function loadOptions(poolMeaning: string): LoadOptions {
  const { values: args } = parseArgs({
    options: {
      duration: { type: 'string', default: '5' },
      connections: { type: 'string', default: '50' },
      rounds: { type: 'string', default: '5' },
      pool: { type: 'string', default: '10', description: poolMeaning },
      only: { type: 'string', description: 'run only cases whose name contains this' },
      spread: { type: 'string', default: '2000', description: 'artifacts (and bare rows) read at random by the spread cases' },
    },
  })
  return {
    duration: bounded(args, 'duration', 1, 60),
    connections: bounded(args, 'connections', 1, 500),
    rounds: bounded(args, 'rounds', 1, 21),
    pool: bounded(args, 'pool', 1, 200),
    only: args.only,
    spread: bounded(args, 'spread', 2, 100_000),
  }
}

/** A test run on the PostgreSQL of QUIRE_BENCH_PG_URL (default: the local one), whose databases are dropped at its end. */
export function postgresRun(): Promise<TestRun> {
  const adminUrl = process.env.QUIRE_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
  return prepareTestRun({ pgAdminUrl: adminUrl, snapshotPath: '/dev/null', engines: ['postgres'] })
}

/** A new, migrated database of `run`; its small pool is the seeding's, the servers open their own. */
export function freshDatabase(run: TestRun) {
  return freshTestDatabase(run, 'postgres', { poolSize: 2 })
}

/** `count` different ports nobody listens on: a server left running elsewhere must never answer in place of ours. */
export async function freePorts(count: number): Promise<number[]> {
  const ports = new Set<number>()
  while (ports.size < count) ports.add(await freePort())
  return [...ports]
}

/** The servers started by this process, stopped by `stopServers`. */
const children: ChildProcess[] = []
/** The CPU watchers opened by `watch`, closed by `stopServers`. */
const monitors: { close(): Promise<void> }[] = []

/**
 * Starts `script` (from the repository root, with the `source` condition) and resolves once every
 * URL of `readyUrls` answers (below 500), within 30 s. QUIRE_BENCH_NODE_OPTIONS (e.g.
 * `--cpu-prof --cpu-prof-dir=/tmp/prof`) goes to every server, to profile them.
 */
export function start(script: string, env: Record<string, string>, readyUrls: readonly string[]): Promise<ChildProcess> {
  const extra = (process.env.QUIRE_BENCH_NODE_OPTIONS ?? '').split(' ').filter(Boolean)
  const child = spawn(process.execPath, [...extra, '--conditions=source', script], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  children.push(child)
  return new Promise((resolveReady, reject) => {
    const deadline = Date.now() + 30_000
    const poll = async () => {
      try {
        const answers = await Promise.all(readyUrls.map((url) => fetch(url).then((r) => r.status)))
        if (answers.every((status) => status < 500)) return resolveReady(child)
      } catch {}
      if (Date.now() > deadline || child.exitCode !== null) return reject(new Error(`${script} did not start`))
      setTimeout(poll, 100)
    }
    void poll()
  })
}

/** Closes the CPU watchers and stops every server `start` started (SIGTERM, SIGKILL after 15 s). */
export async function stopServers(): Promise<void> {
  await Promise.allSettled(monitors.map((m) => m.close()))
  await Promise.all(
    children.map(
      (child) =>
        new Promise((done) => {
          if (child.exitCode !== null || child.signalCode !== null) return done(null)
          child.once('exit', done)
          child.kill('SIGTERM')
          // A server that does not drain in time is not left behind.
          setTimeout(() => child.kill('SIGKILL'), 15_000).unref()
        }),
    ),
  )
}

/**
 * `steps` (which should call `stopServers`) made to run once however the run ends: at the end,
 * or on SIGINT or SIGTERM (Ctrl-C, a CI timeout), then out with 130; a second signal leaves at once.
 * `doing` says what the steps do, in the line printed on a signal.
 */
export function cleanupOnce(label: string, doing: string, steps: () => Promise<void>): () => Promise<void> {
  let cleaning: Promise<void> | null = null
  const cleanup = () => (cleaning ??= steps())
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.on(signal, () => {
      if (cleaning) process.exit(130)
      process.stderr.write(`\n${label}: ${signal}, ${doing}…\n`)
      void cleanup().finally(() => process.exit(130))
    })
  return cleanup
}

/** A server under test: its process and the backends of its database, for CPU accounting. */
export interface Server {
  readonly pid: number
  readonly database: Awaited<ReturnType<typeof databaseCpu>>
}

/** Watches `child` and the backends of the database at `databaseUrl`; `stopServers` closes the watcher. */
export async function watch(child: ChildProcess, databaseUrl: string): Promise<Server> {
  const database = await databaseCpu(databaseUrl)
  monitors.push(database)
  return { pid: child.pid ?? 0, database }
}

/** What one measured load of one side gave. */
export interface Figures {
  rps: number
  p99: number
  /** Socket errors (timeouts among them), timeouts, non-2xx answers, and bodies other than `expectBody`. */
  errors: number
  timeouts: number
  non2xx: number
  mismatches: number
  /** CPU µs per request in the server process, and in its PostgreSQL backends. */
  serverCpu: number
  databaseCpu: number
}

/** Loads `server` as `options` say for `duration` seconds, after one unmeasured second. */
export async function load(server: Server, duration: number, options: autocannon.Options): Promise<Figures> {
  // One unmeasured second first: a side left idle while the other ran has shrunk its heap and
  // cooled down; what we compare is steady-state throughput.
  await autocannon({ ...options, duration: 1 })
  const serverBefore = processCpuMs(server.pid)
  const databaseBefore = await server.database.sample()
  const result = await autocannon({ ...options, duration })
  const serverMs = processCpuMs(server.pid) - serverBefore
  const databaseMs = await server.database.since(databaseBefore)
  const requests = Math.max(1, result.requests.total)
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    mismatches: result.mismatches,
    serverCpu: (serverMs * 1000) / requests,
    databaseCpu: (databaseMs * 1000) / requests,
  }
}

/** Two unmeasured seconds of `options`: every side gets the same warm-up (JIT, prepared statements, caches) before anything counts. */
export async function warm(options: autocannon.Options): Promise<void> {
  await autocannon({ ...options, duration: 2 })
}

/**
 * `rounds` rounds of `baseline` then `quire`, alternating, so that a noisy neighbour on this
 * two-core machine hits both sides alike; the figures of each side, round by round.
 */
export async function alternate(
  rounds: number,
  baseline: () => Promise<Figures>,
  quire: () => Promise<Figures>,
): Promise<{ baseline: Figures[]; quire: Figures[] }> {
  const sides = { baseline: [] as Figures[], quire: [] as Figures[] }
  for (let round = 0; round < rounds; round++) {
    sides.baseline.push(await baseline())
    sides.quire.push(await quire())
  }
  return sides
}

/** The middle value (the upper one of an even count): one noisy round does not move it. */
export function median(xs: readonly number[]): number {
  return [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)] ?? 0
}

/** One side of a case over its rounds: median req/s and p99, and median CPU µs per request as `server + database`. */
/** Socket errors and timeouts, non-2xx answers, and 2xx answers whose body is not the expected one, over all rounds. */
export function failures(xs: readonly Figures[]): number {
  return xs.reduce((n, x) => n + x.errors + x.timeouts + x.non2xx + x.mismatches, 0)
}

export function medians(xs: Figures[]): { rps: number; p99: number; cpu: string } {
  return {
    rps: median(xs.map((x) => x.rps)),
    p99: median(xs.map((x) => x.p99)),
    cpu: `${median(xs.map((x) => x.serverCpu)).toFixed(0)} + ${median(xs.map((x) => x.databaseCpu)).toFixed(0)}`,
  }
}

/** The table cells of one side: req/s, p99, CPU µs. */
export function sideCells(side: { rps: number; p99: number; cpu: string }): string[] {
  return [side.rps.toFixed(0), `${side.p99} ms`, side.cpu]
}

/** The table cells ratio, target and met, for a ratio of req/s against its target (null: none, only shown). */
export function ratioCells(ratio: number, target: number | null): string[] {
  if (target === null) return [`${ratio.toFixed(2)}×`, '—', '—']
  return [`${ratio.toFixed(2)}×`, `≥ ${target}×`, ratio >= target ? 'yes' : 'NO']
}

/** A markdown table, its columns padded to their widest cell so it reads as well in a terminal. */
export function markdownTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)))
  const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(' | ')} |`
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n')
}

/**
 * A GET of a random one of `count` things for every request: `pick(i)` gives the path and headers
 * of thing `i`. Each request draws anew (a per-request `setupRequest`), so the connections do not
 * walk one list in step and requests of one event-loop turn rarely share a row, as in real traffic.
 */
export function spreadRequest(count: number, pick: (i: number) => { path: string; headers?: Record<string, string> }): autocannon.Request {
  return {
    method: 'GET',
    setupRequest: (req) => {
      const { path, headers } = pick(Math.floor(Math.random() * count))
      return { ...req, path, headers: headers ?? {} }
    },
  }
}

/**
 * A POST that appends a version to the artifact `artifactOf(ctx)` names for the connection,
 * tracking each artifact's head so that `expectedLatestVersion` is right (a 409 tells the new one).
 * `artifactOf` must answer the same artifact for a connection every time.
 */
export function appendRequest(content: string, auth: Record<string, string>, artifactOf: (ctx: unknown) => string): autocannon.Request {
  const heads = new Map<string, number>()
  return {
    method: 'POST',
    setupRequest: (req, ctx) => {
      const id = artifactOf(ctx)
      const head = heads.get(id) ?? 1
      return {
        ...req,
        path: `/api/artifacts/${id}/versions`,
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ content: `${content}${head}`, expectedLatestVersion: head }),
      }
    },
    onResponse: (status, body, ctx) => {
      const id = artifactOf(ctx)
      if (status === 201) heads.set(id, (heads.get(id) ?? 1) + 1)
      else if (status === 409) heads.set(id, (JSON.parse(body) as { latestVersion: number }).latestVersion)
    },
  }
}
