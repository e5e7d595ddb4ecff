/**
 * bench/live: live changes (issue 33, `GET /api/events` as Server-Sent Events) on two real API
 * processes (apps/api/src/main.ts, as bench/api starts it) on one fresh PostgreSQL database, both
 * straight to it (DATABASE_LISTEN_URL = DATABASE_URL), with data made through the use-cases
 * (seed.ts: many owners of two API keys each, ~1 KiB artifacts, a long change stream). Measures:
 *
 * 1. commit → subscriber, same process: a stream on A follows an artifact (by id) or a project;
 *    appends through A one at a time, by the owner's other key; the time from sending the append
 *    until its event arrives on the stream, beside the append's own round trip (same appends).
 * 2. the same across processes: appends through A, the stream on B (artifact by path, project).
 *    Rounds of the four alternate, one stream open at a time, so a noisy neighbour hits all alike.
 * 3. N idle streams on A (one per artifact of the spread, by the owners' keys in turn; B stopped):
 *    A's RSS before and after opening them, and the CPU of A and of the database's backends over an
 *    idle window with them open against one without. The window is two heartbeat periods (30 s)
 *    by default, so every stream heartbeats the same number of times in it whatever its phase.
 * 4. commit → one stream among N + 1 (the N idle ones open), against the same stream alone on A
 *    (half before opening them, half after closing them); appends paced to span a heartbeat period,
 *    so the idle streams' heartbeat wave falls among them as it would.
 * 5. webhooks (webhooks.ts; B started again): `--webhooks` of them, over the spread's owners, on a
 *    receiver in this process; commit → webhook one append at a time, and a burst of `--burst`
 *    appends `--burst-concurrency` at once through A and B: deliveries per second against the
 *    appends committed per second and the receiver posted to directly; each delivery exactly once.
 *
 *   pnpm bench live [--quick] [--users 50] [--per-user 20] [--appends 200] [--rounds 5] [--paced 100] [--idle 30] [--history 100000]
 *                   [--webhooks 50] [--burst 1000] [--hook-appends 100] [--burst-concurrency 40]
 *
 * `--quick`: 10 × 10 idle streams, 40 appends in 2 rounds, 30 paced, a 15 s window, 10,000 older events,
 * 10 webhooks, a burst of 200, 20 appends one at a time (about 2 min; the default about 4.5).
 * `--users` × `--per-user` idle streams, at most 5,000 sockets, all to 127.0.0.1; `ulimit -n` must
 * leave room for them (checked, as the servers inherit it). `--webhooks 0` leaves the webhooks out.
 */
import { readFileSync } from 'node:fs'
import { availableParallelism, loadavg } from 'node:os'
import { setTimeout as sleep } from 'node:timers/promises'
import { parseArgs } from 'node:util'
import { finishTestRun } from '@quire/storage/testing'
import { processCpuMs } from '../api/cpu.ts'
import * as harness from '../harness.ts'
import { documentText, type LiveFixtures, seed } from './seed.ts'
import { openStream, type Stream } from './sse.ts'
import { measureWebhooks, type Receiver, startReceiver, type WebhookFigures, type WebhookOptions, webhookReport } from './webhooks.ts'

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    users: { type: 'string' },
    'per-user': { type: 'string' },
    appends: { type: 'string' },
    rounds: { type: 'string' },
    paced: { type: 'string' },
    idle: { type: 'string' },
    history: { type: 'string' },
    webhooks: { type: 'string' },
    burst: { type: 'string' },
    'hook-appends': { type: 'string' },
    'burst-concurrency': { type: 'string' },
  },
})
const quick = args.quick === true
const option = (name: keyof typeof args & string, full: number, small: number, min: number, max: number) =>
  harness.bounded({ [name]: (args[name] as string | undefined) ?? String(quick ? small : full) }, name, min, max)
const users = option('users', 50, 10, 1, 200)
const perUser = option('per-user', 20, 10, 1, 100)
const appends = option('appends', 200, 40, 10, 5000)
const rounds = option('rounds', 5, 2, 1, 21)
const paced = option('paced', 100, 30, 10, 2000)
const idleSeconds = option('idle', 30, 15, 5, 300)
const history = option('history', 100_000, 10_000, 0, 10_000_000)
const webhookOptions: WebhookOptions = {
  hooks: option('webhooks', 50, 10, 0, 500),
  burst: option('burst', 1000, 200, 10, 20_000),
  oneByOne: option('hook-appends', 100, 20, 5, 2000),
  // As many as the two processes' workers send at once (20 each).
  concurrency: option('burst-concurrency', 40, 40, 1, 200),
}
const subscribers = users * perUser
if (subscribers > 5000) {
  process.stderr.write(`bench/live: --users × --per-user is the number of idle streams (sockets), at most 5,000, not ${subscribers}.\n`)
  process.exit(2)
}
/** The load average when the run began, printed with the figures: they mean little on a busy machine. */
const loadAtStart = loadavg()[0] ?? 0
/** The servers' default (EVENTS_HEARTBEAT_SECONDS), left as it is. */
const HEARTBEAT_SECONDS = 15
/** p95 of commit → subscriber across processes (issue 33). */
const TARGET_ACROSS_MS = 1000
/** How long an event may take before it counts as missed. */
const MISSED_AFTER_MS = 10_000

const log = (line: string) => process.stderr.write(`${line}\n`)

/** The soft limit on open files: the servers inherit it, and each stream is one socket on both sides. */
function openFileLimit(): number {
  const line = readFileSync('/proc/self/limits', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('Max open files'))
  const soft = line?.split(/\s{2,}/)[1] ?? 'unlimited'
  return soft === 'unlimited' ? Number.POSITIVE_INFINITY : Number(soft)
}
if (openFileLimit() < subscribers + 512) {
  process.stderr.write(`bench/live: ${subscribers} streams need \`ulimit -n\` ≥ ${subscribers + 512} (it is ${openFileLimit()}).\n`)
  process.exit(2)
}

/** Resident memory of a process, in KiB. */
function rssKiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'))
  return Number(line?.replace(/\D+/g, '') ?? 0)
}

const percentile = (xs: readonly number[], p: number) => {
  const sorted = [...xs].sort((x, y) => x - y)
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN
}

/** One append and its event: the append's round trip, and the time until the event arrived (null: missed). */
interface Sample {
  readonly rtt: number
  readonly event: number | null
}

/** The measured appends of one case. */
interface Samples {
  readonly list: Sample[]
  failures: number
}
const samples = (): Samples => ({ list: [], failures: 0 })
/** The event latencies heard (missed ones are counted as failures, not here). */
const events = (s: Samples): number[] => s.list.flatMap((x) => (x.event === null ? [] : [x.event]))

const run = await harness.postgresRun()
const database = await harness.freshDatabase(run)
const open = new Set<Stream>()
let receiver: Receiver | null = null
const cleanup = harness.cleanupOnce('bench/live', 'closing the streams, stopping the servers and dropping the database', async () => {
  for (const stream of open) stream.close()
  await harness.stopServers()
  // After the servers: their workers finish the deliveries in flight before they exit.
  await receiver?.close()
  await database.close()
  await finishTestRun(run)
})

try {
  const seeding = performance.now()
  const f: LiveFixtures = await seed(database, { users, perUser, history })
  log(
    `seeded ${users} owners × ${perUser} artifacts + 20 live ones, ${history} older change events, in ${((performance.now() - seeding) / 1000).toFixed(0)} s`,
  )
  const url = database.url ?? ''
  const [portA, portB] = await harness.freePorts(2)
  const env = (port: number | undefined) => ({
    DATABASE_URL: url,
    DATABASE_LISTEN_URL: url,
    DATABASE_POOL_SIZE: '10',
    API_HOST: '127.0.0.1',
    API_PORT: String(port),
    LOG_LEVEL: 'warn',
    // Rate limiting stays on, as in production; the limit is set out of reach of the bench.
    RATE_LIMIT_MAX: '1000000000',
    // The webhook section's receiver is on loopback, refused unless allowed.
    WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
  })
  const apiA = `http://127.0.0.1:${portA}`
  const apiB = `http://127.0.0.1:${portB}`
  const childA = await harness.start('apps/api/src/main.ts', env(portA), [`${apiA}/health`])
  const childB = await harness.start('apps/api/src/main.ts', env(portB), [`${apiB}/health`])
  const serverA = await harness.watch(childA, url)

  const live = f.live
  const [agentKey, personKey] = live.keys
  const liveId = (i: number) => live.artifactIds[i] as string
  const heads = new Map<string, number>()

  /** Opens a stream (counted in `open`, closed by the cleanup however the run ends). */
  const follow = async (api: string, query: string, token: string): Promise<Stream> => {
    const stream = await openStream(new URL(api), query, token)
    open.add(stream)
    return stream
  }
  const unfollow = (stream: Stream) => {
    stream.close()
    open.delete(stream)
  }

  /** Appends a version to `artifactId` through A by the agent's key; resolves with its round trip and when `stream` heard of it. */
  const sample = async (stream: Stream, artifactId: string, into: Samples | null): Promise<void> => {
    const version = (heads.get(artifactId) ?? 1) + 1
    let timer: NodeJS.Timeout | undefined
    const heard = new Promise<number | null>((resolve) => {
      stream.onEvent = (event, at) => {
        if (event.kind === 'artifact.version_created' && event.artifactId === artifactId && event.versionNumber === version) resolve(at)
      }
      timer = setTimeout(() => resolve(null), MISSED_AFTER_MS)
    })
    const sent = performance.now()
    const response = await fetch(`${apiA}/api/artifacts/${artifactId}/versions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${agentKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        content: documentText(version * 1000 + live.artifactIds.indexOf(artifactId)),
        expectedLatestVersion: version - 1,
      }),
    })
    await response.arrayBuffer()
    const rtt = performance.now() - sent
    if (response.status !== 201) {
      clearTimeout(timer)
      stream.onEvent = null
      if (into) into.failures++
      throw new Error(`append to ${artifactId}: ${response.status}`)
    }
    heads.set(artifactId, version)
    const at = await heard
    clearTimeout(timer)
    stream.onEvent = null
    if (stream.ended !== null) throw new Error(`a measured stream ended: ${stream.ended}`)
    if (at === null && into) into.failures++
    into?.list.push({ rtt, event: at === null ? null : at - sent })
  }

  // 1 and 2: one stream open at a time, the cases alternating round by round.
  interface LatencyCase {
    readonly name: string
    readonly api: string
    readonly query: string
    readonly targets: readonly string[]
    readonly target: number | null
    readonly into: Samples
  }
  const cases: LatencyCase[] = [
    {
      name: 'same process (append A → stream A), following an artifact',
      api: apiA,
      query: `artifact=${liveId(0)}`,
      targets: [liveId(0)],
      target: null,
      into: samples(),
    },
    {
      name: 'same process (append A → stream A), following a project',
      api: apiA,
      query: `project=${live.username}/live`,
      targets: live.artifactIds.slice(1, 10),
      target: null,
      into: samples(),
    },
    {
      name: 'across processes (append A → stream B), following an artifact',
      api: apiB,
      query: `artifact=${encodeURIComponent(`${live.username}/live/doc-10`)}`,
      targets: [liveId(10)],
      target: TARGET_ACROSS_MS,
      into: samples(),
    },
    {
      name: 'across processes (append A → stream B), following a project',
      api: apiB,
      query: `project=${live.username}/live`,
      targets: live.artifactIds.slice(11, 20),
      target: TARGET_ACROSS_MS,
      into: samples(),
    },
  ]
  const measureCase = async (c: LatencyCase, count: number, into: Samples | null) => {
    const stream = await follow(c.api, c.query, personKey)
    for (let i = 0; i < count; i++) await sample(stream, c.targets[i % c.targets.length] as string, into)
    unfollow(stream)
  }
  // The same warm-up for every case (JIT, prepared statements, both processes' feeds started).
  for (const c of cases) await measureCase(c, 20, null)
  const perRound = Math.ceil(appends / rounds)
  for (let round = 0; round < rounds; round++) {
    for (const c of cases) await measureCase(c, perRound, c.into)
    log(`round ${round + 1}/${rounds}: ${cases.map((c) => `${percentile(events(c.into), 0.5).toFixed(1)} ms`).join(', ')} (event p50)`)
  }

  // 3 and 4: A alone, B stopped, so the database's backends are A's.
  childB.kill('SIGTERM')
  if (childB.exitCode === null) await new Promise((done) => childB.once('exit', done))
  await sleep(2000)
  const openStreams = new Set<Stream>()
  const heartbeats = () => [...openStreams].reduce((n, s) => n + s.heartbeats, 0)
  const idle = async () => {
    const rssStart = rssKiB(serverA.pid)
    const heartbeatsBefore = heartbeats()
    const cpuBefore = processCpuMs(serverA.pid)
    const databaseBefore = await serverA.database.sample()
    await sleep(idleSeconds * 1000)
    return {
      apiMs: processCpuMs(serverA.pid) - cpuBefore,
      databaseMs: await serverA.database.since(databaseBefore),
      heartbeats: heartbeats() - heartbeatsBefore,
      rssStart,
      rssEnd: rssKiB(serverA.pid),
    }
  }
  const pace = Math.ceil((HEARTBEAT_SECONDS * 1000) / paced)
  const pacedCase = async (count: number, into: Samples) => {
    const stream = await follow(apiA, `artifact=${liveId(0)}`, personKey)
    for (let i = 0; i < count; i++) {
      const started = performance.now()
      await sample(stream, liveId(0), into)
      await sleep(Math.max(0, pace - (performance.now() - started)))
    }
    unfollow(stream)
  }
  log(`idle ${idleSeconds} s without streams…`)
  const without = await idle()
  const alone = samples()
  await pacedCase(Math.floor(paced / 2), alone)
  const rssBefore = rssKiB(serverA.pid)
  log(`opening ${subscribers} streams…`)
  const opening = performance.now()
  const plan = f.spread.flatMap((owner) => owner.artifactIds.map((id, j) => ({ id, key: owner.keys[j % 2] as string })))
  let next = 0
  let refused = 0
  await Promise.all(
    Array.from({ length: 20 }, async () => {
      while (next < plan.length) {
        const { id, key } = plan[next++] as (typeof plan)[number]
        try {
          const stream = await follow(apiA, `artifact=${id}`, key)
          openStreams.add(stream)
        } catch (error) {
          refused++
          log(`bench/live: ${(error as Error).message}`)
        }
      }
    }),
  )
  const openedIn = (performance.now() - opening) / 1000
  const opened = openStreams.size
  await sleep(2000)
  log(`${openStreams.size} streams open in ${openedIn.toFixed(1)} s; idle ${idleSeconds} s with them…`)
  const withStreams = await idle()
  const among = samples()
  await pacedCase(paced, among)
  const idleEnded = [...openStreams].filter((s) => s.ended !== null).length
  const idleEvents = [...openStreams].reduce((n, s) => n + s.events, 0)
  for (const stream of openStreams) unfollow(stream)
  openStreams.clear()
  await sleep(1000)
  await pacedCase(paced - Math.floor(paced / 2), alone)

  // 5: webhooks, on A and B started again (the streams all closed).
  let hooks: WebhookFigures | null = null
  if (webhookOptions.hooks > 0) {
    receiver = await startReceiver()
    const [portB2] = await harness.freePorts(1)
    const apiB2 = `http://127.0.0.1:${portB2}`
    await harness.start('apps/api/src/main.ts', env(portB2), [`${apiB2}/health`])
    hooks = await measureWebhooks({ apis: [apiA, apiB2], owners: f.spread, receiver, log }, webhookOptions)
  }

  // The tables.
  const rtts = (s: Samples) => s.list.map((x) => x.rtt)
  const ms = (x: number) => x.toFixed(1)
  const row = (
    name: string,
    streams: string,
    measured: number[],
    baselineName: string,
    baseline: number[],
    failures: string,
    target: number | null,
  ) => {
    const [p50, p95, b50, b95] = [
      percentile(measured, 0.5),
      percentile(measured, 0.95),
      percentile(baseline, 0.5),
      percentile(baseline, 0.95),
    ]
    return [
      name,
      streams,
      String(measured.length),
      ms(p50),
      ms(p95),
      baselineName,
      ms(b50),
      ms(b95),
      `${(p50 / b50).toFixed(2)}×`,
      `${(p95 / b95).toFixed(2)}×`,
      target === null ? '—' : `p95 ≤ ${target} ms`,
      target === null ? '—' : p95 <= target ? 'yes' : 'NO',
      failures,
    ]
  }
  const latencyRows = cases.map((c) =>
    row(`commit → stream, ${c.name}`, '1', events(c.into), 'the append’s round trip', rtts(c.into), String(c.into.failures), c.target),
  )
  const n = subscribers.toLocaleString('en')
  const n1 = (subscribers + 1).toLocaleString('en')
  latencyRows.push(
    row(
      `commit → stream, one among ${n1} on A (artifact)`,
      n1,
      events(among),
      'the same stream alone on A',
      events(alone),
      `${among.failures} / ${alone.failures}`,
      null,
    ),
    row(`append round trip with ${n} idle streams on A`, n1, rtts(among), 'the same, alone on A', rtts(alone), '0', null),
  )
  const kib = (x: number) => (x / 1024).toFixed(1)
  const perSecond = (x: number) => `${x.toFixed(0)} ms (${((x / (idleSeconds * 1000)) * 100).toFixed(1)}% of a core)`
  const perStream = (x: number) =>
    `${((x * 1000) / opened).toFixed(0)} µs${withStreams.heartbeats > 0 ? ` (${((x * 1000) / withStreams.heartbeats).toFixed(0)} µs a heartbeat)` : ''}`
  const resourceRows = [
    [
      'API process RSS (MiB)',
      kib(rssBefore),
      kib(withStreams.rssEnd),
      `${withStreams.rssEnd - rssBefore >= 0 ? '+' : ''}${kib(withStreams.rssEnd - rssBefore)} MiB`,
      `${((withStreams.rssEnd - rssBefore) / opened).toFixed(1)} KiB`,
    ],
    [
      `API process CPU over ${idleSeconds} s`,
      perSecond(without.apiMs),
      perSecond(withStreams.apiMs),
      `${withStreams.apiMs - without.apiMs >= 0 ? '+' : ''}${withStreams.apiMs - without.apiMs} ms`,
      perStream(withStreams.apiMs - without.apiMs),
    ],
    [
      `PostgreSQL backends CPU over ${idleSeconds} s`,
      perSecond(without.databaseMs),
      perSecond(withStreams.databaseMs),
      `${withStreams.databaseMs - without.databaseMs >= 0 ? '+' : ''}${withStreams.databaseMs - without.databaseMs} ms`,
      perStream(withStreams.databaseMs - without.databaseMs),
    ],
    [
      `heartbeats received in the ${idleSeconds} s`,
      String(without.heartbeats),
      String(withStreams.heartbeats),
      '—',
      `${(withStreams.heartbeats / Math.max(1, opened)).toFixed(2)} (one every ${HEARTBEAT_SECONDS} s)`,
    ],
  ]
  console.log(
    `\nbench/live: GET /api/events as text/event-stream on apps/api (2 processes, one PostgreSQL, LISTEN straight to it); ` +
      `${users} owners × ${perUser} artifacts + 20 live ones, 2 API keys each, ${history.toLocaleString('en')} older change events; ` +
      `node ${process.version}, ${availableParallelism()} CPUs, load average ${loadAtStart.toFixed(2)} at start\n`,
  )
  console.log(
    `Latency (ms), appends one at a time through A (~1 KiB each) by one key, the stream by the owner's other key: ` +
      `from sending the append until its event arrives on the stream. Rows 1–4: ${perRound * rounds} appends each in ${rounds} alternating rounds; ` +
      `rows 5–6: ${paced} appends paced ${pace} ms apart (spanning a heartbeat period), alone = half before opening the idle streams, half after closing them.\n`,
  )
  console.log(
    harness.markdownTable(
      [
        'measured',
        'streams on the process',
        'n',
        'p50',
        'p95',
        'baseline (same run)',
        'p50',
        'p95',
        'ratio p50',
        'ratio p95',
        'target',
        'met',
        'missed/failed',
      ],
      latencyRows,
    ),
  )
  console.log(
    `\n${n} idle streams on process A (one per artifact of ${users} owners, by their 2 keys in turn; opened in ${openedIn.toFixed(1)} s, ` +
      `${refused} refused), heartbeat every ${HEARTBEAT_SECONDS} s; B stopped. CPU: utime+stime from /proc over ${idleSeconds} s idle, ` +
      `the API process and the backends of its database (pg_stat_activity).\n`,
  )
  console.log(harness.markdownTable(['idle', 'without streams', `with ${n} streams`, 'difference', 'per stream'], resourceRows))
  const failures =
    cases.reduce((k, c) => k + c.into.failures, 0) + among.failures + alone.failures + refused + idleEnded + (idleEvents > 0 ? 1 : 0)
  console.log(
    `\nmissed/failed: events not heard within ${MISSED_AFTER_MS / 1000} s, appends not 201 (must be 0). ` +
      `Idle streams that ended early: ${idleEnded}; events they received: ${idleEvents} (both must be 0).`,
  )
  const webhookFailures = hooks === null ? 0 : webhookReport(hooks).failures
  if (hooks !== null) console.log(webhookReport(hooks).text)
  if (failures + webhookFailures > 0) process.exitCode = 1
} finally {
  await cleanup()
}
