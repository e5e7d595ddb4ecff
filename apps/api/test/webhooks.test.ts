/**
 * Webhooks (issue 33, point 3), against a receiver on this machine (WEBHOOK_ALLOWED_HOSTS names
 * 127.0.0.1): Standard Webhooks signing checked with the `standardwebhooks` package, the ping on
 * creation, a change's delivery, retries on failure, 410 disabling, redelivery with the same id,
 * secret rotation, the delivery log; an owner who loses access stops it, saying so in its log; and
 * the address rules when no host is allowed (refused at creation, and at connect time).
 */
import { lookup } from 'node:dns/promises'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { hostname } from 'node:os'
import ipaddr from 'ipaddr.js'
import { Webhook as Verifier } from 'standardwebhooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { appendNext, engine, publishNote, startTestApi, type TestApi } from './helper.ts'

interface Received {
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

/** A receiver recording every POST, answering with the statuses queued (200 when none). */
class Receiver {
  readonly received: Received[] = []
  readonly statuses: number[] = []
  private readonly server: Server
  url = ''

  constructor() {
    this.server = createServer((request, response) => {
      let body = ''
      request.on('data', (chunk) => (body += chunk))
      request.on('end', () => {
        this.received.push({ headers: request.headers, body })
        response.writeHead(this.statuses.shift() ?? 200).end('ok')
      })
    })
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve))
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`
    return this
  }

  /** Waits (20 s at most, on a busy machine) until `count` messages came, naming what it awaited when it gives up. */
  async until(count: number, what: string): Promise<Received[]> {
    const deadline = Date.now() + 20_000
    while (this.received.length < count) {
      if (Date.now() > deadline) throw new Error(`Gave up after 20 s waiting for ${what}; received ${this.received.length}`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    return this.received
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()))
  }
}

let api: TestApi
let receiver: Receiver
beforeAll(async () => {
  receiver = await new Receiver().start()
  api = await startTestApi({ env: { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' } })
})
afterAll(async () => {
  await api?.close()
  await receiver?.close()
})

type User = Awaited<ReturnType<TestApi['user']>>
let n = 0
const person = (name: string): Promise<User> => api.user(`${name}-${++n}@hooks.test`)

const publish = (owner: User, slug: string, publicView = false) => publishNote(api, owner, slug, publicView)
const append = (owner: User, id: string, expected: number) => appendNext(api, owner, id, expected)

/** The message, checked as a receiver checks it: with the secret, by the standardwebhooks package. */
function verified(secret: string, message: Received): { type: string; data: Record<string, unknown> } {
  const headers = Object.fromEntries(
    ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [name, String(message.headers[name])]),
  )
  return new Verifier(secret).verify(message.body, headers) as { type: string; data: Record<string, unknown> }
}

const deliveries = async (owner: User, id: string) => (await api.call('GET', `/api/webhooks/${id}/deliveries`, owner.token)).items

async function untilDelivery(
  owner: User,
  id: string,
  what: string,
  done: (items: { status: string; kind: string; attempts: unknown[] }[]) => boolean,
) {
  const deadline = Date.now() + 20_000
  for (;;) {
    const items = await deliveries(owner, id)
    if (done(items)) return items
    if (Date.now() > deadline) throw new Error(`Gave up after 20 s waiting for ${what}; the log: ${JSON.stringify(items)}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describe(`webhooks (${engine})`, () => {
  it('pings on creation and delivers each change, signed as Standard Webhooks says; the secret is shown once', async () => {
    const ada = await person('ada')
    const art = await publish(ada, 'plan')
    const start = receiver.received.length
    const created = await api.call('POST', '/api/webhooks', ada.token, { url: receiver.url, artifact: art.id, description: 'CI' })
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/)
    expect(created.webhook).toMatchObject({ url: receiver.url, artifactId: art.id, projectId: null, status: 'active', secretRotations: 0 })
    const listed = await api.call('GET', '/api/webhooks', ada.token)
    expect(listed.items.map((h: { id: string }) => h.id)).toEqual([created.webhook.id])
    expect(JSON.stringify(listed)).not.toContain(created.secret)

    const [ping] = (await receiver.until(start + 1, 'the ping')).slice(start)
    expect(verified(created.secret, ping as Received)).toMatchObject({ type: 'webhook.ping', data: { webhookId: created.webhook.id } })
    expect(ping?.headers['user-agent']).toMatch(/^Quire-Webhooks\//)

    await append(ada, art.id, 1)
    const [, change] = (await receiver.until(start + 2, 'the change')).slice(start)
    const message = verified(created.secret, change as Received)
    expect(message).toMatchObject({
      type: 'artifact.version_created',
      data: { kind: 'artifact.version_created', artifactId: art.id, path: `${ada.username}/notes/plan`, versionNumber: 2 },
    })
    // A tampered body or another secret does not verify.
    expect(() => verified(created.secret, { ...(change as Received), body: (change as Received).body.replace('plan', 'plon') })).toThrow()
    const other = await api.call('POST', '/api/webhooks', ada.token, { url: receiver.url, artifact: art.id })
    expect(() => verified(other.secret, change as Received)).toThrow()

    const log = await untilDelivery(
      ada,
      created.webhook.id,
      'both delivered',
      (items) => items.every((d) => d.status === 'delivered') && items.length === 2,
    )
    expect(log.map((d: { kind: string }) => d.kind)).toEqual(['artifact.version_created', 'webhook.ping'])
    expect(log[0]).toMatchObject({ eventId: expect.stringMatching(/^[1-9]/), attempts: [{ statusCode: 200, error: null }] })
    expect(log[0].attempts[0].durationMs).toBeGreaterThanOrEqual(0)
    await api.call('DELETE', `/api/webhooks/${other.webhook.id}`, ada.token)
  })

  it('retries a failure after 5 s, disables on 410, redelivers with the same id, and rotates the secret', async () => {
    const ada = await person('ada')
    const art = await publish(ada, 'retry')
    const created = await api.call('POST', '/api/webhooks', ada.token, { url: receiver.url, artifact: art.id })
    const id = created.webhook.id as string
    await untilDelivery(ada, id, 'the ping delivered', (items) => items[0]?.status === 'delivered')
    // The receiver fails once: the delivery waits 5 s, then goes.
    const start = receiver.received.length
    receiver.statuses.push(500)
    await append(ada, art.id, 1)
    const failed = await untilDelivery(
      ada,
      id,
      'a failed attempt',
      (items) => (items[0]?.attempts.length ?? 0) >= 1 && items[0]?.kind !== 'webhook.ping',
    )
    expect(failed[0]).toMatchObject({ status: 'pending', attempts: [{ statusCode: 500, error: expect.stringContaining('500') }] })
    const wait = Date.parse(failed[0].nextAttemptAt) - Date.parse(failed[0].attempts[0].at)
    expect(wait).toBeGreaterThanOrEqual(4_900)
    expect(wait).toBeLessThanOrEqual(5_100)
    const retried = await untilDelivery(ada, id, 'the retry', (items) => items[0]?.status === 'delivered')
    expect(retried[0].attempts.map((a: { statusCode: number }) => a.statusCode)).toEqual([500, 200])
    const both = (await receiver.until(start + 2, 'the retry')).slice(start)
    expect(both[0]?.headers['webhook-id']).toBe(both[1]?.headers['webhook-id'])

    // Redelivery: the same message id again.
    await api.call('POST', `/api/webhooks/${id}/deliveries/${retried[0].id}/redeliver`, ada.token)
    const again = (await receiver.until(start + 3, 'the redelivery')).at(-1)
    expect(again?.headers['webhook-id']).toBe(retried[0].id)

    // Rotation: the next message is signed with the new secret only.
    const rotated = await api.call('POST', `/api/webhooks/${id}/rotate-secret`, ada.token)
    expect(rotated.secret).not.toBe(created.secret)
    expect(rotated.webhook.secretRotations).toBe(1)
    await append(ada, art.id, 2)
    const next = (await receiver.until(start + 4, 'the delivery after rotation')).at(-1) as Received
    expect(verified(rotated.secret, next).type).toBe('artifact.version_created')
    expect(() => verified(created.secret, next)).toThrow()

    // 410 Gone: disabled, and nothing more goes out.
    receiver.statuses.push(410)
    await append(ada, art.id, 3)
    await receiver.until(start + 5, 'the 410')
    const gone = await untilDelivery(ada, id, 'the webhook disabled', (items) => items[0]?.kind === 'webhook.disabled')
    expect(gone[0].attempts[0].error).toContain('410')
    const hook = (await api.call('GET', '/api/webhooks', ada.token)).items[0]
    expect(hook).toMatchObject({ status: 'disabled', statusReason: expect.stringContaining('410') })
    await append(ada, art.id, 4)
    await new Promise((resolve) => setTimeout(resolve, 2_500))
    expect(receiver.received.length).toBe(start + 5)
    const refused = await api.request('POST', `/api/webhooks/${id}/deliveries/${retried[0].id}/redeliver`, { token: ada.token })
    expect(refused.statusCode).toBe(403)
  })

  it('a follower who loses access stops its webhook, and the log says why; only the kinds asked for go out', async () => {
    const ada = await person('ada')
    const eve = await person('eve')
    const art = await publish(ada, 'open', true)
    const created = await api.call('POST', '/api/webhooks', eve.token, {
      url: receiver.url,
      artifact: art.id,
      events: ['artifact.version_created'],
    })
    const id = created.webhook.id as string
    await untilDelivery(eve, id, 'the ping delivered', (items) => items[0]?.status === 'delivered')
    // An access change Eve may see, of a kind she did not ask for; then a version, which she did.
    await api.call('PATCH', `/api/artifacts/${art.id}/access`, ada.token, { viewerEmails: ['someone@hooks.test'] })
    await append(ada, art.id, 1)
    const asked = await untilDelivery(eve, id, 'the version delivered', (items) => items.length === 2 && items[0]?.status === 'delivered')
    expect(asked.map((d: { kind: string }) => d.kind)).toEqual(['artifact.version_created', 'webhook.ping'])
    // Now private: the next change finds Eve without access, and the webhook stops.
    await api.call('PATCH', `/api/artifacts/${art.id}/access`, ada.token, { publicView: false })
    await append(ada, art.id, 2)
    const log = await untilDelivery(eve, id, 'the webhook disabled', (items) => items[0]?.kind === 'webhook.disabled')
    expect(log.map((d: { kind: string }) => d.kind)).toEqual(['webhook.disabled', 'artifact.version_created', 'webhook.ping'])
    expect(log[0]).toMatchObject({ status: 'stopped', attempts: [{ error: expect.stringContaining('may no longer read') }] })
    expect((await api.call('GET', '/api/webhooks', eve.token)).items[0]).toMatchObject({ status: 'disabled' })
  })

  it('is the caller’s own: others get 404; creating needs a follow the caller may read', async () => {
    const ada = await person('ada')
    const eve = await person('eve')
    const art = await publish(ada, 'mine')
    const created = await api.call('POST', '/api/webhooks', ada.token, { url: receiver.url, artifact: art.id })
    const id = created.webhook.id as string
    for (const [method, path] of [
      ['DELETE', `/api/webhooks/${id}`],
      ['GET', `/api/webhooks/${id}/deliveries`],
      ['POST', `/api/webhooks/${id}/rotate-secret`],
    ] as const)
      expect((await api.request(method, path, { token: eve.token })).statusCode, `${method} ${path}`).toBe(404)
    expect(
      (await api.request('POST', '/api/webhooks', { token: eve.token, body: { url: receiver.url, artifact: art.id } })).statusCode,
    ).toBe(404)
    expect(
      (await api.request('POST', '/api/webhooks', { token: ada.token, body: { url: receiver.url, artifact: art.id, project: 'a/b' } }))
        .statusCode,
    ).toBe(400)
    const deleted = await api.call('DELETE', `/api/webhooks/${id}`, ada.token)
    expect(deleted.id).toBe(id)
    expect((await api.request('DELETE', `/api/webhooks/${id}`, { token: ada.token })).statusCode).toBe(404)
    // Created, rotated and deleted are on the account's trail.
    const trail = await api.call('GET', '/api/audit-events?action=webhook.created', ada.token)
    expect(trail.items[0]).toMatchObject({ action: 'webhook.created', data: { webhookId: id, url: receiver.url } })
  })
})

describe(`webhook targets, no host allowed (${engine})`, () => {
  let strict: TestApi
  beforeAll(async () => {
    strict = await startTestApi()
  })
  afterAll(async () => {
    await strict?.close()
  })

  it('refuses loopback, private, link-local, unique-local and IPv4-mapped addresses at creation', async () => {
    const ada = await strict.user('ada.strict@hooks.test')
    const art = await publishNote(strict, ada, 'plan')
    for (const url of [
      'http://127.0.0.1:9/hook',
      'http://localhost:9/hook',
      'http://10.1.2.3/hook',
      'http://192.168.0.1/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]/hook',
      'http://[fd00::1]/hook',
      'http://[fe80::1]/hook',
      'http://[::ffff:127.0.0.1]/hook',
      'http://2130706433/hook',
      'ftp://example.com/hook',
    ]) {
      const res = await strict.request('POST', '/api/webhooks', { token: ada.token, body: { url, artifact: art.id } })
      expect(res.statusCode, url).toBe(400)
      expect(res.json().errors[0].path, url).toBe('/body/url')
    }
  })

  it('checks the address actually connected to: a name that resolves to loopback is refused when sending', async (context) => {
    // This machine's own name resolves through /etc/hosts; where it resolves to a public address there is nothing to see.
    const name = hostname()
    const { address } = await lookup(name).catch(() => ({ address: '' }))
    if (!address || ipaddr.parse(address).range() === 'unicast') return context.skip()
    const ada = await strict.user('ada.connect@hooks.test')
    const art = await publishNote(strict, ada, 'plan')
    const created = await strict.call('POST', '/api/webhooks', ada.token, { url: `http://${name}:9/hook`, artifact: art.id })
    const deadline = Date.now() + 20_000
    let items: { attempts: { error: string | null }[] }[] = []
    while (Date.now() < deadline) {
      items = (await strict.call('GET', `/api/webhooks/${created.webhook.id}/deliveries`, ada.token)).items
      if ((items[0]?.attempts.length ?? 0) > 0) break
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect(items[0]?.attempts[0]?.error).toMatch(/not allowed|private|loopback/i)
  })
})
