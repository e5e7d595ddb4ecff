import { type ErrorCode, errorCodes, type Failure, problemType } from '@quire/core'

/**
 * The HTTP status of each error code: the one place statuses live (core knows codes, retryability
 * and meaning; this edge knows HTTP). Both apps answer with it.
 */
export const httpStatuses = {
  validation_failed: 400,
  invalid_cursor: 400,
  unauthenticated: 401,
  invalid_token: 401,
  forbidden: 403,
  insufficient_scope: 403,
  not_found: 404,
  method_not_allowed: 405,
  not_acceptable: 406,
  version_conflict: 409,
  slug_taken: 409,
  already_member: 409,
  invitation_pending: 409,
  idempotency_key_in_use: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  idempotency_key_reused: 422,
  precondition_required: 428,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
} as const satisfies Record<ErrorCode, number>

/** The HTTP status REST answers a code with. */
export function httpStatusOf(code: ErrorCode): number {
  return httpStatuses[code]
}

import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'

/** The RFC 9457 body for a failure. */
export function problemBody(failure: Failure, requestId: string): Record<string, unknown> {
  return {
    type: problemType(failure.code),
    title: errorCodes[failure.code].title,
    status: httpStatusOf(failure.code),
    code: failure.code,
    detail: failure.message,
    requestId,
    ...(failure.errors ? { errors: failure.errors } : {}),
    ...(failure.scope ? { scope: failure.scope } : {}),
    ...failure.meta,
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Where this server's protected-resource metadata (RFC 9728) lives; named in every Bearer challenge. */
    resourceMetadataUrl: string | null
  }
}

/**
 * The RFC 6750 challenge for a failure, naming the resource metadata (RFC 9728) so that an OAuth
 * client can find the authorization server from any 401 or 403, a bad API key's included.
 */
function challenge(failure: Failure, metadataUrl: string | null): string | null {
  const base = `Bearer realm="quire"${metadataUrl ? `, resource_metadata="${metadataUrl}"` : ''}`
  switch (failure.code) {
    case 'unauthenticated':
      return base
    case 'invalid_token':
      return `${base}, error="invalid_token"`
    case 'insufficient_scope':
      return `${base}, error="insufficient_scope"${failure.scope ? `, scope="${failure.scope}"` : ''}`
    default:
      return null
  }
}

/** The media type of every refusal (RFC 9457); the OpenAPI document names it for every error status. */
export const problemMediaType = 'application/problem+json'

/** Sends a failure as `application/problem+json`, with the RFC 6750 challenge where one applies. */
export function sendFailure(reply: FastifyReply, failure: Failure): FastifyReply {
  // The reason stays here: the caller's answer is the same whatever it is.
  if (failure.reason) reply.request.log.info({ code: failure.code, reason: failure.reason }, 'request refused')
  reply.header('x-request-id', reply.request.id)
  // A refusal is as of now (access changes, links are revoked): no cache may answer it later.
  reply.header('cache-control', 'no-store')
  const header = challenge(failure, reply.server.resourceMetadataUrl ?? null)
  if (header) reply.header('www-authenticate', header)
  if (failure.code === 'rate_limited' && typeof failure.meta?.retryAfter === 'number')
    reply.header('retry-after', String(failure.meta.retryAfter))
  return reply
    .code(httpStatusOf(failure.code))
    .type(`${problemMediaType}; charset=utf-8`)
    .serializer(JSON.stringify)
    .send(problemBody(failure, reply.request.id))
}

/** A refused part's field error, as the validator compiler (core's one validator) words it. */
interface ValidationIssue {
  /** Pointer within the part (`/title`). */
  instancePath: string
  message?: string
}

function issuePath(context: string, issue: ValidationIssue): string {
  return `/${context === 'querystring' ? 'query' : context}${issue.instancePath}`
}

/** A refusal thrown from a hook (a plugin's limit, say), answered as its failure like any other. */
export class RefusalError extends Error {
  readonly failure: Failure

  constructor(failure: Failure) {
    super(failure.message)
    this.failure = failure
    this.name = 'RefusalError'
  }
}

/** The code of a client-error status a plugin may throw, where the status alone says which. */
const codeByStatus: Partial<Record<number, ErrorCode>> = {
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  406: 'not_acceptable',
  429: 'rate_limited',
}

/** Maps Fastify's own errors (validation, parsing, limits) to failures; anything else is a 500. */
export function failureFromError(error: FastifyError & { validation?: ValidationIssue[]; validationContext?: string }): {
  failure: Failure
  internal: boolean
} {
  if (error instanceof RefusalError) return { failure: error.failure, internal: false }
  if (error.validation) {
    const context = error.validationContext ?? 'body'
    const errors = error.validation.map((issue) => ({ path: issuePath(context, issue), message: issue.message ?? 'is not valid' }))
    const first = errors[0]
    return {
      failure: { code: 'validation_failed', message: first ? `${first.path} ${first.message}.` : 'The request is not valid.', errors },
      internal: false,
    }
  }
  const byFastifyCode: Record<string, [ErrorCode, string]> = {
    FST_ERR_CTP_BODY_TOO_LARGE: ['payload_too_large', 'The request body is too large.'],
    FST_ERR_CTP_INVALID_MEDIA_TYPE: ['unsupported_media_type', 'Send JSON with `Content-Type: application/json`.'],
    FST_ERR_CTP_INVALID_CONTENT_LENGTH: ['validation_failed', 'The Content-Length does not match the body.'],
    FST_ERR_CTP_EMPTY_JSON_BODY: ['validation_failed', 'The JSON body is empty.'],
    FST_ERR_CTP_INVALID_JSON_BODY: ['validation_failed', 'The body is not valid JSON.'],
    FST_ERR_BAD_URL: ['validation_failed', 'The URL is not valid.'],
  }
  const known = error.code ? byFastifyCode[error.code] : undefined
  if (known) return { failure: { code: known[0], message: known[1] }, internal: false }
  if (error instanceof SyntaxError || error.statusCode === 400)
    return { failure: { code: 'validation_failed', message: 'The request is not valid.' }, internal: false }
  if (error.statusCode === 413)
    return { failure: { code: 'payload_too_large', message: 'The request body is too large.' }, internal: false }
  if (error.statusCode === 415) return { failure: { code: 'unsupported_media_type', message: 'Unsupported media type.' }, internal: false }
  // Any other client error a plugin throws keeps its meaning (never a 500), in the closed list's words.
  const status = error.statusCode ?? 500
  if (status >= 400 && status < 500) {
    const code = codeByStatus[status] ?? 'validation_failed'
    return { failure: { code, message: error.message || errorCodes[code].title }, internal: false }
  }
  return {
    failure: { code: 'internal_error', message: 'Something went wrong on our side; the request id helps us find it.' },
    internal: true,
  }
}

/** The app-wide error handler: a client mistake is never a 500, and no stack reaches the client. */
export function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const { failure, internal } = failureFromError(error)
  if (internal) request.log.error({ err: error }, 'unhandled error')
  else request.log.info({ code: failure.code, detail: failure.message }, 'request refused')
  return sendFailure(reply, failure)
}
