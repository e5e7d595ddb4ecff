import type { ServerResponse } from 'node:http'
import { bindings, type EventBatch, type EventsQuery, type Failure, type Result } from '@quire/core'
import { callerOf } from '@quire/http-edge'
import type { Runtime } from '@quire/runtime'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'

/**
 * `GET /api/events` as Server-Sent Events: the same binding as the JSON long poll, called again
 * and again with the last event id, so every call re-checks the credential and the access (a
 * revoked key or a lost access ends the stream with `event: closed`, and each event is put to the
 * policy as it goes out). Between events a comment every heartbeat keeps proxies from closing an
 * idle stream. `Last-Event-ID` (what EventSource sends when it reconnects) wins over `after`.
 */

/** Whether the caller asked for a stream rather than JSON. */
export function wantsEventStream(request: FastifyRequest): boolean {
  const accept = request.headers.accept
  return typeof accept === 'string' && /(^|,)\s*text\/event-stream\b/i.test(accept)
}

const EVENT_ID = /^(0|[1-9][0-9]{0,17})$/

/** Why a stream ended, as its last message says. */
interface Closing {
  readonly reason: string
  readonly message: string
}

const shuttingDown: Closing = {
  reason: 'shutting_down',
  message: 'The server is shutting down; reconnect with Last-Event-ID to resume.',
}

interface LiveStream {
  readonly stop: AbortController
  closing: Closing | null
  readonly ended: Promise<void>
}

/** A stream's messages, written as they come; nothing is written once the connection is gone. */
function writer(raw: ServerResponse) {
  return (text: string) => {
    if (!raw.destroyed && !raw.writableEnded) raw.write(text)
  }
}

function eventsOf(batch: EventBatch): string {
  return batch.events.map((event) => `id: ${event.id}\ndata: ${JSON.stringify(event)}\n\n`).join('')
}

export interface EventStreamOptions {
  /** Seconds between heartbeat comments (default 15). */
  readonly heartbeatSeconds: number
  /** How the route answers a refusal before the stream starts (the operations' own way). */
  readonly refuse: (request: FastifyRequest, reply: FastifyReply, failure: Failure) => Promise<unknown>
}

/** Registers what the streams need of the app (ending them all, with a last message, when it closes) and returns the handler. */
export function eventStreams(app: FastifyInstance, runtime: Runtime, options: EventStreamOptions) {
  const live = new Set<LiveStream>()
  app.addHook('preClose', async () => {
    for (const stream of live) {
      stream.closing ??= shuttingDown
      stream.stop.abort()
    }
    await Promise.all([...live].map((stream) => stream.ended))
  })

  const follow = (request: FastifyRequest, query: EventsQuery, signal?: AbortSignal): Promise<Result<{ value: EventBatch }>> =>
    bindings.listEvents(runtime.deps, callerOf(request), { query } as never, { signal })

  return async (request: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
    const query = request.query as EventsQuery
    const header = request.headers['last-event-id']
    const lastEventId = typeof header === 'string' && header.trim() !== '' ? header.trim() : undefined
    if (lastEventId !== undefined && !EVENT_ID.test(lastEventId))
      return options.refuse(request, reply, {
        code: 'validation_failed',
        message: 'Last-Event-ID must be an event id this server sent (a decimal number).',
        errors: [{ path: '/headers/last-event-id', message: 'must be a decimal event id' }],
      })
    const after = lastEventId ?? query.after
    // The first read answers refusals as any operation does (404, 401, 403), before the stream starts.
    const first = await follow(request, { ...query, ...(after === undefined ? {} : { after }), wait: 0 })
    if (!first.ok) return options.refuse(request, reply, first.error)

    reply.hijack()
    const raw = reply.raw
    const write = writer(raw)
    raw.writeHead(200, {
      ...(reply.getHeaders() as Record<string, string>),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
      connection: 'keep-alive',
    })
    write(`retry: 1000\n: following from event ${first.value.value.cursor}\n\n${eventsOf(first.value.value)}`)

    let finish = () => {}
    const stream: LiveStream = { stop: new AbortController(), closing: null, ended: new Promise((resolve) => (finish = resolve)) }
    live.add(stream)
    raw.on('close', () => stream.stop.abort())
    let cursor = first.value.value.cursor
    try {
      while (!stream.stop.signal.aborted) {
        const next = await follow(request, { ...query, after: cursor, wait: options.heartbeatSeconds }, stream.stop.signal)
        if (stream.stop.signal.aborted) break
        if (!next.ok) {
          stream.closing = { reason: next.error.code, message: next.error.message }
          break
        }
        const batch = next.value.value
        cursor = batch.cursor
        write(batch.events.length > 0 ? eventsOf(batch) : ': heartbeat\n\n')
      }
    } catch (error) {
      request.log.error({ err: error }, 'event stream failed')
      stream.closing = { reason: 'internal_error', message: 'The stream failed; reconnect with Last-Event-ID to resume.' }
    } finally {
      if (stream.closing) write(`event: closed\ndata: ${JSON.stringify(stream.closing)}\n\n`)
      if (!raw.writableEnded) raw.end()
      live.delete(stream)
      finish()
    }
    return undefined
  }
}
