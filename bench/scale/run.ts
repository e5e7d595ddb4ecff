/**
 * bench/scale: how the cost of each operation grows with the data, on PostgreSQL. One database per
 * size, seeded by bulk SQL (seed.ts), each with its API server (apps/api/src/main.ts, as bench/api
 * starts it): 1k, 10k, 100k and 1M artifacts (the caller's own namespaces hold few of them, other
 * owners the rest); in each, histories of 1, 100 and 10k versions and workspace trails of 10, 1k
 * and 100k audit events. Sequential requests, in alternating rounds over the sizes. Each point:
 * p50/p95 latency and server + PostgreSQL CPU per request; each operation: whether it stays flat.
 * Writes the chart as SVG.
 *
 *   pnpm bench scale [--requests 300] [--rounds 5] [--max 1000000] [--owners 10] [--only profile] [--chart docs/bench-scale.svg]
 *
 * `--max 100000` stops the artifact series at 100k (a quick run).
 */
import { writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { finishTestRun } from '@quire/storage/testing'
import { processCpuMs } from '../api/cpu.ts'
import * as harness from '../harness.ts'
import { renderChart } from './chart.ts'
import { CALLER_ARTIFACTS, content, type Fixtures, seedFixtures } from './seed.ts'

const { values: args } = parseArgs({
  options: {
    requests: { type: 'string', default: '300' },
    max: { type: 'string', default: '1000000' },
    chart: { type: 'string', default: 'docs/bench-scale.svg' },
    owners: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '5' },
    only: { type: 'string', description: 'measure only operations whose name contains this' },
  },
})
const requests = harness.bounded(args, 'requests', 20, 5000)
const max = harness.bounded(args, 'max', 1000, 1_000_000)
const owners = harness.bounded(args, 'owners', 1, 100_000)
const rounds = harness.bounded(args, 'rounds', 1, 50)
const chosen = (operations: Operation[]) => operations.filter((o) => !args.only || o.name.includes(args.only))
const artifactSizes = [1000, 10_000, 100_000, 1_000_000].filter((n) => n <= max)
const versionSizes = [1, 100, 10_000]
const trailSizes = [10, 1000, 100_000]
/** Flat: p50 at the largest size at most this many times p50 at the smallest. */
const FLAT = 1.5
/** Items per page of every list read. */
const LIMIT = 20

/** One measured point: an operation at one size. */
interface Point {
  series: Series
  operation: string
  size: number
  p50: number
  p95: number
  serverCpu: number
  databaseCpu: number
  failures: number
}
type Series = 'artifacts' | 'versions' | 'audit events'

/** What one point of a series reads: a server on its database, and the caller's fixtures there. */
interface Target {
  readonly size: number
  readonly base: string
  readonly server: harness.Server
  readonly auth: Record<string, string>
  readonly f: Fixtures
  /** The history of this point (versions series), the trail (audit series). */
  readonly historyId: string
  readonly versions: number
  readonly teamId: string
  readonly events: number
  /** The head of `f.docId`, as appends move it. */
  head: number
}

/** An operation: one request, answering whether it got what it should. */
interface Operation {
  name: string
  /** The smallest size it is measured at (catch-up of the last 10 versions needs more than one). */
  from?: number
  /** Run once per point before it is measured (cursors are followed there, unmeasured). */
  prepare?: (t: Target) => Promise<string | null>
  request: (t: Target, prepared: string | null) => Promise<boolean>
}

const percentile = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0

const run = await harness.postgresRun()
const databases: Awaited<ReturnType<typeof harness.freshDatabase>>[] = []
const cleanup = harness.cleanupOnce('bench/scale', 'stopping the servers and dropping the databases', async () => {
  await harness.stopServers()
  for (const database of databases) await database.close()
  await finishTestRun(run)
})
try {
  const started = Date.now()
  // One database per size, seeded alike but for the other owners' artifacts; each point of a
  // series is measured in turn, round after round, so the neighbours' load hits every size alike.
  const artifactTargets: Target[] = []
  const versionTargets: Target[] = []
  const trailTargets: Target[] = []
  const ports = await harness.freePorts(artifactSizes.length)
  for (const [i, size] of artifactSizes.entries()) {
    const t = Date.now()
    const database = await harness.freshDatabase(run)
    databases.push(database)
    const seeded = await seedFixtures(database, owners)
    const histories = new Map<number, string>()
    const trails = new Map<number, string>()
    for (const n of versionSizes) histories.set(n, await seeded.history(n))
    for (const n of trailSizes) trails.set(n, await seeded.trail(n))
    await seeded.growArtifacts(size)
    const base = `http://127.0.0.1:${ports[i]}`
    const child = await harness.start(
      'apps/api/src/main.ts',
      {
        DATABASE_URL: database.url ?? '',
        API_PORT: String(ports[i]),
        LOG_LEVEL: 'warn',
        DATABASE_POOL_SIZE: '4',
        RATE_LIMIT_MAX: '1000000000',
      },
      [`${base}/health`],
    )
    const server = await harness.watch(child, database.url ?? '')
    const target = (versions: number, events: number): Target => ({
      size,
      base,
      server,
      auth: { authorization: `Bearer ${seeded.fixtures.token}` },
      f: seeded.fixtures,
      historyId: histories.get(versions) ?? '',
      versions,
      teamId: trails.get(events) ?? '',
      events,
      head: 1,
    })
    artifactTargets.push(target(1, 10))
    // The versions and audit series are read on the smallest database.
    if (i === 0) {
      for (const n of versionSizes) versionTargets.push({ ...target(n, 10), size: n })
      for (const n of trailSizes) trailTargets.push({ ...target(1, n), size: n })
    }
    process.stderr.write(`${size} artifacts seeded in ${((Date.now() - t) / 1000).toFixed(1)} s\n`)
  }

  const get = (t: Target, path: string): Promise<Response> => fetch(`${t.base}${path}`, { headers: t.auth })
  const ok = async (t: Target, path: string) => {
    const response = await get(t, path)
    await response.arrayBuffer()
    return response.status === 200
  }
  const withCursor = (path: string, cursor: string | null) => `${path}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`
  /** A page `hops` pages into the list at `path(t)` (or as far as it goes): its cursor is found once, unmeasured. */
  const deep = (name: string, path: (t: Target) => string, hops: (t: Target) => number): Operation => ({
    name,
    prepare: async (t) => {
      let cursor: string | null = null
      for (let i = 0; i < hops(t); i++) {
        const page = (await (await get(t, withCursor(path(t), cursor))).json()) as { nextCursor: string | null }
        if (page.nextCursor === null) break
        cursor = page.nextCursor
      }
      return cursor
    },
    request: (t, cursor) => ok(t, withCursor(path(t), cursor)),
  })
  const append: Operation = {
    name: 'append a version',
    request: async (t) => {
      const response = await fetch(`${t.base}/api/artifacts/${t.f.docId}/versions`, {
        method: 'POST',
        headers: { ...t.auth, 'content-type': 'application/json' },
        body: JSON.stringify({ content: `${content}${t.head}`, expectedLatestVersion: t.head }),
      })
      await response.arrayBuffer()
      if (response.status === 201) t.head++
      return response.status === 201
    },
  }
  const profile = () => `/api/profile/artifacts?limit=${LIMIT}`
  const workspace = (t: Target) => `/api/workspaces/${t.f.workspaceId}/artifacts?limit=${LIMIT}`
  // The caller's own artifacts span CALLER_ARTIFACTS / LIMIT pages: the deep page is the middle one.
  const middleOfMine = () => Math.floor(CALLER_ARTIFACTS / LIMIT / 2)
  /** The caller's project `bench`, which holds their artifacts: listProjectArtifacts. */
  const projectArtifacts = (t: Target) => `/api/projects/${t.f.owner}/bench/artifacts?limit=${LIMIT}`
  const artifactOperations: Operation[] = [
    { name: 'by-path read', request: (t) => ok(t, `/api/by-path/${t.f.owner}/bench/doc`) },
    { name: 'content read (latest)', request: (t) => ok(t, `/api/artifacts/${t.f.docId}/content`) },
    { name: 'profile artifacts, first page', request: (t) => ok(t, profile()) },
    deep('profile artifacts, deep page', profile, middleOfMine),
    { name: 'workspace artifacts, first page', request: (t) => ok(t, workspace(t)) },
    deep('workspace artifacts, deep page', workspace, middleOfMine),
    { name: 'project artifacts, first page', request: (t) => ok(t, projectArtifacts(t)) },
    deep('project artifacts, deep page', projectArtifacts, middleOfMine),
    append,
    { name: 'audit trail of an artifact', request: (t) => ok(t, `/api/audit-events?artifactId=${t.f.docId}&limit=${LIMIT}`) },
    { name: 'account audit trail', request: (t) => ok(t, `/api/audit-events?limit=${LIMIT}`) },
    { name: 'catch-up (since v1 of 3)', request: (t) => ok(t, `/api/artifacts/${t.f.catchUpId}/changes?since=1`) },
  ]
  const versions = (t: Target) => `/api/artifacts/${t.historyId}/versions?limit=${LIMIT}`
  const versionOperations: Operation[] = [
    { name: 'read latest', request: (t) => ok(t, `/api/artifacts/${t.historyId}/content`) },
    { name: 'read pinned (v1)', request: (t) => ok(t, `/api/artifacts/${t.historyId}/content?version=1`) },
    { name: 'version list, first page', request: (t) => ok(t, versions(t)) },
    deep('version list, middle page', versions, (t) => Math.floor(t.versions / LIMIT / 2)),
    {
      name: 'catch-up (last 10 versions)',
      from: 100,
      request: (t) => ok(t, `/api/artifacts/${t.historyId}/changes?since=${t.versions - 10}`),
    },
  ]
  const trail = (t: Target) => `/api/workspaces/${t.teamId}/audit-events?limit=${LIMIT}`
  const trailOperations: Operation[] = [
    { name: 'workspace trail, first page', request: (t) => ok(t, trail(t)) },
    deep('workspace trail, middle page', trail, (t) => Math.floor(t.events / LIMIT / 2)),
  ]

  const points: Point[] = []
  /** Each operation at every point of the series: `rounds` rounds, each point in turn, `requests` in all per point. */
  const measure = async (series: Series, targets: readonly Target[], operations: readonly Operation[]) => {
    for (const operation of operations) {
      const states = []
      for (const t of targets.filter((x) => x.size >= (operation.from ?? 0))) {
        const prepared = (await operation.prepare?.(t)) ?? null
        // A few unmeasured requests first: the connection, the JIT and the prepared statements warm.
        for (let i = 0; i < 20; i++) await operation.request(t, prepared)
        states.push({ t, prepared, latencies: [] as number[], failures: 0, serverMs: 0, databaseMs: 0 })
      }
      for (let round = 0; round < rounds; round++) {
        const count = Math.ceil(requests / rounds)
        for (const state of states) {
          const serverBefore = processCpuMs(state.t.server.pid)
          const databaseBefore = await state.t.server.database.sample()
          for (let i = 0; i < count; i++) {
            const t = performance.now()
            if (!(await operation.request(state.t, state.prepared))) state.failures++
            state.latencies.push(performance.now() - t)
          }
          state.serverMs += processCpuMs(state.t.server.pid) - serverBefore
          state.databaseMs += await state.t.server.database.since(databaseBefore)
        }
      }
      for (const state of states) {
        const sorted = [...state.latencies].sort((x, y) => x - y)
        const n = sorted.length
        const point: Point = {
          series,
          operation: operation.name,
          size: state.t.size,
          p50: percentile(sorted, 0.5),
          p95: percentile(sorted, 0.95),
          serverCpu: (state.serverMs * 1000) / n,
          databaseCpu: (state.databaseMs * 1000) / n,
          failures: state.failures,
        }
        points.push(point)
        process.stderr.write(`${series} ${point.size} ${operation.name}: p50 ${point.p50.toFixed(2)} ms, p95 ${point.p95.toFixed(2)} ms\n`)
      }
    }
  }
  await measure('artifacts', artifactTargets, chosen(artifactOperations))
  await measure('versions', versionTargets, chosen(versionOperations))
  await measure('audit events', trailTargets, chosen(trailOperations))

  const ms = (x: number) => x.toFixed(2)
  const count = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}M` : n >= 1000 ? `${n / 1000}k` : String(n))
  console.log(
    `\nbench/scale: ${requests} sequential requests per point in ${rounds} alternating rounds, PostgreSQL, node ${process.version}; ` +
      `the caller holds ${CALLER_ARTIFACTS + 8} of the artifacts, ${owners} other owners the rest; lists read ${LIMIT} a page\n`,
  )
  console.log(
    harness.markdownTable(
      ['series', 'operation', 'size', 'p50 ms', 'p95 ms', 'server CPU µs', 'PostgreSQL CPU µs', 'failures'],
      points.map((p) => [
        p.series,
        p.operation,
        count(p.size),
        ms(p.p50),
        ms(p.p95),
        p.serverCpu.toFixed(0),
        p.databaseCpu.toFixed(0),
        String(p.failures),
      ]),
    ),
  )
  const verdicts: string[][] = []
  for (const key of new Set(points.map((p) => `${p.series}\u0000${p.operation}`))) {
    const line = points.filter((p) => `${p.series}\u0000${p.operation}` === key)
    const first = line[0]
    const last = line[line.length - 1]
    if (!first || !last) continue
    const ratio = last.p50 / first.p50
    verdicts.push([
      first.series,
      first.operation,
      `${count(first.size)} → ${count(last.size)}`,
      `${ms(first.p50)} → ${ms(last.p50)}`,
      `${ratio.toFixed(2)}×`,
      `≤ ${FLAT}×`,
      ratio <= FLAT ? 'yes' : 'NO',
    ])
  }
  console.log('\nFlat: p50 at the largest size ≤ 1.5× p50 at the smallest, measured in the same alternating rounds.\n')
  console.log(harness.markdownTable(['series', 'operation', 'sizes', 'p50 ms', 'ratio', 'target', 'met'], verdicts))
  const chartPath = resolve(import.meta.dirname, '../..', args.chart ?? 'docs/bench-scale.svg')
  writeFileSync(chartPath, await renderChart(points))
  console.log(`\nChart: ${args.chart} (${((Date.now() - started) / 1000).toFixed(0)} s in all).`)
  const failed = points.reduce((n, p) => n + p.failures, 0)
  if (failed > 0) {
    process.stderr.write(`bench/scale: ${failed} requests did not answer as they should.\n`)
    process.exitCode = 1
  }
} finally {
  await cleanup()
}
