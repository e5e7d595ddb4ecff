/**
 * bench/api: Quire's hot paths against a bare Fastify + pg route, in the same run, on the same
 * PostgreSQL, with autocannon on 127.0.0.1. Prints req/s, p99 and Quire/baseline ratios.
 *
 *   node --conditions=source bench/api/run.ts [--duration 10] [--connections 50]
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { finishTestRun, freshTestDatabase, prepareTestRun } from '@quire/storage/testing'
import autocannon from 'autocannon'
import pg from 'pg'
import { freePort } from '../../tooling/vitest/free-port.ts'
import { databaseCpu, processCpuMs } from './cpu.ts'
import { seed } from './seed.ts'

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '5' },
    pool: { type: 'string', default: '10', description: 'database pool size, the same on both sides' },
    only: { type: 'string', description: 'run only cases whose name contains this' },
  },
})
const duration = Number(args.duration)
const rounds = Number(args.rounds)
const connections = Number(args.connections)
const root = resolve(import.meta.dirname, '../..')
const adminUrl = process.env.QUIRE_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

function start(script: string, env: Record<string, string>, readyUrl: string): Promise<ChildProcess> {
  // QUIRE_BENCH_NODE_OPTIONS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`) profiles both servers.
  const extra = (process.env.QUIRE_BENCH_NODE_OPTIONS ?? '').split(' ').filter(Boolean)
  const child = spawn(process.execPath, [...extra, '--conditions=source', script], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  return new Promise((resolveReady, reject) => {
    const deadline = Date.now() + 30_000
    const poll = async () => {
      try {
        if ((await fetch(readyUrl)).status < 500) return resolveReady(child)
      } catch {}
      if (Date.now() > deadline || child.exitCode !== null) return reject(new Error(`${script} did not start`))
      setTimeout(poll, 100)
    }
    void poll()
  })
}

interface Figures {
  rps: number
  p99: number
  errors: number
  non2xx: number
  /** CPU µs per request in the server process, and in its PostgreSQL backends. */
  serverCpu: number
  databaseCpu: number
}

/** One server under test: its process and the backends of its database, for CPU accounting. */
interface Side {
  readonly pid: number
  readonly database: Awaited<ReturnType<typeof databaseCpu>>
}

async function load(side: Side, options: autocannon.Options): Promise<Figures> {
  // One unmeasured second first: a server left idle while the other side ran has shrunk its heap
  // and cooled down; what we compare is steady-state throughput.
  await autocannon({ connections, ...options, duration: 1 })
  const serverBefore = processCpuMs(side.pid)
  const databaseBefore = await side.database.sample()
  const result = await autocannon({ connections, duration, ...options })
  const serverMs = processCpuMs(side.pid) - serverBefore
  const databaseMs = await side.database.since(databaseBefore)
  const requests = Math.max(1, result.requests.total)
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
    serverCpu: (serverMs * 1000) / requests,
    databaseCpu: (databaseMs * 1000) / requests,
  }
}

async function warm(url: string, headers: Record<string, string> = {}) {
  await autocannon({ url, connections, duration: 2, headers })
}

const run = await prepareTestRun({ pgAdminUrl: adminUrl, snapshotPath: '/dev/null', engines: ['postgres'] })
const quireDb = await freshTestDatabase(run, 'postgres', { poolSize: 2 })
const baselineDb = await freshTestDatabase(run, 'postgres', { poolSize: 2 })
const children: ChildProcess[] = []
const monitors: { close(): Promise<void> }[] = []
try {
  const fixtures = await seed(quireDb, connections)
  const baseline = new pg.Client({ connectionString: baselineDb.url ?? '' })
  await baseline.connect()
  await baseline.query('CREATE TABLE bench_rows (id int PRIMARY KEY, body text NOT NULL)')
  await baseline.query('CREATE TABLE bench_appends (id bigserial PRIMARY KEY, body text NOT NULL)')
  await baseline.query('INSERT INTO bench_rows SELECT n, $1 FROM generate_series(1, 10000) n', [fixtures.content])
  await baseline.end()

  // Ports nobody listens on: a server left running elsewhere must never answer in place of ours.
  const quirePort = await freePort()
  let barePort = await freePort()
  while (barePort === quirePort) barePort = await freePort()
  const quire = `http://127.0.0.1:${quirePort}`
  const bare = `http://127.0.0.1:${barePort}`
  const quireServer = await start(
    'apps/api/src/main.ts',
    // Rate limiting stays on, as in production; the limit is set out of reach of one token's load.
    {
      DATABASE_URL: quireDb.url ?? '',
      API_PORT: String(quirePort),
      LOG_LEVEL: 'warn',
      DATABASE_POOL_SIZE: args.pool,
      RATE_LIMIT_MAX: '1000000000',
    },
    `${quire}/health`,
  )
  children.push(quireServer)
  const bareServer = await start(
    'bench/api/baseline-server.ts',
    { BASELINE_DATABASE_URL: baselineDb.url ?? '', BASELINE_PORT: String(barePort), BASELINE_POOL_SIZE: args.pool },
    `${bare}/row/1`,
  )
  children.push(bareServer)
  const quireSide: Side = { pid: quireServer.pid ?? 0, database: await databaseCpu(quireDb.url ?? '') }
  const bareSide: Side = { pid: bareServer.pid ?? 0, database: await databaseCpu(baselineDb.url ?? '') }
  monitors.push(quireSide.database, bareSide.database)

  const auth = { authorization: `Bearer ${fixtures.token}` }
  // Both servers get the same warm-up (JIT, prepared statements, caches) before anything counts.
  await warm(`${bare}/row/42`)
  await warm(`${quire}/api/artifacts/${fixtures.publicId}/content?version=1`)
  await warm(`${quire}/api/artifacts/${fixtures.privateId}/content?version=1`, auth)
  await warm(`${quire}/api/artifacts/${fixtures.privateId}/content`, auth)
  await warm(`${quire}/api/artifacts/${fixtures.longHistoryId}/content`, auth)
  const readBaseline = () => load(bareSide, { url: `${bare}/row/42` })
  // Appends: each connection keeps to its own artifact and tracks its head across rounds.
  // (autocannon clears a connection's context when it wraps around its request list, so the
  // list is long enough never to wrap within a round.)
  const heads = new Map<string, number>()
  let nextArtifact = 0
  const append: autocannon.Request = {
    method: 'POST',
    setupRequest: (req, ctx) => {
      const context = ctx as { artifactId?: string }
      context.artifactId ??= fixtures.appendIds[nextArtifact++ % fixtures.appendIds.length]
      const id = context.artifactId as string
      const head = heads.get(id) ?? 1
      return {
        ...req,
        path: `/api/artifacts/${id}/versions`,
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ content: `${fixtures.content}${head}`, expectedLatestVersion: head }),
      }
    },
    onResponse: (status, body, ctx) => {
      const id = (ctx as { artifactId: string }).artifactId
      if (status === 201) heads.set(id, (heads.get(id) ?? 1) + 1)
      else if (status === 409) heads.set(id, (JSON.parse(body) as { latestVersion: number }).latestVersion)
    },
  }
  const appendRequests = Array.from({ length: Math.max(1000, duration * 400) }, () => append)
  // Under load, Quire answers the reads of one event-loop turn with one statement (coalesce.ts);
  // one connection at a time there is nothing to share, which shows the per-request cost alone.
  const one = { connections: 1 }
  const cases: { name: string; target: number | null; quire: () => Promise<Figures>; baseline: () => Promise<Figures> }[] = [
    {
      name: 'public pinned, anonymous',
      target: 0.9,
      quire: () => load(quireSide, { url: `${quire}/api/artifacts/${fixtures.publicId}/content?version=1` }),
      baseline: readBaseline,
    },
    {
      name: 'private pinned, owner API key',
      target: 0.8,
      quire: () => load(quireSide, { url: `${quire}/api/artifacts/${fixtures.privateId}/content?version=1`, headers: auth }),
      baseline: readBaseline,
    },
    {
      name: 'latest version, owner API key',
      target: 0.8,
      quire: () => load(quireSide, { url: `${quire}/api/artifacts/${fixtures.privateId}/content`, headers: auth }),
      baseline: readBaseline,
    },
    {
      name: 'latest of 10,000 versions, owner',
      target: 0.8,
      quire: () => load(quireSide, { url: `${quire}/api/artifacts/${fixtures.longHistoryId}/content`, headers: auth }),
      baseline: readBaseline,
    },
    {
      name: 'private pinned, owner, 1 connection',
      target: null,
      quire: () => load(quireSide, { url: `${quire}/api/artifacts/${fixtures.privateId}/content?version=1`, headers: auth, ...one }),
      baseline: () => load(bareSide, { url: `${bare}/row/42`, ...one }),
    },
    {
      name: 'append a version, owner API key',
      target: 0.4,
      quire: () => load(quireSide, { url: quire, requests: appendRequests }),
      baseline: () =>
        load(bareSide, {
          url: `${bare}/row`,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ body: fixtures.content }),
        }),
    },
  ]

  // Sides alternate (baseline, Quire, baseline, …) and each figure is the median of its rounds,
  // so a noisy neighbour on this two-core machine hits both sides alike.
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)] ?? 0
  const rows: string[][] = []
  for (const c of cases.filter((x) => !args.only || x.name.includes(args.only))) {
    const bs: Figures[] = []
    const qs: Figures[] = []
    for (let round = 0; round < rounds; round++) {
      bs.push(await c.baseline())
      qs.push(await c.quire())
    }
    const cpu = (xs: Figures[]) => `${median(xs.map((x) => x.serverCpu)).toFixed(0)} + ${median(xs.map((x) => x.databaseCpu)).toFixed(0)}`
    const b = { rps: median(bs.map((x) => x.rps)), p99: median(bs.map((x) => x.p99)) }
    const q = {
      rps: median(qs.map((x) => x.rps)),
      p99: median(qs.map((x) => x.p99)),
      errors: qs.reduce((n, x) => n + x.errors, 0),
      non2xx: qs.reduce((n, x) => n + x.non2xx, 0),
    }
    const ratio = q.rps / b.rps
    rows.push([
      c.name,
      b.rps.toFixed(0),
      `${b.p99} ms`,
      cpu(bs),
      q.rps.toFixed(0),
      `${q.p99} ms`,
      cpu(qs),
      `${ratio.toFixed(2)}×`,
      c.target === null ? '—' : `≥ ${c.target}×`,
      c.target === null ? '—' : ratio >= c.target ? 'yes' : 'NO',
      String(q.errors + q.non2xx),
    ])
    process.stderr.write(`${c.name}: baseline ${b.rps.toFixed(0)} req/s, quire ${q.rps.toFixed(0)} req/s (${ratio.toFixed(2)}×)\n`)
  }
  const header = [
    'case',
    'baseline req/s',
    'baseline p99',
    'baseline CPU µs',
    'quire req/s',
    'quire p99',
    'quire CPU µs',
    'ratio',
    'target',
    'met',
    'quire non-2xx',
  ]
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)))
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`
  console.log(
    `\nbench/api: ${connections} connections, ${rounds} alternating rounds of ${duration} s per side (medians), PostgreSQL, node ${process.version}\n`,
  )
  console.log(line(header))
  console.log(line(widths.map((w) => '-'.repeat(w))))
  for (const r of rows) console.log(line(r))
  console.log(
    '\nCPU µs: CPU time per request in the server process + in its PostgreSQL backends (from /proc).\n' +
      'Appends: a round stops with requests in flight, so each later round starts with one 409 per connection\n' +
      '(the connection learns the head from it); those are the non-2xx counted. Reads must show 0.',
  )
} finally {
  await Promise.all(monitors.map((m) => m.close()))
  await Promise.all(
    children.map(
      (child) =>
        new Promise((done) => {
          if (child.exitCode !== null) return done(null)
          child.once('exit', done)
          child.kill('SIGTERM')
        }),
    ),
  )
  await quireDb.close()
  await baselineDb.close()
  await finishTestRun(run)
}
