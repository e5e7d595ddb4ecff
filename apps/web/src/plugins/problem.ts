import { type ErrorCode, errorCodes, problemType, statusOf } from '@quire/core'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { errorPage } from '../pages/error-page.ts'
import { TooManyRequests } from './rate-limit.ts'

/** Sends an RFC 9457 problem, the same shape as the API's. */
export function sendProblem(reply: FastifyReply, code: ErrorCode, detail: string): FastifyReply {
  return reply
    .code(statusOf(code))
    .type('application/problem+json; charset=utf-8')
    .send(
      JSON.stringify({
        type: problemType(code),
        title: errorCodes[code].title,
        status: statusOf(code),
        code,
        detail,
        requestId: reply.request.id,
      }),
    )
}

/** A person's browser asks for HTML; scripts and tools get problem+json. */
function wantsHtml(request: FastifyRequest): boolean {
  return (request.headers.accept ?? '').includes('text/html')
}

/** The same failure as a page for a browser, as a problem for anything else. */
export function sendFailure(
  request: FastifyRequest,
  reply: FastifyReply,
  failure: { code: ErrorCode; title: string; message: string },
): FastifyReply {
  if (!wantsHtml(request)) return sendProblem(reply, failure.code, failure.message)
  return reply
    .code(statusOf(failure.code))
    .type('text/html; charset=utf-8')
    .send(errorPage({ title: failure.title, message: failure.message, requestId: request.id }))
}

/** The app-wide error handler: client mistakes keep their status, anything else is a 500 without a stack. */
export function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const status = error.statusCode ?? 500
  if (error instanceof TooManyRequests) {
    reply.header('retry-after', String(error.retryAfterSeconds))
    // OAuth clients read RFC 6749's error shape; people and other callers get a page or a problem.
    if (request.url.startsWith('/oauth2/') && request.method === 'POST' && !request.url.startsWith('/oauth2/authorize'))
      return reply.code(429).header('cache-control', 'no-store').send({ error: 'rate_limited', error_description: error.message })
    return sendFailure(request, reply, { code: 'rate_limited', title: 'Too many requests', message: error.message })
  }
  if (status >= 500) {
    request.log.error({ err: error }, 'unhandled error')
    return sendFailure(request, reply, {
      code: 'internal_error',
      title: 'Something went wrong',
      message: 'Something went wrong on our side. Try again in a moment; the request id helps us find what happened.',
    })
  }
  const code: ErrorCode = status === 413 ? 'payload_too_large' : status === 415 ? 'unsupported_media_type' : 'validation_failed'
  return sendFailure(request, reply, { code, title: 'That request was not understood', message: error.message })
}

export function handleNotFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendFailure(request, reply, {
    code: 'not_found',
    title: 'Page not found',
    message: `There is no page at ${request.url.split('?')[0]}.`,
  })
}
