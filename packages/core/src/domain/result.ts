import type { ErrorCode } from '../contract/errors.ts'

/** An expected failure: a stable code, a human message and optional extension members. */
export interface Failure {
  readonly code: ErrorCode
  readonly message: string
  /** Extension members for the problem body (e.g. `latestVersion` on a conflict). */
  readonly meta?: Readonly<Record<string, unknown>>
  /** Field-level complaints for `validation_failed`. */
  readonly errors?: ReadonlyArray<{ path: string; message: string }>
  /** For `insufficient_scope`: the scope the credential lacks. */
  readonly scope?: string
  /**
   * Why, for the server's log only: never sent to the caller (a refused credential's answer is the
   * same whether it is unknown, expired or revoked; the reason is logged and audited).
   */
  readonly reason?: string
}

export type Result<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: Failure }

export function ok<T>(value: T): Result<T> {
  return { ok: true, value }
}

export function fail<T = never>(code: ErrorCode, message: string, extra: Omit<Failure, 'code' | 'message'> = {}): Result<T> {
  return { ok: false, error: { code, message, ...extra } }
}
