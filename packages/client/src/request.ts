import { type OperationId, type OperationSpec, operations } from '@quire/core/contract'
import type { ClientInput } from './types.ts'

/** A request as it goes on the wire: what `send` transmits and what a dry run shows. */
export interface PreparedRequest {
  readonly operationId: OperationId
  readonly method: OperationSpec['method']
  readonly url: string
  /** Lower-case header names. */
  readonly headers: Readonly<Record<string, string>>
  /** The JSON text of the body, when the request has one. */
  readonly body?: string
}

/** Everything besides the input that shapes a request. */
export interface RequestSettings {
  /** Origin and optional path prefix of the API, e.g. `https://api.quire.example`. */
  readonly baseUrl: string
  /** The bearer credential; none for an anonymous call. */
  readonly token?: string | null
  /** Headers sent with every request (the client's defaults and the caller's extras). */
  readonly headers?: Readonly<Record<string, string>>
  readonly idempotencyKey?: string
  readonly ifNoneMatch?: string
}

/** What stands in for the credential wherever a request is shown. */
export const REDACTED = '[redacted]'

/** The row of the operation table for an id, refusing ids that are not in it. */
export function operationOf(operationId: OperationId): OperationSpec {
  const op: OperationSpec | undefined = Object.hasOwn(operations, operationId) ? operations[operationId] : undefined
  if (!op) throw new TypeError(`Unknown operation ${JSON.stringify(operationId)}.`)
  return op
}

function fillPath(op: OperationSpec, params: Readonly<Record<string, unknown>>): string {
  return op.path.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => {
    const value = params[name]
    if (value === undefined || value === null || value === '') throw new TypeError(`Missing path parameter ${JSON.stringify(name)}.`)
    const text = String(value)
    // A URL parser folds `.` and `..` segments (even percent-encoded): they would reach another route.
    if (text === '.' || text === '..') throw new TypeError(`Path parameter ${JSON.stringify(name)} may not be ${JSON.stringify(text)}.`)
    return encodeURIComponent(text)
  })
}

function queryString(query: Readonly<Record<string, unknown>> | undefined): string {
  const search = new URLSearchParams()
  for (const [name, value] of Object.entries(query ?? {})) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item === undefined || item === null) continue
      if (typeof item === 'object') throw new TypeError(`Query parameter ${JSON.stringify(name)} must be a string, number or boolean.`)
      search.append(name, String(item))
    }
  }
  const text = search.toString()
  return text === '' ? '' : `?${text}`
}

function lowerCased(headers: Readonly<Record<string, string>> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]))
}

/**
 * Builds the request for one operation, without sending it: the path with its parameters
 * substituted and URL-encoded, the query serialised, the body as JSON, and the headers. The
 * client sends exactly what this returns, so a dry run shows exactly what a real call sends.
 */
export function buildRequest<K extends OperationId>(
  operationId: K,
  input: ClientInput<K> | undefined,
  settings: RequestSettings,
): PreparedRequest {
  const op = operationOf(operationId)
  const parts = (input ?? {}) as { params?: Record<string, unknown>; query?: Record<string, unknown>; body?: unknown }
  const base = settings.baseUrl.replace(/\/+$/, '')
  const url = `${base}${fillPath(op, parts.params ?? {})}${queryString(parts.query)}`
  const headers: Record<string, string> = { accept: 'application/json, application/problem+json', ...lowerCased(settings.headers) }
  if (settings.token) headers.authorization = `Bearer ${settings.token}`
  if (settings.idempotencyKey !== undefined) {
    if (!op.idempotencyKey) throw new TypeError(`${operationId} does not take an Idempotency-Key.`)
    headers['idempotency-key'] = settings.idempotencyKey
  }
  if (settings.ifNoneMatch !== undefined) headers['if-none-match'] = settings.ifNoneMatch
  if (op.body === undefined || parts.body === undefined) return { operationId, method: op.method, url, headers }
  headers['content-type'] = 'application/json'
  return { operationId, method: op.method, url, headers, body: JSON.stringify(parts.body) }
}

/** The same request with the credential replaced by `[redacted]`: safe to print or log. */
export function redactRequest(request: PreparedRequest): PreparedRequest {
  const credential = request.headers.authorization
  if (credential === undefined) return request
  const scheme = /^(\S+)\s/.exec(credential)?.[1]
  return { ...request, headers: { ...request.headers, authorization: scheme ? `${scheme} ${REDACTED}` : REDACTED } }
}
