/**
 * bench/api: Quire's hot paths against a bare Fastify + pg route, in the same run, on the same
 * PostgreSQL, with autocannon on 127.0.0.1. Prints req/s, p99 and Quire/baseline ratios.
 *
 *   node --conditions=source bench/api/run.ts [--duration 10] [--connections 50]
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'
import pg from 'pg'
import { prepareTestRun, freshTestDatabase, finishTestRun } from '@quire/storage/testing'
import { seed } from './seed.ts'

const { values: args } = parseArgs({ options: { duration: { type: 'string', default: '10' }, connections: { type: 'string', default: '50' } } })
const duration = Number(args.duration)
const connections = Number(args.connections)
const root = resolve(import.meta.dirname, '../..')
const adminUrl = process.env.QUIRE_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

function start(script: string, env: Record<string, string>, readyUrl: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--conditions=source', script], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] })
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
}

async function load(options: autocannon.Options): Promise<Figures> {
  const result = await autocannon({ connections, duration, ...options })
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors, non2xx: result.non2xx }
}

async function warm(url: string, headers: Record<string, string> = {}) {
  await autocannon({ url, connections, duration: 2, headers })
}

const run = await prepareTestRun({ pgAdminUrl: adminUrl, snapshotPath: '/dev/null', engines: ['postgres'] })
const quireDb = await freshTestDatabase(run, 'postgres', { poolSize: 2 })
const baselineDb = await freshTestDatabase(run, 'postgres', { poolSize: 2 })
const children: ChildProcess[] = []
try {
  const fixtures = await seed(quireDb, connections)
  const baseline = new pg.Client({ connectionString: baselineDb.url ?? '' })
  await baseline.connect()
  await baseline.query('CREATE TABLE bench_rows (id int PRIMARY KEY, body text NOT NULL)')
  await baseline.query('CREATE TABLE bench_appends (id bigserial PRIMARY KEY, body text NOT NULL)')
  await baseline.query('INSERT INTO bench_rows SELECT n, $1 FROM generate_series(1, 10000) n', [fixtures.content])
  await baseline.end()

  const quire = 'http://127.0.0.1:3100'
  const bare = 'http://127.0.0.1:3101'
  children.push(await start('apps/api/src/main.ts', { DATABASE_URL: quireDb.url ?? '', API_PORT: '3100', LOG_LEVEL: 'warn', DATABASE_POOL_SIZE: '10' }, `${quire}/health`))
  children.push(await start('bench/api/baseline-server.ts', { BASELINE_DATABASE_URL: baselineDb.url ?? '', BASELINE_PORT: '3101' }, `${bare}/row/1`))

  const auth = { authorization: `Bearer ${fixtures.token}` }
  const readBaseline = async () => {
    await warm(`${bare}/row/42`)
    return load({ url: `${bare}/row/42` })
  }
  const cases: { name: string; target: number; quire: () => Promise<Figures>; baseline: () => Promise<Figures> }[] = [
    {
      name: 'public pinned, anonymous',
      target: 0.9,
      quire: async () => {
        await warm(`${quire}/api/artifacts/${fixtures.publicId}/content?version=1`)
        return load({ url: `${quire}/api/artifacts/${fixtures.publicId}/content?version=1` })
      },
      baseline: readBaseline,
    },
    {
      name: 'private pinned, owner API key',
      target: 0.8,
      quire: async () => {
        await warm(`${quire}/api/artifacts/${fixtures.privateId}/content?version=1`, auth)
        return load({ url: `${quire}/api/artifacts/${fixtures.privateId}/content?version=1`, headers: auth })
      },
      baseline: readBaseline,
    },
    {
      name: 'latest version, owner API key',
      target: 0.8,
      quire: () => load({ url: `${quire}/api/artifacts/${fixtures.privateId}/content`, headers: auth }),
      baseline: readBaseline,
    },
    {
      name: 'latest of 10,000 versions, owner',
      target: 0.8,
      quire: () => load({ url: `${quire}/api/artifacts/${fixtures.longHistoryId}/content`, headers: auth }),
      baseline: readBaseline,
    },
    {
      name: 'append a version, owner API key',
      target: 0.4,
      quire: () => {
        let next = 0
        const append: autocannon.Request = {
          method: 'POST',
          setupRequest: (req, context: Record<string, unknown>) => {
            if (context.artifactId === undefined) {
              context.artifactId = fixtures.appendIds[next++ % fixtures.appendIds.length]
              context.version = 1
            }
            return {
              ...req,
              path: `/api/artifacts/${context.artifactId}/versions`,
              headers: { ...auth, 'content-type': 'application/json' },
              body: JSON.stringify({ content: `${fixtures.content}${context.version}`, expectedLatestVersion: context.version }),
            }
          },
          onResponse: (status, body, context: Record<string, unknown>) => {
            if (status === 201) context.version = (context.version as number) + 1
            else if (status === 409) context.version = (JSON.parse(body) as { latestVersion: number }).latestVersion
          },
        }
        // autocannon clears a connection's context each time it wraps around its request list;
        // a long list keeps each connection on its own artifact for the whole run.
        return load({ url: quire, requests: Array.from({ length: 100_000 }, () => append) })
      },
      baseline: () =>
        load({ url: `${bare}/row`, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ body: fixtures.content }) }),
    },
  ]

  const rows: string[][] = []
  for (const c of cases) {
    const b = await c.baseline()
    const q = await c.quire()
    const ratio = q.rps / b.rps
    rows.push([c.name, b.rps.toFixed(0), `${b.p99} ms`, q.rps.toFixed(0), `${q.p99} ms`, `${ratio.toFixed(2)}×`, `≥ ${c.target}×`, ratio >= c.target ? 'yes' : 'NO', String(q.errors + q.non2xx)])
    process.stderr.write(`${c.name}: baseline ${b.rps.toFixed(0)} req/s, quire ${q.rps.toFixed(0)} req/s (${ratio.toFixed(2)}×)\n`)
  }
  const header = ['case', 'baseline req/s', 'baseline p99', 'quire req/s', 'quire p99', 'ratio', 'target', 'met', 'quire errors+non-2xx']
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)))
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`
  console.log(`\nbench/api: ${connections} connections, ${duration} s per side, PostgreSQL, node ${process.version}\n`)
  console.log(line(header))
  console.log(line(widths.map((w) => '-'.repeat(w))))
  for (const r of rows) console.log(line(r))
} finally {
  for (const child of children) child.kill('SIGTERM')
  await quireDb.close()
  await baselineDb.close()
  await finishTestRun(run)
}
