import type { IncomingHttpHeaders } from 'node:http'
import {
  type Binding,
  bindings,
  type ContentIdentity,
  errorsOf,
  IdempotencyKey,
  type OperationId,
  type OperationSpec,
  type Outcome,
  operationIds,
  operations,
  Problem,
  scopeFor,
} from '@quire/core'
import type { FastifyInstance, FastifyReply, FastifySchema } from 'fastify'
import { Type } from 'typebox'
import type { Runtime } from '../container.ts'
import { callerOf } from '../plugins/caller.ts'
import { httpStatusOf, sendFailure } from '../plugins/problem.ts'

/**
 * REST over the operation table and the binding table: one route per row, calling the row's
 * binding (the same one MCP tools and web pages call) and adding only what is HTTP: the status,
 * `Location` built from another row's path, ETag and 304 for conditional reads, cache headers,
 * `Idempotent-Replayed`.
 */

/** Operations without query parameters refuse unknown ones too: every part of a request is validated. */
const NoQuery = Type.Object({}, { additionalProperties: false })

const IdempotencyHeaders = Type.Object({ 'idempotency-key': Type.Optional(IdempotencyKey) })

/** The Fastify (and thus OpenAPI) schema of one row of the operation table. */
export function routeSchema(id: OperationId, op: OperationSpec): FastifySchema & Record<string, unknown> {
  const response: Record<string, unknown> = { [op.success.status]: op.success.schema }
  // A dry run answers 200 with its own schema: alone when the write answers 201, else either one.
  if (op.dryRun) response[200] = op.success.status === 200 ? Type.Union([op.success.schema, op.dryRun.schema]) : op.dryRun.schema
  for (const code of errorsOf(op)) response[httpStatusOf(code)] ??= { ...Problem, description: 'Problem details (RFC 9457).' }
  if (op.conditional) response[304] = { type: 'null', description: 'Not modified: your copy (If-None-Match) is current.' }
  // An action with no scope (reading one's own profile) takes any bearer credential of a user.
  const scope = op.action === null ? null : scopeFor(op.action)
  const bearer: Record<string, string[]> = op.action === null ? {} : { bearer: scope === null ? [] : [scope] }
  const security: Record<string, string[]>[] = op.action === null ? [] : op.anonymous ? [{}, bearer] : [bearer]
  return {
    operationId: id,
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    tags: [...op.tags],
    ...(op.params ? { params: op.params } : {}),
    querystring: op.query ?? NoQuery,
    ...(op.body ? { body: op.body } : {}),
    ...(op.idempotencyKey ? { headers: IdempotencyHeaders } : {}),
    response,
    security,
  }
}

/**
 * The `Location` of what an operation created: the path of the row it names, its parameters
 * filled from the output. Checked once at start, so a row naming a missing operation or parameter
 * stops the server instead of answering a broken header.
 */
export function locationOf(id: OperationId, op: OperationSpec): ((value: Record<string, unknown>) => string) | null {
  if (!op.location) return null
  const target = (operations as Record<string, OperationSpec>)[op.location.operation]
  if (!target) throw new Error(`${id}: its location names no operation (${op.location.operation}).`)
  const names = [...target.path.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1] as string)
  const fields = op.location.params
  const missing = names.filter((name) => !(name in fields))
  if (missing.length > 0 || Object.keys(fields).length !== names.length)
    throw new Error(`${id}: its location must fill exactly the path parameters of ${op.location.operation} (${names.join(', ')}).`)
  return (value) => target.path.replace(/:([A-Za-z]+)/g, (_, name: string) => encodeURIComponent(String(value[fields[name] as string])))
}

const YEAR = 31536000
/**
 * How long a shared cache (a CDN, a proxy) may serve a public pinned version without asking us
 * again. The bytes never change, but who may read them does: after the owner makes an artifact
 * private (or deletes it), a shared cache that stored it while public goes on serving it for at
 * most this long, then must revalidate (s-maxage implies proxy-revalidate) and gets the 404.
 * Browsers keep `max-age` (a year, immutable): a person's own cache holds only what they could
 * already read. A minute keeps that window short, while a hot version still costs each cache one
 * bodiless 304 per minute.
 */
const SHARED_CACHE_SECONDS = 60

/** True when `If-None-Match` lists this entity tag (or `*`); weak comparison, as RFC 9110 asks for GET. */
function matches(headers: IncomingHttpHeaders, etag: string): boolean {
  const header = headers['if-none-match']
  if (typeof header !== 'string') return false
  const bare = etag.replace(/^W\//, '')
  return header.split(',').some((tag) => {
    const t = tag.trim()
    return t === '*' || t.replace(/^W\//, '') === bare
  })
}

/**
 * The validators of a content read. A pinned version never changes: its SHA-256 is a strong
 * validator and a browser may keep it for a year; shared caches only briefly, as access may
 * change. The head moves, so its tag also names the version and it must be revalidated.
 */
function contentHeaders({ sha256, versionNumber, pinned, publicView }: ContentIdentity): Record<string, string> {
  const etag = pinned ? `"${sha256}"` : `"${sha256}.${versionNumber}"`
  const cacheControl = pinned
    ? publicView
      ? `public, max-age=${YEAR}, s-maxage=${SHARED_CACHE_SECONDS}, immutable`
      : `private, max-age=${YEAR}, immutable`
    : `${publicView ? 'public' : 'private'}, no-cache`
  return { etag, 'cache-control': cacheControl, vary: 'Authorization' }
}

/** An operation's outcome as an HTTP reply. */
function send(
  reply: FastifyReply,
  op: OperationSpec,
  outcome: Outcome<unknown>,
  location: ((value: Record<string, unknown>) => string) | null,
): FastifyReply | unknown {
  // A dry run wrote nothing: no Location of something made, and 200 whatever the write answers.
  if (outcome.dryRun) return reply.code(200).send(outcome.value)
  if (outcome.replayed) reply.header('idempotent-replayed', 'true')
  // The answer holds a secret (shown once): no cache may keep it.
  if (op.revealsSecret) reply.header('cache-control', 'no-store')
  if (location) reply.header('location', location(outcome.value as Record<string, unknown>))
  if (op.conditional && outcome.content) {
    const headers = contentHeaders(outcome.content)
    reply.headers(headers)
    if (matches(reply.request.headers, headers.etag as string)) return reply.code(304).send()
  }
  reply.code(op.success.status)
  return outcome.value
}

/** The `Idempotency-Key` header, when sent. */
function idempotencyKeyOf(headers: IncomingHttpHeaders): string | undefined {
  const value = headers['idempotency-key']
  return typeof value === 'string' ? value : undefined
}

/** Registers one Fastify route per row of the operation table, each calling its binding. */
export function registerOperations(app: FastifyInstance, runtime: Runtime): void {
  for (const id of operationIds) {
    const op: OperationSpec = operations[id]
    const bind = bindings[id] as Binding<OperationId>
    const location = locationOf(id, op)
    app.route({
      method: op.method,
      url: op.path,
      schema: routeSchema(id, op),
      ...(op.bodyOptional
        ? {
            preValidation: async (request) => {
              if (request.body === undefined || request.body === null) request.body = {}
            },
          }
        : {}),
      handler: async (request, reply) => {
        const input = { params: request.params, query: request.query, body: request.body } as never
        const caller = callerOf(request)
        const result = await bind(runtime.deps, caller, input, { idempotencyKey: idempotencyKeyOf(request.headers) })
        // Every operation but the health check authenticates a presented credential first: a
        // refused one counts against the address (429 past its budget); a valid one always passes.
        if (!result.ok && result.error.code === 'invalid_token' && caller.credential && op.action !== null && app.authFailures)
          return sendFailure(reply, await app.authFailures.failed(request, result.error))
        if (!result.ok) return sendFailure(reply, result.error)
        return send(reply, op, result.value, location)
      },
    })
  }
}
