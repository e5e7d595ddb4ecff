import type { Failure } from '@quire/core'
import type { AuthFailureLimiter } from '@quire/http-edge'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { TooManyRequests } from './rate-limit.ts'

/**
 * A secret in a URL that matched nothing (a share link unknown, revoked or expired) counts against
 * the client address as a refused API credential does: the same limiter, budget and store
 * (RATE_LIMIT_AUTH_FAILURES), so a token guessed at the API, at `/mcp` or in a link spends one
 * budget. Within it the page's own refusal is sent; past it, 429 with Retry-After (a page for a
 * browser, problem+json otherwise) until the window ends. A secret that opens something is never
 * counted nor refused here. Without a limiter (RATE_LIMIT_ENABLED=false) the refusal is always sent.
 */
export async function refuseMissedSecret(
  limiter: AuthFailureLimiter | null,
  request: FastifyRequest,
  failure: Failure,
  refusal: () => FastifyReply,
): Promise<FastifyReply> {
  const answer = limiter === null ? failure : await limiter.failed(request, failure)
  const retryAfter = answer.meta?.retryAfter
  if (answer.code === 'rate_limited' && typeof retryAfter === 'number') throw new TooManyRequests(answer.message, retryAfter)
  return refusal()
}
