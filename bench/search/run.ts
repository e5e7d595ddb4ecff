/**
 * bench/search: how fast search answers at 10k and 100k artifacts of realistic Markdown (1–20 KiB),
 * on PostgreSQL and on PGlite, through the real HTTP API (apps/api/src/main.ts, as bench/scale
 * starts it), beside two baselines of the same caller on the same data in the same run: the first
 * page of a team's artifact list (the list operation) and a read by path (a plain indexed lookup).
 *
 * Two realistic callers among hundreds of other users (seed.ts): one a member of 4 of 50 teams,
 * with their own namespace and a few artifacts shared with their email (about 5% of the corpus is
 * theirs to read), one a member of one team (about 1.2%), so the access filter does real work and
 * the cost shows against the size of what the caller reads. Queries: two common words (each
 * in about 40% of the documents), a rare identifier (`ERR_SHARD_LEASE_EXPIRED`: the trigram
 * path), and a Chinese term (the trigram path too). Sequential requests, one connection, in
 * alternating rounds over every database and query; each point: p50/p95 latency, CPU per request,
 * and its p50 against the list's.
 *
 * The databases are seeded once and kept (seed.ts says where and how they are keyed): the first
 * run seeds them (10k ≈ 1 min, 100k ≈ 8 min, PGlite 10k ≈ 1 min on two cores), later runs start at once.
 * `--reseed` seeds anew: needed only when what is indexed changes without a migration changing
 * (storage's search-index.ts, core's `searchResidue`), as the cache key does not cover them.
 *
 *   pnpm bench search [--sizes 10000,100000] [--pglite 10000] [--requests 200] [--rounds 5] [--only rare] [--reseed] [--seed-only]
 *
 * `--pglite 0` leaves PGlite out; `--sizes 10000` is a quick run.
 */
import { parseArgs } from 'node:util'
import { openDatabase } from '@quire/storage'
import type { Kysely } from 'kysely'
import { processCpuMs } from '../api/cpu.ts'
import * as harness from '../harness.ts'
import { CJK_TERM, COMMON_WORDS, RARE_IDENTIFIER } from './corpus.ts'
import { type Caller, parametersFor, pgliteSeeded, postgresSeeded, type Seeded, seededFixtures } from './seed.ts'

const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: '10000,100000' },
    pglite: { type: 'string', default: '10000' },
    requests: { type: 'string', default: '200' },
    rounds: { type: 'string', default: '5' },
    reseed: { type: 'boolean', default: false },
    'seed-only': { type: 'boolean', default: false },
    only: { type: 'string', description: 'measure only the searches whose name contains this (the baselines always)' },
  },
})
const requests = harness.bounded(args, 'requests', 20, 5000)
const rounds = harness.bounded(args, 'rounds', 1, 50)
const sizes = (args.sizes ?? '')
  .split(',')
  .filter(Boolean)
  .map((s) => harness.bounded({ sizes: s }, 'sizes', 100, 1_000_000))
const pgliteSizes = (args.pglite ?? '')
  .split(',')
  .filter((s) => s && s !== '0')
  .map((s) => harness.bounded({ pglite: s }, 'pglite', 100, 100_000))
const adminUrl = process.env.QUIRE_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
/** p95 targets (ms) of the search queries, by engine and size (issue 32). */
const TARGETS: Record<string, number> = { 'PostgreSQL 10k': 50, 'PostgreSQL 100k': 150, 'PGlite 10k': 500 }
const LIMIT = 20

type Engine = 'PostgreSQL' | 'PGlite'
/** One database under test, its server and its caller. */
interface Target {
  readonly engine: Engine
  readonly size: number
  readonly base: string
  readonly pid: number
  readonly database: harness.Server['database'] | null
  readonly f: Seeded
}
interface Query {
  readonly name: string
  readonly search: boolean
  readonly path: (c: Caller) => string
}

const log = (line: string) => process.stderr.write(`${line}\n`)
const count = (n: number) => (n >= 1000 ? `${n / 1000}k` : String(n))
const label = (t: Target) => `${t.engine} ${count(t.size)}`
const percentile = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0
const search = (q: string) => `/api/search?q=${encodeURIComponent(q)}&limit=${LIMIT}`
const queries: Query[] = [
  {
    name: 'list: a team’s artifacts, first page (baseline)',
    search: false,
    path: (c) => `/api/workspaces/${c.teamId}/artifacts?limit=${LIMIT}`,
  },
  { name: 'lookup: an artifact by path', search: false, path: (c) => `/api/by-path/${c.lookupPath}` },
  { name: `search: two common words (${COMMON_WORDS})`, search: true, path: () => search(COMMON_WORDS) },
  { name: `search: rare identifier (${RARE_IDENTIFIER})`, search: true, path: () => search(RARE_IDENTIFIER) },
  { name: `search: CJK term (${CJK_TERM})`, search: true, path: () => search(CJK_TERM) },
]

/** What each search query matches, in the corpus and among what each caller reads (latest versions): context for its figures. */
async function matches(db: Kysely<unknown>, f: Seeded): Promise<string[]> {
  const { sql } = await import('kysely')
  const out: string[] = []
  const where = {
    [COMMON_WORDS]: sql`s.document @@ websearch_to_tsquery('english', ${COMMON_WORDS})`,
    [RARE_IDENTIFIER]: sql`s.residue ILIKE ${`%${RARE_IDENTIFIER.replace(/_/g, '\\_')}%`}`,
    [CJK_TERM]: sql`s.residue ILIKE ${`%${CJK_TERM}%`}`,
  }
  for (const [q, condition] of Object.entries(where)) {
    const counts = [sql`count(*)::int`]
    for (const c of f.callers)
      counts.push(sql`count(*) FILTER (WHERE a.workspace_id IN (SELECT workspace_id FROM memberships WHERE user_id = ${c.userId})
        OR a.viewer_emails @> ARRAY[${c.email}::text])::int`)
    const { rows } = await sql<{ n: number[] }>`SELECT ARRAY[${sql.join(counts)}] AS n
      FROM search_versions s JOIN artifacts a ON a.id = s.artifact_id AND s.number = a.latest_version WHERE ${condition}`.execute(db)
    const n = rows[0]?.n ?? []
    out.push(`${q}: ${n[0]} in the corpus; readable: ${f.callers.map((c, i) => `${n[i + 1]} by the ${c.name} caller`).join(', ')}`)
  }
  return out
}

const cleanup = harness.cleanupOnce('bench/search', 'stopping the servers (the seeded databases stay)', () => harness.stopServers())
try {
  // Seed (or find) every database first, one at a time: nothing is measured meanwhile.
  const seeded: { engine: Engine; size: number; url: string | null; dir: string | null }[] = []
  for (const size of sizes)
    seeded.push({ engine: 'PostgreSQL', size, url: await postgresSeeded(adminUrl, parametersFor(size), !!args.reseed, log), dir: null })
  for (const size of pgliteSizes)
    seeded.push({ engine: 'PGlite', size, url: null, dir: await pgliteSeeded(parametersFor(size), !!args.reseed, log) })
  if (args['seed-only']) process.exit(0)

  const targets: Target[] = []
  const context: string[] = []
  const ports = await harness.freePorts(seeded.length)
  for (const [i, s] of seeded.entries()) {
    const handle = s.url
      ? await openDatabase({ kind: 'postgres', url: s.url, poolSize: 1 })
      : await openDatabase({ kind: 'pglite', dataDir: `${s.dir}/pglite` })
    const db = handle.db as unknown as Kysely<unknown>
    const f = await seededFixtures(db)
    for (const line of await matches(db, f)) context.push(`${s.engine} ${count(s.size)}: ${line}`)
    await handle.close()
    const base = `http://127.0.0.1:${ports[i]}`
    const env: Record<string, string> = { API_PORT: String(ports[i]), LOG_LEVEL: 'warn', RATE_LIMIT_MAX: '1000000000' }
    if (s.url) Object.assign(env, { DATABASE_URL: s.url, DATABASE_POOL_SIZE: '4' })
    else env.QUIRE_DATA_DIR = s.dir ?? ''
    const child = await harness.start('apps/api/src/main.ts', env, [`${base}/health`])
    const database = s.url ? (await harness.watch(child, s.url)).database : null
    targets.push({ engine: s.engine, size: s.size, base, pid: child.pid ?? 0, database, f })
    log(
      `${label(targets[i] as Target)}: ${f.artifacts} artifacts; readable: ${f.callers.map((c) => `${c.readable} by the ${c.name} caller`).join(', ')}`,
    )
  }

  /** One request: whether it answered 200; its hits (a search's or a list's page) go to `state`. */
  const request = async (t: Target, c: Caller, q: Query, state?: State): Promise<boolean> => {
    const response = await fetch(`${t.base}${q.path(c)}`, { headers: { authorization: `Bearer ${c.token}` } })
    const body = (await response.json()) as { items?: unknown[] }
    if (state && body.items) state.hits = body.items.length
    return response.status === 200
  }
  interface State {
    t: Target
    c: Caller
    q: Query
    latencies: number[]
    failures: number
    cpuMs: number
    hits: number | null
  }
  const states: State[] = []
  for (const t of targets)
    for (const c of t.f.callers)
      for (const q of queries.filter((x) => !args.only || x.name.includes(args.only) || !x.search)) {
        // Unmeasured first: the connections, the JIT, the plans and the caches warm.
        for (let i = 0; i < 20; i++) await request(t, c, q)
        states.push({ t, c, q, latencies: [], failures: 0, cpuMs: 0, hits: null })
      }
  const perRound = Math.ceil(requests / rounds)
  for (let round = 0; round < rounds; round++) {
    for (const state of states) {
      const serverBefore = processCpuMs(state.t.pid)
      const databaseBefore = await state.t.database?.sample()
      for (let i = 0; i < perRound; i++) {
        const started = performance.now()
        if (!(await request(state.t, state.c, state.q, state))) state.failures++
        state.latencies.push(performance.now() - started)
      }
      state.cpuMs += processCpuMs(state.t.pid) - serverBefore
      if (state.t.database && databaseBefore) state.cpuMs += await state.t.database.since(databaseBefore)
    }
    log(`round ${round + 1}/${rounds} done`)
  }

  const rows: string[][] = []
  const p50Of = (s: State) =>
    percentile(
      [...s.latencies].sort((x, y) => x - y),
      0.5,
    )
  for (const state of states) {
    const sorted = [...state.latencies].sort((x, y) => x - y)
    const p50 = percentile(sorted, 0.5)
    const p95 = percentile(sorted, 0.95)
    const list = states.find((s) => s.t === state.t && s.c === state.c && s.q.name.startsWith('list'))
    const target = state.q.search ? TARGETS[label(state.t)] : undefined
    rows.push([
      state.t.engine,
      count(state.t.size),
      `${state.c.name}: ${state.c.readable}`,
      state.q.name,
      state.hits === null ? '—' : String(state.hits),
      p50.toFixed(1),
      p95.toFixed(1),
      ((state.cpuMs * 1000) / state.latencies.length).toFixed(0),
      list ? `${(p50 / p50Of(list)).toFixed(2)}×` : '—',
      target === undefined ? '—' : `p95 ≤ ${target}`,
      target === undefined ? '—' : p95 <= target ? 'yes' : 'NO',
      String(state.failures),
    ])
  }
  console.log(
    `\nbench/search: ${perRound * rounds} sequential requests per point in ${rounds} alternating rounds, through the HTTP API, ` +
      `${LIMIT} hits a page, node ${process.version}\n`,
  )
  console.log(
    harness.markdownTable(
      [
        'engine',
        'artifacts',
        'caller: readable',
        'query',
        'hits',
        'p50 ms',
        'p95 ms',
        'CPU µs',
        'p50 / list',
        'target ms',
        'met',
        'failures',
      ],
      rows,
    ),
  )
  console.log(
    `\nCPU µs: per request, the API server + its PostgreSQL backends (PGlite runs inside the server).\nMatches (latest versions):\n${context.map((c) => `- ${c}`).join('\n')}`,
  )
  const failed = states.reduce((n, s) => n + s.failures, 0)
  if (failed > 0) {
    log(`bench/search: ${failed} requests did not answer as they should.`)
    process.exitCode = 1
  }
} finally {
  await cleanup()
}
