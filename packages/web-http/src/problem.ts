import type { ErrorCode, OAuthErrorCode } from '@quire/core'
import { failureFromError, httpStatusOf, problemBody, problemMediaType } from '@quire/http-edge'
import { errorPage } from '@quire/pages'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { TooManyRequests } from './rate-limit.ts'
import { visitorOf } from './web-caller.ts'
import { IllFormedTextError } from './well-formed-text.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** On an OAuth client endpoint, the RFC 6749/7591 error code for ill-formed text in its input (default `invalid_request`). */
    oauthInputError?: OAuthErrorCode
  }
}

type FieldErrors = ReadonlyArray<{ path: string; message: string }>

/** Sends an RFC 9457 problem, the same body as the API's. */
export function sendProblem(reply: FastifyReply, code: ErrorCode, detail: string, errors?: FieldErrors): FastifyReply {
  return reply
    .code(httpStatusOf(code))
    .header('cache-control', 'no-store')
    .type(`${problemMediaType}; charset=utf-8`)
    .send(JSON.stringify(problemBody({ code, message: detail, ...(errors ? { errors: [...errors] } : {}) }, reply.request.id)))
}

/** A person's browser asks for HTML; scripts and tools get problem+json. */
function wantsHtml(request: FastifyRequest): boolean {
  return (request.headers.accept ?? '').includes('text/html')
}

/** The same failure as a page for a browser, as a problem for anything else. */
export function sendFailure(
  request: FastifyRequest,
  reply: FastifyReply,
  failure: { code: ErrorCode; title: string; message: string; errors?: FieldErrors },
): FastifyReply {
  if (!wantsHtml(request)) return sendProblem(reply, failure.code, failure.message, failure.errors)
  const visitor = visitorOf(request)
  // A refusal is as of now (a 404 after an access change, say), and its header may name the
  // person with their sign-out token: no cache keeps it.
  return reply
    .code(httpStatusOf(failure.code))
    .header('cache-control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(errorPage({ title: failure.title, message: failure.message, requestId: request.id, visitor }))
}

/**
 * The app-wide error handler, on the API's mapping (a client mistake keeps its meaning, anything
 * else is a 500 without a stack); the web app only chooses a page, a problem, or, on the OAuth
 * client endpoints (`config: { oauthErrors: true }`), RFC 6749's error shape.
 */
export function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof TooManyRequests) reply.header('retry-after', String(error.retryAfterSeconds))
  const { failure, internal } = failureFromError(error)
  if (internal) request.log.error({ err: error }, 'unhandled error')
  if (request.routeOptions.config?.oauthErrors) {
    const oauthError =
      failure.code === 'rate_limited'
        ? 'rate_limited'
        : internal
          ? 'server_error'
          : error instanceof IllFormedTextError
            ? (request.routeOptions.config.oauthInputError ?? 'invalid_request')
            : 'invalid_request'
    return reply
      .code(httpStatusOf(failure.code))
      .header('cache-control', 'no-store')
      .send({ error: oauthError, error_description: failure.message })
  }
  const title = internal
    ? 'Something went wrong'
    : failure.code === 'rate_limited'
      ? 'Too many requests'
      : 'That request was not understood'
  const message = internal
    ? 'Something went wrong on our side. Try again in a moment; the request id helps us find what happened.'
    : failure.message
  return sendFailure(request, reply, { code: failure.code, title, message, ...(failure.errors ? { errors: failure.errors } : {}) })
}

export function handleNotFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendFailure(request, reply, {
    code: 'not_found',
    title: 'Page not found',
    message: `There is no page at ${request.url.split('?')[0]}.`,
  })
}
