import { errorsOf, type OperationId, type OperationSpec, operationIds, operations, Problem, scopeFor, statusOf } from '@quire/core'
import type { FastifyInstance, FastifySchema } from 'fastify'
import { Type } from 'typebox'
import type { Runtime } from '../container.ts'
import { callerOf } from '../plugins/caller.ts'
import { sendFailure } from '../plugins/problem.ts'
import type { Handler, Handlers } from './handler.ts'

/** Operations without query parameters refuse unknown ones too: every part of a request is validated. */
const NoQuery = Type.Object({}, { additionalProperties: false })

const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: '^[\\x21-\\x7e]+$',
      description: 'Makes the write safe to retry: a retry with the same key and body returns the first result and writes nothing.',
    }),
  ),
})

/** The Fastify (and thus OpenAPI) schema of one row of the operation table. */
export function routeSchema(id: OperationId, op: OperationSpec): FastifySchema & Record<string, unknown> {
  const response: Record<string, unknown> = { [op.success.status]: op.success.schema }
  for (const code of errorsOf(op)) response[statusOf(code)] ??= { ...Problem, description: 'Problem details (RFC 9457).' }
  if (id === 'getContent') response[304] = { type: 'null', description: 'Not modified: your copy (If-None-Match) is current.' }
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

/** Registers one Fastify route per row of the operation table, each calling its handler. */
export function registerOperations(app: FastifyInstance, runtime: Runtime, handlers: Handlers): void {
  for (const id of operationIds) {
    const op: OperationSpec = operations[id]
    const handler = handlers[id] as Handler<OperationId>
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
        const result = await handler(input, { deps: runtime.deps, caller, headers: request.headers })
        // Every operation but the health check authenticates a presented credential first: a
        // refused one counts against the address, any other outcome proves it valid.
        if (caller.credential && op.action !== null && app.authFailures) {
          if (!result.ok && result.error.code === 'invalid_token')
            return sendFailure(reply, await app.authFailures.failed(request, result.error))
          app.authFailures.succeeded(caller.credential.secretHash)
        }
        if (!result.ok) return sendFailure(reply, result.error)
        const { body, status, headers } = result.value
        if (headers) reply.headers(headers)
        reply.code(status ?? op.success.status)
        return body === null ? reply.send() : body
      },
    })
  }
}
