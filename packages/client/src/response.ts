import { type ErrorCode, errorCodes, problemType } from '@quire/core/contract'
import { type ProblemOf, QuireApiError, QuireNetworkError } from './errors.ts'
import type { PreparedRequest } from './request.ts'

interface AnswerMeta {
  /** The HTTP status. */
  readonly status: number
  readonly headers: Headers
  /** The server's request id (`X-Request-Id`). */
  readonly requestId: string | null
  /** The `ETag` of the answer, when it has one (pinned content). */
  readonly etag: string | null
}

/** A successful answer with its body. */
export interface Fresh<T> extends AnswerMeta {
  readonly notModified: false
  readonly body: T
  /** True when an `Idempotency-Key` retry was answered with the first result (`Idempotent-Replayed`). */
  readonly replayed: boolean
}

/** A 304 answer to `If-None-Match`: the caller's copy is current. */
export interface NotModified extends AnswerMeta {
  readonly notModified: true
  readonly body: null
  readonly replayed: false
}

export type ApiResponse<T> = Fresh<T> | NotModified

function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(errorCodes, value)
}

/** Seconds from a `Retry-After` header (delta-seconds or an HTTP date). */
function retryAfterSeconds(header: string | null, now: number): number | null {
  if (header === null) return null
  if (/^\d+$/.test(header.trim())) return Number(header.trim())
  const at = Date.parse(header)
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000))
}

/** The problem in an error body, or null when the body is not one of Quire's problems. */
function problemOf(body: unknown, status: number): ProblemOf<ErrorCode> | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null
  const fields = body as Record<string, unknown>
  if (!isErrorCode(fields.code)) return null
  const known = errorCodes[fields.code]
  return {
    ...fields,
    type: typeof fields.type === 'string' ? fields.type : problemType(fields.code),
    title: typeof fields.title === 'string' ? fields.title : known.title,
    status: typeof fields.status === 'number' ? fields.status : status,
    code: fields.code,
    detail: typeof fields.detail === 'string' ? fields.detail : known.title,
  } as ProblemOf<ErrorCode>
}

function parseJson(request: PreparedRequest, response: Response, text: string): unknown {
  const type = response.headers.get('content-type') ?? ''
  const invalid = (why: string, cause?: unknown) =>
    new QuireNetworkError(
      request.operationId,
      'invalid_response',
      `${request.method} ${request.url} answered HTTP ${response.status} ${why}.`,
      {
        status: response.status,
        ...(cause === undefined ? {} : { cause }),
      },
    )
  if (!/\bjson\b/i.test(type)) throw invalid(`with ${type ? `\`${type}\`` : 'no content type'}, not JSON`)
  try {
    return JSON.parse(text)
  } catch (cause) {
    throw invalid('with a body that is not valid JSON', cause)
  }
}

/**
 * Reads an answer: the JSON body of a success, `notModified` for a 304, and otherwise throws a
 * `QuireApiError` (a Quire problem) or a `QuireNetworkError` (anything else).
 */
export async function readResponse<T>(request: PreparedRequest, response: Response, now = Date.now()): Promise<ApiResponse<T>> {
  const meta: AnswerMeta = {
    status: response.status,
    headers: response.headers,
    requestId: response.headers.get('x-request-id'),
    etag: response.headers.get('etag'),
  }
  if (response.status === 304) {
    await response.body?.cancel()
    return { ...meta, notModified: true, body: null, replayed: false }
  }
  const body = parseJson(request, response, await response.text())
  if (response.ok) return { ...meta, notModified: false, body: body as T, replayed: response.headers.get('idempotent-replayed') === 'true' }
  const problem = problemOf(body, response.status)
  if (!problem)
    throw new QuireNetworkError(
      request.operationId,
      'invalid_response',
      `${request.method} ${request.url} answered HTTP ${response.status} without a Quire problem code.`,
      { status: response.status },
    )
  throw new QuireApiError(request.operationId, {
    status: response.status,
    problem,
    requestId: typeof problem.requestId === 'string' ? problem.requestId : meta.requestId,
    wwwAuthenticate: response.headers.get('www-authenticate'),
    retryAfter: retryAfterSeconds(response.headers.get('retry-after'), now),
  })
}
