import { QuireError, QuireNetworkError } from './errors.ts'
import type { PreparedRequest } from './request.ts'
import { type ApiResponse, readResponse } from './response.ts'

/** The part of `fetch` the client uses; inject another (a test double, an instrumented one) through the options. */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>

export interface TransmitOptions {
  readonly signal?: AbortSignal
  /** 0 or undefined: no time limit. */
  readonly timeoutMs?: number
}

/**
 * Sends a prepared request exactly as built and reads the answer. A failure to get one becomes a
 * `QuireNetworkError` (`timeout` when the time limit ran out); a caller's own abort rejects with
 * its signal's reason, as `fetch` does.
 */
export async function transmit<T>(request: PreparedRequest, fetch: FetchLike, options: TransmitOptions = {}): Promise<ApiResponse<T>> {
  const timeout = options.timeoutMs ? AbortSignal.timeout(options.timeoutMs) : undefined
  const signals = [options.signal, timeout].filter((s): s is AbortSignal => s !== undefined)
  const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0]
  try {
    signal?.throwIfAborted()
    const response = await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      ...(request.body === undefined ? {} : { body: request.body }),
      ...(signal ? { signal } : {}),
    })
    return await readResponse<T>(request, response)
  } catch (error) {
    if (error instanceof QuireError) throw error
    if (options.signal?.aborted) throw options.signal.reason
    const where = `${request.method} ${request.url}`
    if (timeout?.aborted)
      throw new QuireNetworkError(request.operationId, 'timeout', `${where} got no answer within ${options.timeoutMs} ms.`, {
        cause: error,
      })
    const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : ''
    const why = error instanceof Error ? `${error.message}${cause}` : String(error)
    throw new QuireNetworkError(request.operationId, 'network', `${where} failed: ${why}`, { cause: error })
  }
}
