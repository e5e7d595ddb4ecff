/**
 * A bare Server-Sent Events client for bench/live: one socket of its own per stream (no agent, no
 * pooling, so N streams are N sockets, always to 127.0.0.1), the messages parsed as the server
 * writes them (`id:`/`data:`/`event:` lines, `:` comments, a blank line between messages), and the
 * time each chunk arrived, taken before anything is parsed.
 */
import { request } from 'node:http'

/** What an event's `data:` holds (the fields bench/live reads). */
export interface StreamEvent {
  readonly id: string
  readonly kind: string
  readonly artifactId: string
  readonly versionNumber: number | null
}

export interface Stream {
  /** Heartbeat comments received so far. */
  heartbeats: number
  /** Events received so far. */
  events: number
  /** Why the stream ended (`event: closed`, the socket ending), or null while it is open. */
  ended: string | null
  /** Told of each event, with `performance.now()` when its chunk arrived. */
  onEvent: ((event: StreamEvent, at: number) => void) | null
  /** Closes the socket. */
  close(): void
}

/**
 * Opens `GET /api/events?<query>` as a stream with `token`; resolves once the server answered 200
 * with `text/event-stream` and sent its first message (the follow has started), rejects otherwise
 * or after 30 s.
 */
export function openStream(base: URL, query: string, token: string): Promise<Stream> {
  return new Promise((resolve, reject) => {
    let settled = false
    const fail = (error: Error) => {
      if (settled) return
      settled = true
      req.destroy()
      reject(error)
    }
    const req = request({
      host: base.hostname,
      port: base.port,
      path: `/api/events?${query}`,
      headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
      agent: false,
      timeout: 30_000,
    })
    req.on('timeout', () => fail(new Error(`stream ${query}: no answer in 30 s`)))
    req.on('error', (error) => {
      if (!settled) fail(error)
      stream.ended ??= `socket error: ${error.message}`
    })
    const stream: Stream = {
      heartbeats: 0,
      events: 0,
      ended: null,
      onEvent: null,
      close: () => {
        stream.ended ??= 'closed by the bench'
        req.destroy()
      },
    }
    req.on('response', (response) => {
      const type = response.headers['content-type'] ?? ''
      if (response.statusCode !== 200 || !type.startsWith('text/event-stream')) {
        let body = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => (body += chunk))
        response.on('end', () => fail(new Error(`stream ${query}: ${response.statusCode} ${type} ${body.slice(0, 300)}`)))
        return
      }
      // Open now: the idle wait of the follow outlasts the request timeout.
      req.setTimeout(0)
      response.setEncoding('utf8')
      let buffer = ''
      response.on('data', (chunk: string) => {
        const at = performance.now()
        buffer += chunk
        let end = buffer.indexOf('\n\n')
        while (end >= 0) {
          const message = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          end = buffer.indexOf('\n\n')
          let name = 'message'
          let data = ''
          for (const line of message.split('\n')) {
            if (line === ': heartbeat') stream.heartbeats++
            else if (line.startsWith('event: ')) name = line.slice(7)
            else if (line.startsWith('data: ')) data += line.slice(6)
          }
          if (name === 'closed') stream.ended ??= `event: closed ${data}`
          else if (data !== '') {
            stream.events++
            stream.onEvent?.(JSON.parse(data) as StreamEvent, at)
          }
        }
        if (!settled) {
          settled = true
          resolve(stream)
        }
      })
      response.on('end', () => {
        stream.ended ??= 'the server ended the stream'
        fail(new Error(`stream ${query}: ended before its first message`))
      })
    })
    req.end()
  })
}
