/**
 * `@quire/client`: the typed REST client, derived from the operation table of `@quire/core/contract`.
 * Runs in Node 22+ and in browsers (fetch only; no Node built-ins).
 */
export { type ClientOptions, createClient, type OperationMethods, type QuireClient, type TokenSource } from './client.ts'
export {
  isQuireApiError,
  type NetworkErrorKind,
  type ProblemExtensions,
  type ProblemOf,
  QuireApiError,
  QuireError,
  QuireNetworkError,
} from './errors.ts'
export { isPaginated } from './paginate.ts'
export { buildRequest, type PreparedRequest, REDACTED, type RequestSettings, redactRequest } from './request.ts'
export type { ApiResponse, Fresh, NotModified } from './response.ts'
export type { FetchLike } from './transport.ts'
export type {
  CallArgs,
  CallOptions,
  ClientAnswer,
  ClientInput,
  ClientOutput,
  DryRunOutput,
  IdempotentOperationId,
  PageItem,
  PaginatedOperationId,
  RequestOptions,
  SendOptions,
} from './types.ts'
