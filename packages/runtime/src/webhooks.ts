import { createHmac, randomBytes } from 'node:crypto'
import http from 'node:http'
import https from 'node:https'
import {
  type ChangeScope,
  type ClaimedDelivery,
  type CoreDeps,
  nextAttemptAt,
  planDeliveries,
  type WebhookSecurity,
  type WebhookStore,
} from '@quire/core'
import ipaddr from 'ipaddr.js'
import { useAgent } from 'request-filtering-agent'

/**
 * Webhooks' two halves outside the domain: what a target may be and how a message is signed
 * (`webhookSecurity`, core's port), and the delivery worker each serving process runs.
 */

const SECRET_PREFIX = 'whsec_'

/** Host names (lower case) deliveries may reach whatever they resolve to: WEBHOOK_ALLOWED_HOSTS. */
export type AllowedHosts = ReadonlySet<string>

export function allowedHostsOf(setting: string): AllowedHosts {
  return new Set(
    setting
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean),
  )
}

/** Why a literal address may not be a target: anything but a global unicast address. */
function addressRefusal(host: string): string | null {
  const bare = host.replace(/^\[|\]$/g, '')
  if (!ipaddr.isValid(bare)) return null
  const address = ipaddr.parse(bare)
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress())
    return `${bare} is an IPv4-mapped address (${(address as ipaddr.IPv6).toIPv4Address().toString()})`
  const range = address.range()
  if (range === 'unicast') return null
  const words: Record<string, string> = {
    loopback: 'a loopback address',
    private: 'a private address',
    linkLocal: 'a link-local address (the cloud metadata address among them)',
    uniqueLocal: 'a unique-local address',
    unspecified: 'the unspecified address',
  }
  return `${bare} is ${words[range] ?? `not a public address (${range})`}`
}

/** The port: a target's refusal at creation, and each webhook's secret, derived from the server key. */
export function webhookSecurity(options: {
  readonly allowedHosts: AllowedHosts
  readonly signingKey: string | undefined
  readonly store: Pick<WebhookStore, 'signingKey'>
}): WebhookSecurity & { signature(secret: string, id: string, timestamp: number, body: string): string } {
  let key: Promise<string> | null = options.signingKey ? Promise.resolve(options.signingKey) : null
  const serverKey = () => {
    key ??= options.store.signingKey(() => randomBytes(32).toString('base64url'))
    return key
  }
  return {
    refusal(url) {
      let parsed: URL
      try {
        parsed = new URL(url)
      } catch {
        return 'it is not a URL'
      }
      if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return 'only http and https are delivered to'
      if (parsed.username || parsed.password) return 'it carries credentials; put them in the path or a query instead'
      const host = parsed.hostname.toLowerCase()
      if (options.allowedHosts.has(host.replace(/^\[|\]$/g, ''))) return null
      if (host === 'localhost' || host.endsWith('.localhost')) return `${host} is a loopback name`
      return addressRefusal(host)
    },
    async secret(webhookId, rotation) {
      const bytes = createHmac('sha256', await serverKey())
        .update(`webhook:${webhookId}:${rotation}`)
        .digest()
      return `${SECRET_PREFIX}${bytes.toString('base64')}`
    },
    signature(secret, id, timestamp, body) {
      const bytes = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64')
      return `v1,${createHmac('sha256', bytes).update(`${id}.${timestamp}.${body}`).digest('base64')}`
    },
  }
}

/** What an attempt came to. */
interface Sent {
  readonly statusCode: number | null
  readonly error: string | null
  readonly durationMs: number
}

const TIMEOUT_MS = 10_000

/** One POST, no redirect followed, checked at connect time against private addresses unless the host is allowed. */
function post(url: string, body: string, headers: Record<string, string>, allowedHosts: AllowedHosts): Promise<Sent> {
  const started = performance.now()
  const target = new URL(url)
  const allowed = allowedHosts.has(target.hostname.toLowerCase().replace(/^\[|\]$/g, ''))
  const send = target.protocol === 'https:' ? https.request : http.request
  return new Promise((resolve) => {
    const done = (statusCode: number | null, error: string | null) =>
      resolve({ statusCode, error, durationMs: Math.round(performance.now() - started) })
    const request = send(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        timeout: TIMEOUT_MS,
        ...(allowed ? {} : { agent: useAgent(url, { keepAlive: false }) }),
      },
      (response) => {
        const status = response.statusCode ?? null
        response.resume()
        response.on('end', () => {
          if (status !== null && status >= 200 && status < 300) done(status, null)
          else if (status !== null && status >= 300 && status < 400)
            done(status, `The receiver answered ${status} (redirects are not followed).`)
          else done(status, `The receiver answered ${status}.`)
        })
        response.on('error', (error) => done(status, error.message))
      },
    )
    request.on('timeout', () => request.destroy(new Error(`No answer within ${TIMEOUT_MS / 1000} s.`)))
    request.on('error', (error) => done(null, error.message))
    request.end(body)
  })
}

export interface WebhookWorker {
  /** Runs one round now (tests, and the first round at start). */
  tick(): Promise<void>
  stop(): Promise<void>
}

/**
 * The delivery worker of one process: every `intervalMs` it turns new changes into deliveries
 * (each webhook's owner put to the policy for each change) and sends what is due, up to
 * `concurrency` at once, claiming each with `FOR UPDATE SKIP LOCKED` so processes share the work.
 */
export function startWebhookWorker(
  deps: CoreDeps,
  security: ReturnType<typeof webhookSecurity>,
  options: { readonly allowedHosts: AllowedHosts; readonly intervalMs?: number; readonly concurrency?: number; readonly userAgent: string },
): WebhookWorker {
  const concurrency = options.concurrency ?? 20
  const inFlight = new Set<Promise<void>>()
  let stopped = false
  let round: Promise<void> | null = null

  const fanOut = async () => {
    const head = (await deps.changes.after({ every: true }, 0, 0)).head
    for (const behind of await deps.webhooks.behind(head, 50)) {
      const { webhook } = behind
      const scope: ChangeScope = webhook.artifactId ? { artifactId: webhook.artifactId } : { projectId: webhook.projectId ?? '' }
      const read = await deps.changes.after(scope, webhook.cursor, 200)
      const to = read.rows.length === 200 ? (read.rows.at(-1)?.position ?? webhook.cursor) : Math.max(read.head, webhook.cursor)
      const views = await deps.webhooks.ownerViews(behind.owner.id, [...new Set(read.rows.map((r) => r.artifactId))])
      const at = deps.clock.now()
      const plan = planDeliveries(deps, behind, read.rows, views, at)
      if (plan.disable !== null) await deps.webhooks.disable(webhook.id, plan.disable, at, deps.ids.next('whd'))
      else await deps.webhooks.fanOut(webhook.id, webhook.cursor, to, plan.deliveries)
    }
  }

  const deliver = async ({ delivery, url, rotation }: ClaimedDelivery) => {
    const secret = await security.secret(delivery.webhookId, rotation)
    const timestamp = Math.floor(Date.now() / 1000)
    const body = JSON.stringify(delivery.payload)
    const sent = await post(
      url,
      body,
      {
        'content-type': 'application/json',
        'user-agent': options.userAgent,
        'webhook-id': delivery.id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': security.signature(secret, delivery.id, timestamp, body),
      },
      options.allowedHosts,
    )
    const at = deps.clock.now()
    const attempt = { at: at.toISOString(), ...sent }
    if (sent.error === null) {
      await deps.webhooks.recordAttempt(delivery.id, attempt, { status: 'delivered', dueAt: null, deliveredAt: at })
      return
    }
    if (sent.statusCode === 410) {
      await deps.webhooks.recordAttempt(delivery.id, attempt, { status: 'failed', dueAt: null, deliveredAt: null })
      await deps.webhooks.disable(delivery.webhookId, 'the receiver answered 410 Gone', at, deps.ids.next('whd'))
      return
    }
    const next = nextAttemptAt(delivery.attempts.length + 1, at)
    await deps.webhooks.recordAttempt(delivery.id, attempt, { status: next ? 'pending' : 'failed', dueAt: next, deliveredAt: null })
  }

  const sendDue = async () => {
    const room = concurrency - inFlight.size
    if (room <= 0) return
    const now = deps.clock.now()
    const claimed = await deps.webhooks.claimDue(now, new Date(now.getTime() + 2 * TIMEOUT_MS + 60_000), room)
    for (const one of claimed) {
      const running: Promise<void> = deliver(one)
        .catch(() => {
          // Recording failed (the database restarting): the claim lapses and another round sends it again.
        })
        .finally(() => {
          inFlight.delete(running)
          if (!stopped) void tick()
        })
      inFlight.add(running)
    }
  }

  // A call while a round runs asks for one more round after it (a change or a free slot came meanwhile).
  let again = false
  const tick = (): Promise<void> => {
    if (stopped) return Promise.resolve()
    if (round) {
      again = true
      return round
    }
    round = (async () => {
      try {
        do {
          again = false
          await fanOut()
          await sendDue()
        } while (again && !stopped)
      } catch {
        // The next round tries again.
      } finally {
        round = null
      }
    })()
    return round
  }

  // A round every second for what is due (retries), and one as soon as this process's change feed
  // hears of a change, so a delivery does not wait for the timer.
  const timer = setInterval(() => void tick(), options.intervalMs ?? 1000)
  timer.unref()
  const stop = new AbortController()
  const following = (async () => {
    try {
      let seen = (await deps.changes.after({ every: true }, 0, 0)).head
      while (!stop.signal.aborted) {
        await deps.changes.wait({ every: true }, seen, 30_000, stop.signal)
        if (stop.signal.aborted) break
        seen = (await deps.changes.after({ every: true }, 0, 0)).head
        void tick()
      }
    } catch {
      // The database went away: the timer's rounds go on.
    }
  })()
  void tick()
  return {
    tick,
    async stop() {
      stopped = true
      clearInterval(timer)
      stop.abort()
      await following
      await round
      await Promise.all([...inFlight])
    },
  }
}
