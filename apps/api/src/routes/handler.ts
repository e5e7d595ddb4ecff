import type { IncomingHttpHeaders } from 'node:http'
import type { Caller, CoreDeps, OperationId, OperationInput, OperationOutput, Operations, Result, Written } from '@quire/core'
import { ok } from '@quire/core'

/** What a handler gives back: the body (null for 304) and any status or headers beyond the row's. */
export interface HttpReply<T> {
  readonly body: T | null
  readonly status?: number
  readonly headers?: Readonly<Record<string, string>>
}

export interface HandlerContext {
  readonly deps: CoreDeps
  readonly caller: Caller
  readonly headers: IncomingHttpHeaders
}

/** A route handler: parse nothing (the table's schemas did), call one use-case, shape the reply. */
export type Handler<K extends OperationId> = (
  input: OperationInput<Operations[K]>,
  ctx: HandlerContext,
) => Promise<Result<HttpReply<OperationOutput<Operations[K]>>>>

/** One handler per operation: a missing one is a compile error. */
export type Handlers = { readonly [K in OperationId]: Handler<K> }

/** A plain use-case result as a reply. */
export function reply<T>(result: Result<T>): Result<HttpReply<T>> {
  return result.ok ? ok({ body: result.value }) : result
}

/** A write's result as a reply; replays of an idempotent request are marked. */
export function written<T>(result: Result<Written<T>>, extraHeaders?: (value: T) => Record<string, string>): Result<HttpReply<T>> {
  if (!result.ok) return result
  const headers: Record<string, string> = extraHeaders ? extraHeaders(result.value.value) : {}
  if (result.value.replayed) headers['idempotent-replayed'] = 'true'
  return ok({ body: result.value.value, headers })
}

/** The `Idempotency-Key` header, when sent. */
export function idempotencyKey(headers: IncomingHttpHeaders): string | undefined {
  const value = headers['idempotency-key']
  return typeof value === 'string' ? value : undefined
}
