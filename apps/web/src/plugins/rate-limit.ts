import rateLimit, { normalizeIP } from '@fastify/rate-limit'
import type { FastifyInstance } from 'fastify'

/**
 * Per-address limits on the web app's endpoints that anyone can call without a credential and
 * that cost something: registering an OAuth client (a row each), the token and revocation
 * endpoints, and starting or finishing a sign-in. Pages people browse are not limited. The
 * counters are per process (with N web processes an address gets N times the budget).
 */
export const webRateLimits = {
  registration: { max: 30, timeWindow: 60 * 60_000 },
  tokens: { max: 120, timeWindow: 60_000 },
  signIn: { max: 60, timeWindow: 60_000 },
} as const

/** A refusal for going over a limit; the error handler answers it 429 in the endpoint's own shape. */
export class TooManyRequests extends Error {
  readonly statusCode = 429
  readonly retryAfterSeconds: number

  constructor(message: string, retryAfterSeconds: number) {
    super(message)
    this.name = 'TooManyRequests'
    this.retryAfterSeconds = retryAfterSeconds
  }
}

/** Routes opt in with `config: { rateLimit: webRateLimits.… }`; without this plugin (RATE_LIMIT_ENABLED=false) they are unlimited. */
export async function registerWebRateLimit(app: FastifyInstance): Promise<void> {
  await app.register(rateLimit, {
    global: false,
    keyGenerator: (request) => normalizeIP(request.ip),
    enableDraftSpec: true,
    errorResponseBuilder: (_request, context) => {
      const seconds = Math.max(1, Math.ceil(context.ttl / 1000))
      return new TooManyRequests(
        `Too many requests from this address: at most ${context.max} in ${context.after === '1 hour' ? 'an hour' : context.after}. Retry in ${seconds} s.`,
        seconds,
      )
    },
  })
}
