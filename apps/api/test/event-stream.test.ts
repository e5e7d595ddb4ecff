/**
 * `GET /api/events` as Server-Sent Events, over a real socket: events as they commit, heartbeats,
 * `Last-Event-ID` replaying exactly what was missed, and a last `event: closed` when the key is
 * revoked, when access is lost and when the server shuts down. (The JSON long poll: events.test.ts.)
 */
import type { ChangeEvent } from '@quire/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { appendNext, engine, publishNote, startTestApi, type TestApi } from './helper.ts'

let api: TestApi
let base: string
beforeAll(async () => {
  api = await startTestApi({ env: { EVENTS_HEARTBEAT_SECONDS: '1' } })
  base = await api.app.listen({ port: 0, host: '127.0.0.1' })
})
afterAll(async () => {
  await api.close()
})

type User = Awaited<ReturnType<TestApi['user']>>
let n = 0
const person = (name: string): Promise<User> => api.user(`${name}-${++n}@stream.test`)

const publish = (owner: User, slug: string, publicView = false) => publishNote(api, owner, slug, publicView)
const append = (owner: User, id: string, expected: number) => appendNext(api, owner, id, expected)

interface Message {
  readonly id?: string
  readonly event?: string
  readonly data?: string
  readonly comment?: string
}

/** One open stream: its messages as they arrive, parsed as the SSE spec says. */
class Stream {
  readonly messages: Message[] = []
  ended = false
  private wake: (() => void) | null = null
  readonly status: number
  readonly contentType: string | null

  private constructor(response: Response) {
    this.status = response.status
    this.contentType = response.headers.get('content-type')
    if (response.body) void this.read(response.body)
    else this.ended = true
  }

  static async open(who: User, query: string, headers: Record<string, string> = {}): Promise<Stream> {
    const response = await fetch(`${base}/api/events?${query}`, {
      headers: { authorization: `Bearer ${who.token}`, accept: 'text/event-stream', ...headers },
    })
    return new Stream(response)
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder()
    let buffer = ''
    try {
      for await (const chunk of body) {
        buffer += decoder.decode(chunk, { stream: true })
        let end = buffer.indexOf('\n\n')
        while (end >= 0) {
          const block = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          const message: Record<string, string> = {}
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) message.comment = line.slice(1).trim()
            else {
              const at = line.indexOf(':')
              const field = at < 0 ? line : line.slice(0, at)
              message[field] = at < 0 ? '' : line.slice(at + 1).replace(/^ /, '')
            }
          }
          this.messages.push(message)
          end = buffer.indexOf('\n\n')
        }
        this.wake?.()
      }
    } catch {
      // The connection was cut: `ended` says so.
    } finally {
      this.ended = true
      this.wake?.()
    }
  }

  get events(): ChangeEvent[] {
    return this.messages.filter((m) => m.data !== undefined && m.event === undefined).map((m) => JSON.parse(m.data as string))
  }

  /** Waits (up to 20 s, on a busy machine) until `done` holds, saying what it awaited when it gives up. */
  async until(what: string, done: (s: Stream) => boolean): Promise<void> {
    const deadline = Date.now() + 20_000
    while (!done(this)) {
      if (Date.now() > deadline) throw new Error(`Gave up after 20 s waiting for ${what}; got ${JSON.stringify(this.messages)}`)
      if (this.ended && !done(this)) throw new Error(`The stream ended before ${what}; got ${JSON.stringify(this.messages)}`)
      await new Promise<void>((resolve) => {
        this.wake = resolve
        setTimeout(resolve, 250)
      })
    }
  }
}

describe(`event stream (${engine})`, () => {
  it('streams events as they commit, keeps alive with heartbeats, and resumes after Last-Event-ID exactly', async () => {
    const ada = await person('ada')
    const art = await publish(ada, 'plan')
    const stream = await Stream.open(ada, `artifact=${art.id}`)
    expect(stream.status).toBe(200)
    expect(stream.contentType).toContain('text/event-stream')
    await append(ada, art.id, 1)
    await append(ada, art.id, 2)
    await stream.until('two version events', (s) => s.events.length >= 2)
    expect(stream.events.map((e) => e.versionNumber)).toEqual([2, 3])
    expect(stream.messages.filter((m) => m.id !== undefined).map((m) => m.id)).toEqual(stream.events.map((e) => e.id))
    await stream.until('a heartbeat', (s) => s.messages.some((m) => m.comment === 'heartbeat'))

    // A second follower resumes after the first event: exactly the missed ones, in order, then live.
    const first = stream.events[0] as ChangeEvent
    await append(ada, art.id, 3)
    const resumed = await Stream.open(ada, `artifact=${art.id}`, { 'last-event-id': first.id })
    await resumed.until('the two missed events', (s) => s.events.length >= 2)
    expect(resumed.events.map((e) => e.versionNumber)).toEqual([3, 4])
    await append(ada, art.id, 4)
    await resumed.until('the live event', (s) => s.events.length >= 3)
    expect(resumed.events.map((e) => e.versionNumber)).toEqual([3, 4, 5])
    // `after` in the query resumes too; Last-Event-ID wins over it.
    const both = await Stream.open(ada, `artifact=${art.id}&after=0`, { 'last-event-id': first.id })
    await both.until('the events after the header', (s) => s.events.length >= 3)
    expect(both.events.map((e) => e.versionNumber)).toEqual([3, 4, 5])
  })

  it('refuses before streaming as any read does: problem+json 404, 401, 400', async () => {
    const ada = await person('ada')
    const eve = await person('eve')
    const art = await publish(ada, 'secret')
    const hidden = await Stream.open(eve, `artifact=${art.id}`)
    expect(hidden.status).toBe(404)
    expect(hidden.contentType).toContain('application/problem+json')
    const bad = await Stream.open(ada, `artifact=${art.id}`, { 'last-event-id': 'abc' })
    expect(bad.status).toBe(400)
    const anonymous = await fetch(`${base}/api/events?artifact=${art.id}`, { headers: { accept: 'text/event-stream' } })
    expect(anonymous.status).toBe(401)
    await anonymous.body?.cancel()
  })

  it('ends with event: closed when the key is revoked, and when access is lost (no event of the change leaks)', async () => {
    const ada = await person('ada')
    const eve = await person('eve')
    const art = await publish(ada, 'open', true)
    const key = await api.call('POST', '/api/api-keys', ada.token, { name: 'follower', scopes: ['artifacts:read'] })
    const byKey = await Stream.open({ ...ada, token: key.secret }, `artifact=${art.id}`)
    const byEve = await Stream.open(eve, `artifact=${art.id}`)
    await append(ada, art.id, 1)
    await byEve.until('the first event', (s) => s.events.length >= 1)
    await api.call('DELETE', `/api/api-keys/${key.id}`, ada.token)
    await byKey.until('the closing message', (s) => s.ended)
    const lastOfKey = byKey.messages.at(-1)
    expect(lastOfKey?.event).toBe('closed')
    expect(JSON.parse(lastOfKey?.data ?? '{}').reason).toBe('invalid_token')

    await api.call('PATCH', `/api/artifacts/${art.id}/access`, ada.token, { publicView: false })
    await byEve.until('the stream to end', (s) => s.ended)
    expect(byEve.events.map((e) => e.kind)).toEqual(['artifact.version_created'])
    const lastOfEve = byEve.messages.at(-1)
    expect(lastOfEve?.event).toBe('closed')
    expect(JSON.parse(lastOfEve?.data ?? '{}')).toMatchObject({ reason: 'not_found' })
  })

  it('ends every stream with reason shutting_down and every long poll when the server closes, and the close does not hang', async () => {
    const own = await startTestApi({ env: { EVENTS_HEARTBEAT_SECONDS: '30' } })
    try {
      const ownBase = await own.app.listen({ port: 0, host: '127.0.0.1' })
      const ada = await own.user(`ada-${++n}@stream.test`)
      await own.call('POST', '/api/projects', ada.token, { ownerUsername: ada.username, slug: 'notes', title: 'Notes', icon: 'n' })
      const art = await own.call('POST', '/api/artifacts', ada.token, {
        ownerUsername: ada.username,
        projectSlug: 'notes',
        slug: 'plan',
        type: 'md',
        title: 'Plan',
        content: 'x\n',
        changelog: 'first',
        access: { publicView: false, publicEdit: false },
      })
      const response = await fetch(`${ownBase}/api/events?artifact=${art.id}`, {
        headers: { authorization: `Bearer ${ada.token}`, accept: 'text/event-stream' },
      })
      expect(response.status).toBe(200)
      const text = response.text()
      // A long poll waiting at the same moment answers what it has (nothing) instead of holding the close.
      const polling = fetch(`${ownBase}/api/events?artifact=${art.id}&wait=30`, { headers: { authorization: `Bearer ${ada.token}` } })
      await new Promise((resolve) => setTimeout(resolve, 300))
      const started = performance.now()
      await own.app.close()
      const polled = await polling
      expect(polled.status).toBe(200)
      expect((await polled.json()).events).toEqual([])
      expect(performance.now() - started).toBeLessThan(10_000)
      const body = await text
      expect(body).toContain('event: closed')
      expect(body).toContain('"reason":"shutting_down"')
    } finally {
      await own.close()
    }
  })
})
