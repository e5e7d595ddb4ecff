/**
 * bench/api: Quire's hot paths against a bare Fastify + pg route, in the same run, on the same
 * PostgreSQL, with autocannon on 127.0.0.1. Prints req/s, p99 and Quire/baseline ratios.
 *
 * Reads are spread as real traffic is: each request draws one of `--spread` artifacts (every other
 * one public) of 8 owners with 2 API keys each, against the bare route drawing one of as many rows
 * of the same size. Two cases read one artifact over and over, to show what sharing buys.
 *
 *   pnpm bench api [--duration 5] [--connections 50] [--rounds 5] [--pool 10] [--spread 2000] [--only spread]
 *
 * QUIRE_BENCH_NODE_OPTIONS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`) profiles both servers.
 */
import { finishTestRun } from '@quire/storage/testing'
import type autocannon from 'autocannon'
import pg from 'pg'
import * as harness from '../harness.ts'
import { seed, spreadContent } from './seed.ts'

const { duration, connections, rounds, pool, only, spread } = harness.loadOptions('database pool size, the same on both sides')

/** One row of the table: its target ratio of req/s (null: none, only shown), and one load of each side. */
interface Case {
  name: string
  target: number | null
  quire: () => Promise<harness.Figures>
  baseline: () => Promise<harness.Figures>
}

/** Loads one side for this run's duration, with its connections unless `options` says otherwise. */
const measure = (side: harness.Server, options: autocannon.Options) => harness.load(side, duration, { connections, ...options })

const run = await harness.postgresRun()
const quireDb = await harness.freshDatabase(run)
const baselineDb = await harness.freshDatabase(run)
const cleanup = harness.cleanupOnce('bench/api', 'stopping the servers and dropping the databases', async () => {
  await harness.stopServers()
  await quireDb.close()
  await baselineDb.close()
  await finishTestRun(run)
})
try {
  const seeding = Date.now()
  const fixtures = await seed(quireDb, connections, { owners: 8, keysPerOwner: 2, artifacts: spread })
  process.stderr.write(`seeded ${spread} spread artifacts of 8 owners in ${((Date.now() - seeding) / 1000).toFixed(0)} s\n`)
  const baseline = new pg.Client({ connectionString: baselineDb.url ?? '' })
  await baseline.connect()
  await baseline.query('CREATE TABLE bench_rows (id int PRIMARY KEY, body text NOT NULL)')
  await baseline.query('CREATE TABLE bench_appends (id bigserial PRIMARY KEY, body text NOT NULL)')
  // As many rows as the spread reads, each of its own text and the same size as Quire's.
  const rowCount = Math.max(spread, 100)
  await baseline.query('INSERT INTO bench_rows SELECT n, b FROM unnest($1::text[]) WITH ORDINALITY AS t(b, n)', [
    Array.from({ length: rowCount }, (_, i) => spreadContent(i)),
  ])
  await baseline.query('ANALYZE')
  await baseline.end()

  const [quirePort, barePort] = await harness.freePorts(2)
  const quire = `http://127.0.0.1:${quirePort}`
  const bare = `http://127.0.0.1:${barePort}`
  const quireServer = await harness.start(
    'apps/api/src/main.ts',
    // Rate limiting stays on, as in production; the limit is set out of reach of one token's load.
    {
      DATABASE_URL: quireDb.url ?? '',
      API_PORT: String(quirePort),
      LOG_LEVEL: 'warn',
      DATABASE_POOL_SIZE: String(pool),
      RATE_LIMIT_MAX: '1000000000',
    },
    [`${quire}/health`],
  )
  const bareServer = await harness.start(
    'bench/api/baseline-server.ts',
    { BASELINE_DATABASE_URL: baselineDb.url ?? '', BASELINE_PORT: String(barePort), BASELINE_POOL_SIZE: String(pool) },
    [`${bare}/row/1`],
  )
  const quireSide = await harness.watch(quireServer, quireDb.url ?? '')
  const bareSide = await harness.watch(bareServer, baselineDb.url ?? '')

  const auth = { authorization: `Bearer ${fixtures.token}` }
  // Both servers get the same warm-up (JIT, prepared statements, caches) before anything counts.
  await harness.warm({ connections, url: `${bare}/row/42` })
  await harness.warm({ connections, url: `${quire}/api/artifacts/${fixtures.privateId}/content?version=1`, headers: auth })
  await harness.warm({ connections, url: `${quire}/api/artifacts/${fixtures.longHistoryId}/content`, headers: auth })
  const readBaseline = () => measure(bareSide, { url: `${bare}/row/42` })
  // Appends: each connection keeps to its own artifact and tracks its head across rounds.
  // (autocannon clears a connection's context when it wraps around its request list, so the
  // list is long enough never to wrap within a round.)
  let nextArtifact = 0
  const append = harness.appendRequest(fixtures.content, auth, (ctx) => {
    const context = ctx as { artifactId?: string }
    context.artifactId ??= fixtures.appendIds[nextArtifact++ % fixtures.appendIds.length]
    return context.artifactId as string
  })
  const appendRequests = Array.from({ length: Math.max(1000, duration * 400) }, () => append)
  // Under load, Quire answers the reads of one event-loop turn with one statement (coalesce.ts);
  // one connection at a time there is nothing to share, which shows the per-request cost alone.
  const one = { connections: 1 }
  const ownerSpread = fixtures.spread
  const publicSpread = fixtures.spread.filter((a) => a.publicView)
  /** A random artifact of `list`, read by one of its owner's keys (or anonymously) at `query`. */
  const spreadRead = (list: typeof ownerSpread, query: string, withKey: boolean) =>
    harness.spreadRequest(list.length, (i) => {
      const a = list[i] as (typeof list)[number]
      const key = a.keys[Math.floor(Math.random() * a.keys.length)] ?? ''
      const headers: Record<string, string> = withKey ? { authorization: `Bearer ${key}` } : {}
      return { path: `/api/artifacts/${a.id}/content${query}`, headers }
    })
  const bareSpread = harness.spreadRequest(rowCount, (i) => ({ path: `/row/${i + 1}` }))
  const spreadBaseline = (options: Partial<autocannon.Options> = {}) => measure(bareSide, { url: bare, requests: [bareSpread], ...options })
  const spreadQuire = (request: autocannon.Request, options: Partial<autocannon.Options> = {}) =>
    measure(quireSide, { url: quire, requests: [request], ...options })
  await harness.warm({ connections, url: bare, requests: [bareSpread] })
  await harness.warm({ connections, url: quire, requests: [spreadRead(ownerSpread, '', true)] })
  await harness.warm({ connections, url: quire, requests: [spreadRead(ownerSpread, '?version=1', true)] })
  await harness.warm({ connections, url: quire, requests: [spreadRead(publicSpread, '?version=1', false)] })
  const cases: Case[] = [
    {
      name: `spread: latest version of ${ownerSpread.length} artifacts, owners' API keys`,
      target: 1.0,
      quire: () => spreadQuire(spreadRead(ownerSpread, '', true)),
      baseline: () => spreadBaseline(),
    },
    {
      name: `spread: pinned version of ${ownerSpread.length} artifacts, owners' API keys`,
      target: 1.0,
      quire: () => spreadQuire(spreadRead(ownerSpread, '?version=1', true)),
      baseline: () => spreadBaseline(),
    },
    {
      name: `spread: pinned version of ${publicSpread.length} public artifacts, anonymous`,
      target: 1.0,
      quire: () => spreadQuire(spreadRead(publicSpread, '?version=1', false)),
      baseline: () => spreadBaseline(),
    },
    {
      name: 'spread: pinned version, owner key, 1 connection',
      target: 0.8,
      quire: () => spreadQuire(spreadRead(ownerSpread, '?version=1', true), one),
      baseline: () => spreadBaseline(one),
    },
    {
      name: 'one artifact: pinned version, owner API key',
      target: 0.8,
      quire: () => measure(quireSide, { url: `${quire}/api/artifacts/${fixtures.privateId}/content?version=1`, headers: auth }),
      baseline: readBaseline,
    },
    {
      name: 'one artifact: latest of 10,000 versions, owner',
      target: 0.8,
      quire: () => measure(quireSide, { url: `${quire}/api/artifacts/${fixtures.longHistoryId}/content`, headers: auth }),
      baseline: readBaseline,
    },
    {
      name: 'append a version, owner API key',
      target: 0.6,
      quire: () => measure(quireSide, { url: quire, requests: appendRequests }),
      baseline: () =>
        measure(bareSide, {
          url: `${bare}/row`,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ body: fixtures.content }),
        }),
    },
  ]

  const rows: string[][] = []
  for (const c of cases.filter((x) => !only || x.name.includes(only))) {
    const sides = await harness.alternate(rounds, c.baseline, c.quire)
    const b = harness.medians(sides.baseline)
    const q = harness.medians(sides.quire)
    const ratio = q.rps / b.rps
    const quireNon2xx = sides.quire.reduce((n, x) => n + x.errors + x.non2xx, 0)
    rows.push([c.name, ...harness.sideCells(b), ...harness.sideCells(q), ...harness.ratioCells(ratio, c.target), String(quireNon2xx)])
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
  console.log(
    `\nbench/api: ${connections} connections, ${rounds} alternating rounds of ${duration} s per side (medians), PostgreSQL, node ${process.version}\n`,
  )
  console.log(harness.markdownTable(header, rows))
  console.log(
    '\nCPU µs: CPU time per request in the server process + in its PostgreSQL backends (from /proc).\n' +
      'Appends: a round stops with requests in flight, so each later round starts with one 409 per connection\n' +
      '(the connection learns the head from it); those are the non-2xx counted. Reads must show 0.',
  )
} finally {
  await cleanup()
}
