import type { ErrorCode, HandOff, OperationId, Problem } from '@quire/core/contract'

/** Extension members that some problems carry besides the RFC 9457 ones. */
export interface ProblemExtensions {
  /** Nothing was written; `diff` is the unified diff from the expected version to the head (null when not computable). */
  version_conflict: { latestVersion: number; expectedLatestVersion: number; diff: string | null }
  /** `handOff`: for an agent token, what it can do next (ask its person for the scope, or hand them the action). */
  insufficient_scope: { scope?: string; handOff?: HandOff }
  rate_limited: { retryAfter?: number }
  /** Free alternatives to the taken slug, best first (project slugs). */
  slug_taken: { suggestions?: string[] }
  /** Free alternatives when the refused value is a reserved slug (project slugs). */
  validation_failed: { suggestions?: string[] }
}

/** The problem body of an error with code `C`, its extension members typed where they are known. */
export type ProblemOf<C extends ErrorCode> = Problem & { code: C } & (C extends keyof ProblemExtensions ? ProblemExtensions[C] : unknown) &
  Readonly<Record<string, unknown>>

/** Anything the client throws on purpose: an answer of the API, or the lack of a usable one. */
export abstract class QuireError extends Error {
  /** The operation that failed. */
  readonly operationId: OperationId

  constructor(operationId: OperationId, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.operationId = operationId
  }
}

/** The API answered with a problem (RFC 9457): an expected failure with a stable `code`. */
export class QuireApiError<C extends ErrorCode = ErrorCode> extends QuireError {
  override readonly name = 'QuireApiError'
  readonly status: number
  readonly code: C
  readonly title: string
  readonly detail: string
  /** The server's request id (from the body, or the `X-Request-Id` header): quote it in a report. */
  readonly requestId: string | null
  /** The whole problem body, extension members (e.g. `latestVersion`, `diff`) included. */
  readonly problem: ProblemOf<C>
  /** The `WWW-Authenticate` challenge of a 401 or 403; names the resource metadata to sign in with. */
  readonly wwwAuthenticate: string | null
  /** Seconds to wait before retrying, from `Retry-After` (rate limiting), when given. */
  readonly retryAfter: number | null

  constructor(
    operationId: OperationId,
    answer: { status: number; problem: ProblemOf<C>; requestId: string | null; wwwAuthenticate: string | null; retryAfter: number | null },
  ) {
    super(operationId, `${answer.problem.detail} (${answer.problem.code}, HTTP ${answer.status})`)
    this.status = answer.status
    this.code = answer.problem.code
    this.title = answer.problem.title
    this.detail = answer.problem.detail
    this.requestId = answer.requestId
    this.problem = answer.problem
    this.wwwAuthenticate = answer.wwwAuthenticate
    this.retryAfter = answer.retryAfter
  }
}

/**
 * - `network`: no answer (DNS, refused connection, reset, CORS refusal in a browser);
 * - `timeout`: no complete answer within the time allowed;
 * - `invalid_response`: an answer that is not Quire's (not JSON, or an error without a known problem code).
 */
export type NetworkErrorKind = 'network' | 'timeout' | 'invalid_response'

/** No usable answer from the API: the request may or may not have been processed. */
export class QuireNetworkError extends QuireError {
  override readonly name = 'QuireNetworkError'
  readonly kind: NetworkErrorKind
  /** The HTTP status when an answer came but could not be understood. */
  readonly status: number | null

  constructor(operationId: OperationId, kind: NetworkErrorKind, message: string, options: { status?: number; cause?: unknown } = {}) {
    super(operationId, message, 'cause' in options ? { cause: options.cause } : undefined)
    this.kind = kind
    this.status = options.status ?? null
  }
}

/** Whether `error` is a problem answer of the API, optionally with the given code (narrowing `problem`). */
export function isQuireApiError<C extends ErrorCode = ErrorCode>(error: unknown, code?: C): error is QuireApiError<C> {
  return error instanceof QuireApiError && (code === undefined || error.code === code)
}
