/**
 * bench/topology: requests per second through HAProxy and PgBouncer (tooling/topology, the
 * scale-out of docs/deploy.md) with ONE API process behind the balancer against TWO, the same
 * load generator (autocannon, 127.0.0.1) and the same mix: read an artifact, list the caller's
 * artifacts, append a version. Both topologies run on one database; their rounds alternate, so a
 * noisy neighbour hits both alike. Prints both and the ratio. On a 2-core machine the load
 * generator, HAProxy, PgBouncer and PostgreSQL share the cores with the API processes: the ratio
 * says how much a second process buys here, not on a bigger machine.
 *
 *   pnpm bench topology [--duration 5] [--connections 50] [--rounds 3]
 *
 * Needs the build (apps/api/dist) and haproxy, pgbouncer, redis-cli (tooling/scripts/test-prerequisites.sh).
 */
import { parseArgs } from 'node:util'
import { finishTestRun } from '@quire/storage/testing'
import autocannon from 'autocannon'
import { startTopology, type Topology } from '../../tooling/topology/topology.ts'
import { seed } from '../api/seed.ts'
import * as harness from '../harness.ts'

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '3' },
  },
})
const duration = harness.bounded(args, 'duration', 1, 60)
const connections = harness.bounded(args, 'connections', 1, 500)
const rounds = harness.bounded(args, 'rounds', 1, 11)

const run = await harness.postgresRun()
const database = await harness.freshDatabase(run)
const topologies: Topology[] = []
const cleanup = harness.cleanupOnce('bench/topology', 'stopping the processes and dropping the database', async () => {
  await Promise.allSettled(topologies.map((t) => t.stop()))
  await database.close()
  await finishTestRun(run)
})

/** One round's figures of one side. */
interface Figures {
  rps: number
  p99: number
  /** Appends refused 409 (a stale head: see the note printed under the table). */
  conflicts: number
  /** Every other non-2xx answer, and socket errors: failures. */
  failures: number
}

try {
  const fixtures = await seed(database, connections * 2)
  const env = { RATE_LIMIT_MAX: '1000000000', LOG_LEVEL: 'warn' }
  const start = async (apis: number) => {
    try {
      const started = await startTopology({ databaseUrl: database.url ?? '', apis, webs: 0, env })
      topologies.push(started)
      return started
    } catch (error) {
      process.stderr.write(`bench/topology: ${(error as Error).message}\n`)
      throw error
    }
  }
  const one = await start(1)
  const two = await start(2)
  const auth = { authorization: `Bearer ${fixtures.token}` }

  /** The mix for one side: each connection reads, lists and appends to an artifact of its own (half the artifacts per side). */
  const mix = (side: number): autocannon.Request[] => {
    let next = 0
    const own = (ctx: unknown) => {
      const context = ctx as { artifactId?: string }
      context.artifactId ??= fixtures.appendIds[side * connections + (next++ % connections)]
      return context.artifactId as string
    }
    const read: autocannon.Request = {
      method: 'GET',
      setupRequest: (req, ctx) => ({ ...req, path: `/api/artifacts/${own(ctx)}`, headers: auth }),
    }
    const list: autocannon.Request = {
      method: 'GET',
      setupRequest: (req) => ({ ...req, path: '/api/profile/artifacts?limit=20', headers: auth }),
    }
    const append = harness.appendRequest(fixtures.content, auth, own)
    // Long enough never to wrap within a round (a wrap clears the connection's context).
    return Array.from({ length: Math.max(3000, duration * 1500) }, (_, i) => [read, list, append][i % 3] as autocannon.Request)
  }
  const requests = [mix(0), mix(1)]
  const measure = async (top: Topology, side: number, seconds: number): Promise<Figures> => {
    const result = await autocannon({ url: top.apiUrl, connections, duration: seconds, requests: requests[side] })
    const conflicts = result.statusCodeStats?.['409']?.count ?? 0
    return { rps: result.requests.average, p99: result.latency.p99, conflicts, failures: result.non2xx - conflicts + result.errors }
  }
  // The same warm-up on both sides (JIT, pools, caches).
  await measure(one, 0, 2)
  await measure(two, 1, 2)
  const sides = { one: [] as Figures[], two: [] as Figures[] }
  for (let round = 0; round < rounds; round++) {
    sides.one.push(await measure(one, 0, duration))
    sides.two.push(await measure(two, 1, duration))
    process.stderr.write(
      `round ${round + 1}: 1 API ${sides.one.at(-1)?.rps.toFixed(0)} req/s, 2 API ${sides.two.at(-1)?.rps.toFixed(0)} req/s\n`,
    )
  }
  const sum = (xs: Figures[], pick: (x: Figures) => number) => String(xs.reduce((n, x) => n + pick(x), 0))
  const { median } = harness
  const row = (name: string, xs: Figures[]) => {
    const rps = median(xs.map((x) => x.rps))
    return {
      name,
      rps,
      cells: [rps.toFixed(0), `${median(xs.map((x) => x.p99))} ms`, sum(xs, (x) => x.conflicts), sum(xs, (x) => x.failures)],
    }
  }
  const a = row('1 API process', sides.one)
  const b = row('2 API processes', sides.two)
  console.log(
    `\nbench/topology: HAProxy → API × n → PgBouncer (transaction) → PostgreSQL; mix 1:1:1 read artifact / list artifacts / append version; ${connections} connections, ${rounds} alternating rounds of ${duration} s (medians); node ${process.version}, ${(await import('node:os')).availableParallelism()} CPUs\n`,
  )
  console.log(
    harness.markdownTable(
      ['topology', 'req/s', 'p99', '409', 'failures', 'ratio'],
      [
        [a.name, ...a.cells, '1.00×'],
        [b.name, ...b.cells, `${(b.rps / a.rps).toFixed(2)}×`],
      ],
    ),
  )
  console.log(
    '\n409: appends refused when a round starts with a stale head (a round stops with requests in flight).\nfailures: any other non-2xx answer or socket error (must be 0).',
  )
} finally {
  await cleanup()
}
