/**
 * The webhook section of bench/live (issue 33, point 3): webhooks of several owners on a local
 * receiver, delivered by the workers of the two API processes (packages/runtime/src/webhooks.ts:
 * every 1 s, and when a delivery ends, new changes become deliveries and up to 20 due ones per
 * process are sent). Measures, beside baselines of the same run:
 *
 * 1. commit → webhook, one append at a time (through A and B in turn): from sending the append
 *    until each of its deliveries arrives, beside the append's round trip. Each append waits a
 *    random 0.25–1.25 s after the last delivery: a worker starts a round when a delivery ends, so
 *    appending at once would always catch that round and hide the 1 s interval's phase;
 * 2. a burst of appends spread over the followed artifacts, sent `concurrency` at once through
 *    both processes: deliveries per second from the first append sent until every expected
 *    delivery arrived, beside (a) the appends committed per second in that burst and (b) the
 *    receiver posted to directly by this process with the same concurrency (what it and loopback
 *    take); and commit → webhook during the burst, beside the burst's append round trips.
 *
 * Every delivery is checked: it arrives exactly once (by `webhook-id`, and by webhook and change),
 * where it was expected, signed with its webhook's secret; pings are counted apart. The delivery
 * log (`GET /api/webhooks/:id/deliveries`) is read at the end: every entry delivered at the first
 * attempt. Only 127.0.0.1; the receiver is closed by the caller's cleanup.
 */
import { createHmac } from 'node:crypto'
import { Agent, createServer, request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { loadavg } from 'node:os'
import { setTimeout as sleep } from 'node:timers/promises'
import { markdownTable } from '../harness.ts'
import { prng } from '../prng.ts'
import { documentText, type Owner } from './seed.ts'

/** One POST the receiver took: when its request arrived (`performance.now()`), where, and what. */
export interface Arrival {
  readonly at: number
  readonly path: string
  readonly id: string
  readonly timestamp: string
  readonly signature: string
  readonly body: string
}

export interface Receiver {
  /** `http://127.0.0.1:<port>` */
  readonly url: string
  readonly port: number
  /** Told of each POST once its body is in (before it is answered). */
  readonly listeners: Set<(arrival: Arrival) => void>
  close(): Promise<void>
}

/** A receiver on 127.0.0.1 that answers every POST 200 at once, having noted when it arrived. */
export async function startReceiver(): Promise<Receiver> {
  const listeners = new Set<(arrival: Arrival) => void>()
  const server = createServer((req, res) => {
    const at = performance.now()
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const header = (name: string) => String(req.headers[name] ?? '')
      const arrival: Arrival = {
        at,
        path: req.url ?? '',
        id: header('webhook-id'),
        timestamp: header('webhook-timestamp'),
        signature: header('webhook-signature'),
        body: Buffer.concat(chunks).toString('utf8'),
      }
      for (const listener of listeners) listener(arrival)
      res.writeHead(200, { 'content-length': '0' }).end()
    })
  })
  server.keepAliveTimeout = 30_000
  await new Promise<void>((done, fail) => {
    server.once('error', fail)
    server.listen(0, '127.0.0.1', done)
  })
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    listeners,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections()
        server.close(() => done())
      }),
  }
}

/** Resolves true once `done()` holds (checked at each arrival), false after `ms`. */
function until(receiver: Receiver, done: () => boolean, ms: number): Promise<boolean> {
  if (done()) return Promise.resolve(true)
  return new Promise((resolve) => {
    const check = () => {
      if (!done()) return
      clearTimeout(timer)
      receiver.listeners.delete(check)
      resolve(true)
    }
    const timer = setTimeout(
      () => {
        receiver.listeners.delete(check)
        resolve(done())
      },
      Math.max(0, ms),
    )
    receiver.listeners.add(check)
  })
}

const percentile = (xs: readonly number[], p: number) => {
  const sorted = [...xs].sort((x, y) => x - y)
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN
}

/** The signature Standard Webhooks asks for: `v1,` base64 HMAC-SHA256 of `id.timestamp.body` with the secret's bytes. */
const signatureOf = (secret: string, id: string, timestamp: string, body: string) =>
  `v1,${createHmac('sha256', Buffer.from(secret.replace(/^whsec_/, ''), 'base64'))
    .update(`${id}.${timestamp}.${body}`)
    .digest('base64')}`

export interface WebhookOptions {
  /** Webhooks made (half on projects, half on single artifacts, over up to `hooks / 2` owners). */
  readonly hooks: number
  /** Appends of the burst. */
  readonly burst: number
  /** Appends measured one at a time. */
  readonly oneByOne: number
  /** Appends (and direct posts) in flight at once in the burst. */
  readonly concurrency: number
}

export interface WebhookContext {
  /** The two API processes. */
  readonly apis: readonly [string, string]
  /** The owners whose `spread` projects the webhooks follow (seed.ts). */
  readonly owners: readonly Owner[]
  readonly receiver: Receiver
  readonly log: (line: string) => void
}

/** How long one append of the one-at-a-time phase waits for its deliveries before they count as missed. */
const MISSED_AFTER_MS = 10_000
/** The one-at-a-time phase stops after this many missed deliveries. */
const MISSED_LIMIT = 5
/** How long every delivery of the burst may take, from its first append. */
const BURST_DEADLINE_MS = 120_000
/** The pause before each append of the one-at-a-time phase: past the round a delivery's end starts, at a random phase of the 1 s interval. */
const PAUSE_MS = [250, 1250] as const
/** The worker's own settings (packages/runtime/src/webhooks.ts), for the text. */
const WORKER_IN_FLIGHT = 20

interface Throughput {
  readonly count: number
  readonly seconds: number
}

export interface WebhookFigures {
  readonly options: WebhookOptions
  readonly load: number
  readonly owners: number
  readonly projectHooks: number
  readonly artifactHooks: number
  readonly followed: number
  readonly lanes: number
  /** Deliveries per change in the burst, on average. */
  readonly fanOut: number
  readonly one: { readonly latency: number[]; readonly rtt: number[]; readonly missed: number; readonly appends: number }
  readonly burst: {
    readonly latency: number[]
    readonly rtt: number[]
    readonly appended: number
    readonly failedAppends: number
    readonly committed: Throughput
    readonly expected: number
    readonly arrived: number
    readonly delivered: Throughput
    readonly direct: Throughput[]
  }
  readonly pings: number
  readonly duplicateIds: number
  readonly duplicateChanges: number
  readonly unexpected: number
  readonly badSignatures: number
  readonly failedAppends: number
  readonly deliveryLog: {
    readonly entries: number
    readonly delivered: number
    readonly retried: number
    readonly attemptMs: number[]
  }
  readonly expectedTotal: number
}

/** Runs the section; throws (with a clear message) only when the webhooks cannot be set up. */
export async function measureWebhooks(ctx: WebhookContext, options: WebhookOptions): Promise<WebhookFigures> {
  const { apis, receiver, log } = ctx
  const load = loadavg()[0] ?? 0
  const ownersUsed = Math.min(ctx.owners.length, Math.ceil(options.hooks / 2))
  const owners = ctx.owners.slice(0, ownersUsed)
  const perUser = Math.min(...owners.map((o) => o.artifactIds.length))
  const ownerOf = new Map<string, Owner>()
  for (const owner of owners) for (const id of owner.artifactIds) ownerOf.set(id, owner)

  // The webhooks: the j-th of owner j mod O, on its project in even rounds and on one of its artifacts in odd ones.
  interface Hook {
    readonly id: string
    readonly secret: string
  }
  const hooks: Hook[] = []
  const followersOf = new Map<string, number[]>()
  const follow = (artifactId: string, hook: number) => followersOf.set(artifactId, [...(followersOf.get(artifactId) ?? []), hook])
  let projectHooks = 0
  const pinged = new Set<number>()
  const idCount = new Map<string, number>()
  /** Expected deliveries, `hook artifactId version` → when its append was sent. */
  const expected = new Map<string, number>()
  /** Arrived deliveries, the same key → when (the first time). */
  const arrivedAt = new Map<string, number>()
  let duplicateChanges = 0
  let unexpected = 0
  const hookArrivals: Arrival[] = []
  const directArrivals = new Map<string, number[]>()
  receiver.listeners.add((a) => {
    if (a.path.startsWith('/direct/')) {
      const run = a.path.slice(8)
      const list = directArrivals.get(run) ?? []
      list.push(a.at)
      directArrivals.set(run, list)
      return
    }
    if (!a.path.startsWith('/hook/')) return
    hookArrivals.push(a)
    const hook = Number(a.path.slice(6))
    const message = JSON.parse(a.body) as { type?: string; data?: { artifactId?: string; versionNumber?: number | null } }
    if (message.type === 'webhook.ping') {
      pinged.add(hook)
      return
    }
    idCount.set(a.id, (idCount.get(a.id) ?? 0) + 1)
    const key = `${hook} ${message.data?.artifactId} ${message.data?.versionNumber}`
    if (!expected.has(key)) unexpected++
    if (arrivedAt.has(key)) duplicateChanges++
    else arrivedAt.set(key, a.at)
  })

  log(`webhooks: creating ${options.hooks} over ${ownersUsed} owners on ${receiver.url}…`)
  for (let j = 0; j < options.hooks; j++) {
    const owner = owners[j % ownersUsed] as Owner
    const round = Math.floor(j / ownersUsed)
    const onProject = round % 2 === 0
    const artifactId = owner.artifactIds[(j + round) % perUser] as string
    const response = await fetch(`${apis[j % 2]}/api/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.keys[0]}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        url: `${receiver.url}/hook/${j}`,
        ...(onProject ? { project: `${owner.username}/spread` } : { artifact: artifactId }),
        description: `bench/live ${j}`,
      }),
      signal: AbortSignal.timeout(30_000),
    })
    const text = await response.text()
    if (response.status !== 201) throw new Error(`bench/live: POST /api/webhooks answered ${response.status}: ${text.slice(0, 300)}`)
    const made = JSON.parse(text) as { webhook: { id: string }; secret: string }
    hooks.push({ id: made.webhook.id, secret: made.secret })
    if (onProject) {
      projectHooks++
      for (const id of owner.artifactIds) follow(id, j)
    } else follow(artifactId, j)
  }
  if (!(await until(receiver, () => pinged.size === hooks.length, 30_000)))
    throw new Error(
      `bench/live: ${pinged.size} of ${hooks.length} webhook pings arrived within 30 s (do the API processes have WEBHOOK_ALLOWED_HOSTS=127.0.0.1?)`,
    )

  // The followed artifacts, owner by owner in turn, so consecutive appends land on different owners.
  const followed: string[] = []
  for (let i = 0; i < perUser; i++) for (const owner of owners) followed.push(owner.artifactIds[i] as string)
  const heads = new Map<string, number>()
  let failedAppends = 0
  let made = 0
  /** Appends a version to `artifactId` through `api` by its owner's second key; the expected deliveries are noted before sending. */
  const append = async (api: string, artifactId: string): Promise<{ keys: string[]; sent: number; rtt: number } | null> => {
    const owner = ownerOf.get(artifactId) as Owner
    const version = (heads.get(artifactId) ?? 1) + 1
    const keys = (followersOf.get(artifactId) ?? []).map((hook) => `${hook} ${artifactId} ${version}`)
    const sent = performance.now()
    for (const key of keys) expected.set(key, sent)
    try {
      const response = await fetch(`${api}/api/artifacts/${artifactId}/versions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${owner.keys[1]}`, 'content-type': 'application/json' },
        body: JSON.stringify({ content: documentText(2_000_000 + made++), expectedLatestVersion: version - 1 }),
        signal: AbortSignal.timeout(30_000),
      })
      await response.arrayBuffer()
      const rtt = performance.now() - sent
      if (response.status !== 201) throw new Error(`append to ${artifactId}: ${response.status}`)
      heads.set(artifactId, version)
      return { keys, sent, rtt }
    } catch (error) {
      // Nothing was written (or we cannot tell): its deliveries are not expected; the head is read again.
      for (const key of keys) expected.delete(key)
      failedAppends++
      log(`bench/live: ${(error as Error).message}`)
      const head = await fetch(`${api}/api/artifacts/${artifactId}`, { headers: { authorization: `Bearer ${owner.keys[1]}` } })
        .then((r) => r.json() as Promise<{ latestVersion?: number }>)
        .catch(() => null)
      if (head?.latestVersion) heads.set(artifactId, head.latestVersion)
      return null
    }
  }
  const allArrived = (keys: readonly string[]) => () => keys.every((k) => arrivedAt.has(k))

  // 1: one at a time, after a few unmeasured ones (JIT, prepared statements, both workers).
  const warm = Math.min(10, options.oneByOne)
  const one = { latency: [] as number[], rtt: [] as number[], missed: 0, appends: 0 }
  let next = 0
  const random = prng(33)
  for (let i = 0; i < warm + options.oneByOne && one.missed < MISSED_LIMIT; i++) {
    await sleep(PAUSE_MS[0] + random() * (PAUSE_MS[1] - PAUSE_MS[0]))
    const done = await append(apis[i % 2] as string, followed[next++ % followed.length] as string)
    if (done === null) continue
    await until(receiver, allArrived(done.keys), MISSED_AFTER_MS)
    if (i < warm) continue
    one.appends++
    one.rtt.push(done.rtt)
    for (const key of done.keys) {
      const at = arrivedAt.get(key)
      if (at === undefined) one.missed++
      else one.latency.push(at - done.sent)
    }
  }
  if (one.missed >= MISSED_LIMIT) log(`bench/live: webhooks: ${one.missed} deliveries missed one at a time; stopped that phase early`)
  log(
    `webhooks: one at a time, ${one.appends} appends: p50 ${percentile(one.latency, 0.5).toFixed(0)} ms, p95 ${percentile(one.latency, 0.95).toFixed(0)} ms`,
  )

  // 2: the burst. Each lane owns its artifacts (so `expectedLatestVersion` never races); lanes alternate A and B.
  const start = next
  const plan = Array.from({ length: options.burst }, (_, i) => (start + i) % followed.length)
  const lanes = Math.min(options.concurrency, followed.length)
  const queues: string[][] = Array.from({ length: lanes }, () => [])
  for (const index of plan) queues[index % lanes]?.push(followed[index] as string)
  const burstExpected = plan.reduce((n, index) => n + (followersOf.get(followed[index] as string)?.length ?? 0), 0)

  // (b): the receiver posted to directly, as many as the burst should deliver, as many at once; before and after the burst.
  const sample = hookArrivals.at(-1)
  const directBody = sample?.body ?? JSON.stringify({ type: 'artifact.version_created', data: { filler: 'x'.repeat(400) } })
  const agent = new Agent({ keepAlive: true })
  const postDirect = async (run: string): Promise<Throughput> => {
    let index = 0
    const began = performance.now()
    const post = (i: number) =>
      new Promise<void>((done, fail) => {
        const id = `msg_direct_${run}_${i}`
        const timestamp = String(Math.floor(Date.now() / 1000))
        const req = request(
          {
            host: '127.0.0.1',
            port: receiver.port,
            path: `/direct/${run}`,
            method: 'POST',
            agent,
            timeout: 10_000,
            headers: {
              'content-type': 'application/json',
              'content-length': String(Buffer.byteLength(directBody)),
              'user-agent': 'bench/live',
              'webhook-id': id,
              'webhook-timestamp': timestamp,
              'webhook-signature': signatureOf('whsec_YmVuY2gvbGl2ZQ==', id, timestamp, directBody),
            },
          },
          (response) => {
            response.resume()
            response.on('end', () => (response.statusCode === 200 ? done() : fail(new Error(`direct post: ${response.statusCode}`))))
          },
        )
        req.on('timeout', () => req.destroy(new Error('direct post: no answer in 10 s')))
        req.on('error', fail)
        req.end(directBody)
      })
    await Promise.all(
      Array.from({ length: lanes }, async () => {
        while (index < burstExpected) await post(index++)
      }),
    )
    const arrivals = directArrivals.get(run) ?? []
    return { count: arrivals.length, seconds: (arrivals.reduce((last, at) => Math.max(last, at), began) - began) / 1000 }
  }
  const direct: Throughput[] = []
  try {
    direct.push(await postDirect('before'))
    log(`webhooks: burst of ${options.burst} appends, ${lanes} at once through A and B, ${burstExpected} deliveries expected…`)
    const burst = { latency: [] as number[], rtt: [] as number[], appended: 0 }
    const burstKeys: string[] = []
    const sends = new Map<string, number>()
    let lastAnswer = 0
    const began = performance.now()
    await Promise.all(
      queues.map(async (queue, lane) => {
        for (const artifactId of queue) {
          const done = await append(apis[lane % 2] as string, artifactId)
          if (done === null) continue
          lastAnswer = Math.max(lastAnswer, done.sent + done.rtt)
          burst.appended++
          burst.rtt.push(done.rtt)
          for (const key of done.keys) {
            burstKeys.push(key)
            sends.set(key, done.sent)
          }
        }
      }),
    )
    const complete = await until(receiver, allArrived(burstKeys), BURST_DEADLINE_MS - (performance.now() - began))
    const arrived = burstKeys.filter((k) => arrivedAt.has(k))
    for (const key of arrived) burst.latency.push((arrivedAt.get(key) as number) - (sends.get(key) as number))
    const lastArrival = arrived.reduce((last, k) => Math.max(last, arrivedAt.get(k) as number), began)
    if (!complete)
      log(
        `bench/live: webhooks: only ${arrived.length} of ${burstKeys.length} deliveries of the burst arrived within ${BURST_DEADLINE_MS / 1000} s of its first append`,
      )
    direct.push(await postDirect('after'))

    // The delivery log of every webhook, page by page.
    const deliveryLog = { entries: 0, delivered: 0, retried: 0, attemptMs: [] as number[] }
    for (const [j, hook] of hooks.entries()) {
      const owner = owners[j % ownersUsed] as Owner
      let cursor: string | null = null
      for (let page = 0; page < 1000; page++) {
        const query: string = `limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`
        const response = await fetch(`${apis[0]}/api/webhooks/${hook.id}/deliveries?${query}`, {
          headers: { authorization: `Bearer ${owner.keys[0]}` },
          signal: AbortSignal.timeout(30_000),
        })
        if (response.status !== 200) throw new Error(`bench/live: GET /api/webhooks/${hook.id}/deliveries answered ${response.status}`)
        const body = (await response.json()) as {
          items: { status: string; attempts: { durationMs: number }[] }[]
          nextCursor: string | null
        }
        for (const item of body.items) {
          deliveryLog.entries++
          if (item.status === 'delivered') deliveryLog.delivered++
          if (item.attempts.length > 1) deliveryLog.retried++
          for (const attempt of item.attempts) deliveryLog.attemptMs.push(attempt.durationMs)
        }
        cursor = body.nextCursor
        if (cursor === null) break
      }
    }

    const badSignatures = hookArrivals.filter((a) => {
      const hook = hooks[Number(a.path.slice(6))]
      return hook === undefined || !a.signature.split(' ').includes(signatureOf(hook.secret, a.id, a.timestamp, a.body))
    }).length
    return {
      options,
      load,
      owners: ownersUsed,
      projectHooks,
      artifactHooks: hooks.length - projectHooks,
      followed: followed.length,
      lanes,
      fanOut: burstExpected / Math.max(1, options.burst),
      one,
      burst: {
        ...burst,
        failedAppends: options.burst - burst.appended,
        committed: { count: burst.appended, seconds: (lastAnswer - began) / 1000 },
        expected: burstKeys.length,
        arrived: arrived.length,
        delivered: { count: arrived.length, seconds: (lastArrival - began) / 1000 },
        direct,
      },
      pings: pinged.size,
      duplicateIds: [...idCount.values()].reduce((n, k) => n + k - 1, 0),
      duplicateChanges,
      unexpected,
      badSignatures,
      failedAppends,
      deliveryLog,
      expectedTotal: expected.size,
    }
  } finally {
    agent.destroy()
  }
}

/** The section's tables and notes, and how many things went wrong (0 for a clean run). */
export function webhookReport(w: WebhookFigures): { text: string; failures: number } {
  const ms = (x: number) => x.toFixed(0)
  const rate = (t: Throughput) => t.count / t.seconds
  const b = w.burst
  const directAll: Throughput = {
    count: b.direct.reduce((n, t) => n + t.count, 0),
    seconds: b.direct.reduce((n, t) => n + t.seconds, 0),
  }
  const burstComplete = b.arrived === b.expected
  const throughputRow = (name: string, baselineName: string, baseline: Throughput) => [
    name,
    String(b.arrived),
    b.delivered.seconds.toFixed(2),
    burstComplete ? rate(b.delivered).toFixed(0) : `— (${b.expected - b.arrived} missing)`,
    baselineName,
    String(baseline.count),
    baseline.seconds.toFixed(2),
    rate(baseline).toFixed(0),
    burstComplete ? `${(rate(b.delivered) / rate(baseline)).toFixed(2)}×` : '—',
  ]
  const throughput = [
    throughputRow(
      `webhook deliveries, burst of ${b.appended} appends (${w.fanOut.toFixed(2)} per append)`,
      `appends committed in the burst (${w.lanes} at once, A and B)`,
      b.committed,
    ),
    throughputRow('the same deliveries', `the receiver posted to directly by the bench (${w.lanes} at once; before and after)`, directAll),
  ]
  const latencyRow = (name: string, measured: number[], baselineName: string, baseline: number[], missed: string) => {
    const [p50, p95, b50, b95] = [
      percentile(measured, 0.5),
      percentile(measured, 0.95),
      percentile(baseline, 0.5),
      percentile(baseline, 0.95),
    ]
    return [
      name,
      String(measured.length),
      ms(p50),
      ms(p95),
      baselineName,
      ms(b50),
      ms(b95),
      `${(p50 / b50).toFixed(2)}×`,
      `${(p95 / b95).toFixed(2)}×`,
      missed,
    ]
  }
  const latency = [
    latencyRow(
      `commit → webhook, one append at a time (${w.one.appends}, A and B in turn, 0.25–1.25 s apart)`,
      w.one.latency,
      'the append’s round trip',
      w.one.rtt,
      String(w.one.missed),
    ),
    latencyRow(
      `commit → webhook, during the burst (${b.appended} appends)`,
      b.latency,
      'the burst’s append round trips',
      b.rtt,
      String(b.expected - b.arrived),
    ),
  ]
  const log = w.deliveryLog
  const logExpected = w.pings + w.expectedTotal
  const failures =
    w.one.missed +
    (b.expected - b.arrived) +
    w.duplicateIds +
    w.duplicateChanges +
    w.unexpected +
    w.badSignatures +
    w.failedAppends +
    (w.pings === w.projectHooks + w.artifactHooks ? 0 : 1) +
    log.retried +
    (log.entries - log.delivered) +
    (log.delivered === logExpected ? 0 : 1)
  const text = [
    `\nWebhooks: ${w.projectHooks + w.artifactHooks} webhooks (${w.projectHooks} on a project, ${w.artifactHooks} on one artifact) of ${w.owners} owners ` +
      `(${w.followed} artifacts followed), all to one receiver in the bench process (127.0.0.1, answers 200 at once); ` +
      `each API process's worker sends ≤ ${WORKER_IN_FLIGHT} at once, every 1 s and when one ends. ` +
      `Appends by the owners' other key, ~1 KiB each; load average ${w.load.toFixed(2)} at the section's start.\n`,
    `Throughput: from the burst's first append sent until the last expected delivery arrived; appends spread over the followed artifacts, ` +
      `${w.lanes} in flight (half through A, half through B).\n`,
    markdownTable(['measured', 'n', 's', 'per second', 'baseline (same run)', 'n', 's', 'per second', 'ratio'], throughput),
    `\nLatency (ms): from sending the append until each of its deliveries arrived at the receiver.\n`,
    markdownTable(['measured', 'n', 'p50', 'p95', 'baseline (same run)', 'p50', 'p95', 'ratio p50', 'ratio p95', 'missed'], latency),
    `\nExactly once: ${w.expectedTotal} change deliveries expected in all, ${w.pings} pings; ` +
      `duplicates by webhook-id ${w.duplicateIds}, the same change twice to a webhook ${w.duplicateChanges}, unexpected ${w.unexpected}, ` +
      `bad signatures ${w.badSignatures}, failed appends ${w.failedAppends}. Delivery log: ${log.entries} entries, ${log.delivered} delivered ` +
      `(expected ${logExpected}), ${log.retried} retried; attempt durationMs p50 ${percentile(log.attemptMs, 0.5)}, p95 ${percentile(log.attemptMs, 0.95)}. ` +
      `Missed, duplicates, unexpected, bad signatures, failed appends and retried must be 0, and every log entry delivered.`,
  ].join('\n')
  return { text, failures }
}
