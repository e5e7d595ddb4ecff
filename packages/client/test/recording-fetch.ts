import type { ErrorCode } from '@quire/core/contract'
import type { FetchLike } from '../src/index.ts'

/** One request as the injected fetch received it. */
export interface Received {
  readonly url: string
  readonly method: string
  readonly headers: Record<string, string>
  readonly body: string | undefined
  readonly signal: AbortSignal | undefined
}

/**
 * A fetch that records every request and answers from a script. It stands in for the network
 * only: what is under test is the client's request building and answer reading.
 */
export function recordingFetch(answer: (request: Received, index: number) => Response | Promise<Response>) {
  const received: Received[] = []
  const fetch: FetchLike = async (url, init) => {
    const request: Received = {
      url,
      method: init.method ?? 'GET',
      headers: { ...(init.headers as Record<string, string>) },
      body: typeof init.body === 'string' ? init.body : undefined,
      signal: init.signal ?? undefined,
    }
    received.push(request)
    return answer(request, received.length - 1)
  }
  return { fetch, received }
}

export function jsonAnswer(body: unknown, init: { status?: number; headers?: Record<string, string> } = {}): Response {
  return new Response(JSON.stringify(body), {
    status: init.status ?? 200,
    headers: { 'content-type': 'application/json; charset=utf-8', ...init.headers },
  })
}

export function problemAnswer(
  status: number,
  code: ErrorCode,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Response {
  const body = { type: `urn:quire:problem:${code}`, title: 'A title', status, code, detail: `Detail of ${code}.`, ...extra }
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/problem+json; charset=utf-8', ...headers },
  })
}
