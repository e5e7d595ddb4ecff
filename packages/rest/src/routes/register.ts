import type { IncomingHttpHeaders } from 'node:http'
import {
  type Binding,
  bindings,
  type ContentIdentity,
  type ErrorCode,
  errorsOf,
  type Failure,
  inputSchemasOf,
  type OperationId,
  type OperationSpec,
  type Outcome,
  operationIds,
  operations,
  Problem,
  scopesOf,
} from '@quire/core'
import { applyContentCaching, type CachedContent, callerOf, httpStatusOf, problemMediaType, sendFailure } from '@quire/http-edge'
import type { Runtime } from '@quire/runtime'
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify'
import { Type } from 'typebox'
import { optionalBody } from '../plugins/openapi-components.ts'
import { eventStreams, wantsEventStream } from './event-stream.ts'

/**
 * REST over the operation table and the binding table: one route per row, calling the row's
 * binding (the same one MCP tools and web pages call) and adding only what is HTTP: the status,
 * `Location` built from another row's path, ETag and 304 for conditional reads, cache headers,
 * `Idempotent-Replayed`.
 */

/** A JSON answer with this schema, as OpenAPI documents it (Fastify reads the same `content` map). */
function jsonResponse(description: string, schema: unknown): Record<string, unknown> {
  return { description, content: { 'application/json': { schema } } }
}

/** Every refusal: problem details, sent as `application/problem+json` (plugins/problem.ts). */
const problemResponse = { description: 'Problem details (RFC 9457).', content: { [problemMediaType]: { schema: Problem } } }

/**
 * What the edge answers before any operation runs: 503 to a request arriving while the server
 * drains (plugins/edge.ts); and, to a body it is to read, too large (413) or not JSON (415).
 */
const edgeRefusals = ['service_unavailable'] as const satisfies readonly ErrorCode[]
const unreadableBody = ['payload_too_large', 'unsupported_media_type'] as const satisfies readonly ErrorCode[]

/** The Fastify (and thus OpenAPI) schema of one row of the operation table. */
export function routeSchema(id: OperationId, op: OperationSpec): FastifySchema & Record<string, unknown> {
  const input = inputSchemasOf(op)
  const success = op.success.status === 201 ? 'Created.' : op.hints.readOnly ? 'The answer.' : 'Done.'
  const response: Record<string, unknown> = { [op.success.status]: jsonResponse(success, op.success.schema) }
  // A dry run answers 200 with its own schema: alone when the write answers 201, else either one.
  if (op.dryRun)
    response[200] =
      op.success.status === 200
        ? jsonResponse(
            'Done; or, with `dryRun=true`, what the write would do (nothing was written).',
            Type.Union([op.success.schema, op.dryRun.schema]),
          )
        : jsonResponse('With `dryRun=true`: what the write would do (nothing was written).', op.dryRun.schema)
  for (const code of [...errorsOf(op), ...edgeRefusals, ...(op.body ? unreadableBody : [])])
    response[httpStatusOf(code)] ??= problemResponse
  if (op.conditional) response[304] = { type: 'null', description: 'Not modified: your copy (If-None-Match) is current.' }
  // Every scope the operation needs, its answer's and effect's included; an action with no scope
  // (reading one's own profile) takes any bearer credential of a user.
  const bearer: Record<string, string[]> = op.action === null ? {} : { bearer: scopesOf(op) }
  const security: Record<string, string[]>[] = op.action === null ? [] : op.anonymous ? [{}, bearer] : [bearer]
  return {
    operationId: id,
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    tags: [...op.tags],
    // What each part is checked against (an operation without a query refuses any field of one).
    ...(input.params ? { params: input.params } : {}),
    querystring: input.query,
    ...(input.body ? { body: input.body } : {}),
    // @fastify/swagger marks every body required; the document says which may be left out (see preValidation below).
    ...(op.bodyOptional ? { [optionalBody]: true } : {}),
    ...(input.headers ? { headers: input.headers } : {}),
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

/**
 * The caching of a content read, by the one rule (plugins/content-caching.ts). A pinned version's
 * tag is its SHA-256; the head moves, so its tag also names the version.
 */
function contentCaching({ sha256, versionNumber, pinned, publicView }: ContentIdentity): CachedContent {
  const etag = pinned ? `"${sha256}"` : `"${sha256}.${versionNumber}"`
  return { etag, pinned, publicView, personal: false, secretUrl: false, credential: 'Authorization' }
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
  if (location) reply.header('location', location(outcome.value as Record<string, unknown>))
  // A content read is cached by the one rule; every other answer (metadata as the caller may see
  // it now, a diff, a list, a write, a secret shown once) is kept by no cache.
  if (op.conditional && outcome.content) {
    if (applyContentCaching(reply, contentCaching(outcome.content))) return reply.code(304).send()
  } else reply.header('cache-control', 'no-store')
  reply.code(op.success.status)
  return outcome.value
}

/** The `Idempotency-Key` header, when sent. */
function idempotencyKeyOf(headers: IncomingHttpHeaders): string | undefined {
  const value = headers['idempotency-key']
  return typeof value === 'string' ? value : undefined
}

/** Registers one Fastify route per row of the operation table, each calling its binding. */
export function registerOperations(app: FastifyInstance, runtime: Runtime, options: { eventsHeartbeatSeconds?: number } = {}): void {
  // Every operation but the health check authenticates a presented credential first: a refused
  // one counts against the address (429 past its budget); a valid one always passes.
  const refuse = async (request: FastifyRequest, reply: FastifyReply, failure: Failure, op: OperationSpec) => {
    const caller = callerOf(request)
    if (failure.code === 'invalid_token' && caller.credential && op.action !== null && app.authFailures)
      return sendFailure(reply, await app.authFailures.failed(request, failure))
    return sendFailure(reply, failure)
  }
  const waiting = new Set<AbortController>()
  app.addHook('preClose', async () => {
    for (const wait of waiting) wait.abort()
  })
  // Operations that also answer as a stream when asked (`Accept: text/event-stream`).
  const streams: Partial<Record<OperationId, (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>>> = {
    listEvents: eventStreams(app, runtime, {
      heartbeatSeconds: options.eventsHeartbeatSeconds ?? 15,
      refuse: (request, reply, failure) => refuse(request, reply, failure, operations.listEvents),
    }),
  }
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
              if (request.body === undefined) request.body = {}
            },
          }
        : {}),
      handler: async (request, reply) => {
        const stream = streams[id]
        if (stream && wantsEventStream(request)) return stream(request, reply)
        const input = { params: request.params, query: request.query, body: request.body } as never
        // A long poll stops waiting when its caller goes away, or when the server closes (it then
        // answers what it has, and the caller resumes from its cursor elsewhere).
        const gone = new AbortController()
        request.raw.once('close', () => gone.abort())
        waiting.add(gone)
        const result = await bind(runtime.deps, callerOf(request), input, {
          idempotencyKey: idempotencyKeyOf(request.headers),
          signal: gone.signal,
        }).finally(() => waiting.delete(gone))
        if (!result.ok) return refuse(request, reply, result.error, op)
        return send(reply, op, result.value, location)
      },
    })
  }
}
