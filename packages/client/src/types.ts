import type { OperationDryRunOutput, OperationId, OperationInput, OperationOutput, Operations } from '@quire/core/contract'

type InputOf<K extends OperationId> = OperationInput<Operations[K]>

/** One part of a request (`params`, `query` or `body`): absent, optional or required. */
type Part<Name extends string, T, Optional extends boolean> = [T] extends [undefined]
  ? { readonly [P in Name]?: undefined }
  : Optional extends true
    ? { readonly [P in Name]?: T }
    : { readonly [P in Name]: T }

type Simplify<T> = { [P in keyof T]: T[P] }

/** The type with no required keys: `Empty extends T` holds when every key of `T` is optional. */
type Empty = Record<never, never>

/**
 * What a caller passes for an operation: the row's `params`, `query` and `body`. A part the row
 * does not have is left out; a query whose fields are all optional, and a body the row marks
 * `bodyOptional`, may be left out.
 */
export type ClientInput<K extends OperationId> = Simplify<
  Part<'params', InputOf<K>['params'], false> &
    Part<'query', InputOf<K>['query'], Empty extends InputOf<K>['query'] ? true : false> &
    Part<'body', InputOf<K>['body'], Operations[K] extends { readonly bodyOptional: true } ? true : false>
>

/** The success body of an operation. */
export type ClientOutput<K extends OperationId> = OperationOutput<Operations[K]>

/** What a dry run of a write answers (`?dryRun=true`; `never` for an operation without one). */
export type DryRunOutput<K extends OperationId> = OperationDryRunOutput<Operations[K]>

/**
 * What a call answers for the input given: a dry run's answer when the input's query says
 * `dryRun: true`, both when it may (a `boolean`), else the success body.
 */
export type ClientAnswer<K extends OperationId, I> = [DryRunOutput<K>] extends [never]
  ? ClientOutput<K>
  : I extends { readonly query?: infer Q }
    ? Q extends { readonly dryRun?: infer D }
      ? true extends D
        ? false extends D
          ? ClientOutput<K> | DryRunOutput<K>
          : undefined extends D
            ? ClientOutput<K> | DryRunOutput<K>
            : DryRunOutput<K>
        : ClientOutput<K>
      : ClientOutput<K>
    : ClientOutput<K>

/** The operations that accept an `Idempotency-Key` header. */
export type IdempotentOperationId = { [K in OperationId]: Operations[K] extends { readonly idempotencyKey: true } ? K : never }[OperationId]

/** Options every call takes. */
export interface RequestOptions {
  /** Cancels the call; the promise then rejects with the signal's reason. */
  readonly signal?: AbortSignal
  /** Gives up after this many milliseconds (overrides the client's `timeoutMs`); 0 disables. */
  readonly timeoutMs?: number
  /** Extra request headers for this call (names are case-insensitive; these win over the client's). */
  readonly headers?: Readonly<Record<string, string>>
}

/** Per-call options: an `Idempotency-Key` only where the operation accepts one. */
export type CallOptions<K extends OperationId> = RequestOptions &
  (K extends IdempotentOperationId
    ? {
        /** Makes the write safe to retry: a retry with the same key and body returns the first result. */
        readonly idempotencyKey?: string
      }
    : { readonly idempotencyKey?: never })

/** `send` also takes `If-None-Match`, and may then answer "not modified". */
export type SendOptions<K extends OperationId> = CallOptions<K> & {
  /** An ETag the caller holds; a 304 answer comes back as `{ notModified: true }`. */
  readonly ifNoneMatch?: string
}

/** The arguments after the operation id: the input may be left out when nothing in it is required. */
export type CallArgs<K extends OperationId, O = CallOptions<K>> =
  Empty extends ClientInput<K> ? [input?: ClientInput<K>, options?: O] : [input: ClientInput<K>, options?: O]

/** The item type of a list operation (`{ items, nextCursor }`), or never. */
export type PageItem<K extends OperationId> = ClientOutput<K> extends { items: Array<infer I>; nextCursor: string | null } ? I : never

/** The operations that return a page and take a `cursor`: the ones `paginate` walks. */
export type PaginatedOperationId = { [K in OperationId]: [PageItem<K>] extends [never] ? never : K }[OperationId]
