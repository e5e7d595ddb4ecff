import { type OperationId, operationIds, type PageOf } from '@quire/core/contract'
import { QuireNetworkError } from './errors.ts'
import { walkPages } from './paginate.ts'
import { buildRequest, type PreparedRequest, redactRequest } from './request.ts'
import type { ApiResponse } from './response.ts'
import { type FetchLike, transmit } from './transport.ts'
import type { CallArgs, ClientAnswer, ClientInput, ClientOutput, PageItem, PaginatedOperationId, SendOptions } from './types.ts'

/** A bearer credential, or a function that produces one per request (read from a keyring, refreshed…). */
export type TokenSource = string | null | (() => string | null | undefined | Promise<string | null | undefined>)

export interface ClientOptions {
  /** Origin (and optional path prefix) of the API, e.g. `https://api.quire.example`. */
  readonly baseUrl: string
  /** Sent as `Authorization: Bearer <token>`; leave out for anonymous calls. */
  readonly token?: TokenSource
  /** Defaults to `globalThis.fetch`. */
  readonly fetch?: FetchLike
  /** `User-Agent` (Node and other servers; browsers set their own). */
  readonly userAgent?: string
  /** Names the calling surface for the audit trail, e.g. `cli/0.1.0` (`Quire-Client` header). */
  readonly clientName?: string
  /** Headers sent with every request. */
  readonly headers?: Readonly<Record<string, string>>
  /** A time limit for every call, in milliseconds (a call's own `timeoutMs` wins); none by default. */
  readonly timeoutMs?: number
}

/** `client.ops.<operationId>(input, options)`: one method per row of the operation table, derived, none written by hand. */
export type OperationMethods = {
  readonly [K in OperationId]: <const A extends CallArgs<K>>(...args: A) => Promise<ClientAnswer<K, A[0]>>
}

export interface QuireClient {
  /** Calls an operation; resolves with its success body, rejects with `QuireApiError` or `QuireNetworkError`. */
  call<K extends OperationId, const A extends CallArgs<K> = CallArgs<K>>(operationId: K, ...args: A): Promise<ClientAnswer<K, A[0]>>
  /** Like `call`, with the answer's status and headers (`replayed`, `etag`, `requestId`), and `If-None-Match`. */
  send<K extends OperationId>(operationId: K, ...args: CallArgs<K, SendOptions<K>>): Promise<ApiResponse<ClientOutput<K>>>
  /** The request `call` would send, credential resolved and then redacted: for `--dry-run`. Sends nothing. */
  dryRun<K extends OperationId>(operationId: K, ...args: CallArgs<K, SendOptions<K>>): Promise<PreparedRequest>
  /** Every item of a list, across pages, fetching the next page only when needed. */
  paginate<K extends PaginatedOperationId>(operationId: K, ...args: CallArgs<K>): AsyncGenerator<PageItem<K>, void, undefined>
  /** Every page of a list (`{ items, nextCursor }`), in order. */
  pages<K extends PaginatedOperationId>(operationId: K, ...args: CallArgs<K>): AsyncGenerator<PageOf<PageItem<K>>, void, undefined>
  /** One method per operation: `client.ops.getArtifact({ params: { artifactId } })`. */
  readonly ops: OperationMethods
}

type AnyInput = ClientInput<OperationId> | undefined
type AnyOptions = SendOptions<OperationId> | undefined

/** A typed client of the Quire REST API. Works in Node 22+ and in browsers. */
export function createClient(options: ClientOptions): QuireClient {
  const baseUrl = new URL(options.baseUrl).href
  const fetch = options.fetch ?? ((url, init) => globalThis.fetch(url, init))
  const defaults: Record<string, string> = {
    ...(options.userAgent ? { 'user-agent': options.userAgent } : {}),
    ...(options.clientName ? { 'quire-client': options.clientName } : {}),
    ...options.headers,
  }

  async function prepare(operationId: OperationId, input: AnyInput, callOptions: AnyOptions): Promise<PreparedRequest> {
    const token = typeof options.token === 'function' ? await options.token() : options.token
    return buildRequest(operationId, input, {
      baseUrl,
      token: token ?? null,
      headers: { ...defaults, ...callOptions?.headers },
      idempotencyKey: callOptions?.idempotencyKey,
      ifNoneMatch: callOptions?.ifNoneMatch,
    })
  }

  async function send(operationId: OperationId, input?: AnyInput, callOptions?: AnyOptions): Promise<ApiResponse<unknown>> {
    const request = await prepare(operationId, input, callOptions)
    return transmit(request, fetch, { signal: callOptions?.signal, timeoutMs: callOptions?.timeoutMs ?? options.timeoutMs })
  }

  async function call(operationId: OperationId, input?: AnyInput, callOptions?: AnyOptions): Promise<unknown> {
    const { ifNoneMatch: _, ...rest } = callOptions ?? {}
    const answer = await send(operationId, input, rest)
    if (answer.notModified)
      throw new QuireNetworkError(operationId, 'invalid_response', `${operationId} answered 304 to a call without If-None-Match.`)
    return answer.body
  }

  function pages(operationId: OperationId, input?: AnyInput, callOptions?: AnyOptions) {
    return walkPages(operationId, input, (pageInput) => call(operationId, pageInput as AnyInput, callOptions) as Promise<PageOf<unknown>>)
  }

  async function* paginate(operationId: OperationId, input?: AnyInput, callOptions?: AnyOptions) {
    for await (const page of pages(operationId, input, callOptions)) yield* page.items
  }

  const ops = Object.fromEntries(
    operationIds.map((id) => [id, (input?: AnyInput, callOptions?: AnyOptions) => call(id, input, callOptions)]),
  ) as unknown as OperationMethods

  return {
    call,
    send,
    dryRun: async (operationId: OperationId, input?: AnyInput, callOptions?: AnyOptions) =>
      redactRequest(await prepare(operationId, input, callOptions)),
    paginate,
    pages,
    ops: Object.freeze(ops),
  } as unknown as QuireClient
}
