import rateLimit, { normalizeIP } from '@fastify/rate-limit'
import type { FastifyInstance, FastifyRequest } from 'fastify'

/**
 * Per-address limits on the web app's endpoints that anyone can call without a credential and
 * that cost something: registering an OAuth client (a row each), the token and revocation
 * endpoints, and starting or finishing a sign-in. Pages people browse are not limited. The
 * counters live where the API's do (RATE_LIMIT_STORE / RATE_LIMIT_REDIS_URL): shared by every web
 * process with Redis or PostgreSQL, per process in memory (N processes, N times the budget).
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

/**
 * Routes opt in with `config: { rateLimit: webRateLimits.… }`; without this plugin (RATE_LIMIT_ENABLED=false) they are unlimited.
 * `shared`: the store options of `sharedCounterOptions` (@quire/http-edge), none for memory.
 */
export async function registerWebRateLimit(app: FastifyInstance, shared: object = {}): Promise<void> {
  await app.register(rateLimit, {
    ...shared,
    global: false,
    // A shared store that fails lets the request through, as the API's limits do: a limit is not worth an outage.
    skipOnError: true,
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

/** A budget counted per key in the web app's counters: `exceeded` once more than `max` were counted in the window. */
export type Budget = (
  request: FastifyRequest,
  options?: { readonly increment?: boolean },
) => Promise<{ exceeded: boolean; retryAfterSeconds: number }>

/**
 * A budget per key (a client address, an email, an account), for limits that depend on what a
 * request says, not only where it comes from. A null key is not counted. Without the rate-limit
 * plugin (RATE_LIMIT_ENABLED=false) nothing is ever exceeded.
 */
export function budget(
  app: FastifyInstance,
  options: {
    readonly name: string
    readonly max: number
    readonly timeWindow: number
    readonly key: (request: FastifyRequest) => string | null
  },
): Budget {
  if (!app.hasDecorator('createRateLimit')) return async () => ({ exceeded: false, retryAfterSeconds: 0 })
  const check = app.createRateLimit({
    max: options.max,
    timeWindow: options.timeWindow,
    keyGenerator: (request) => `${options.name}:${options.key(request) ?? ''}`,
    allowList: (request) => options.key(request) === null,
  })
  return async (request, callOptions) => {
    const result = await check(request, callOptions?.increment === false ? { increment: false } : undefined)
    if (result.isAllowed) return { exceeded: false, retryAfterSeconds: 0 }
    // Read without counting, the request that fills the budget is not over it yet.
    const exceeded = callOptions?.increment === false ? result.remaining <= 0 : result.isExceeded
    return { exceeded, retryAfterSeconds: Math.max(1, result.ttlInSeconds) }
  }
}

/** The client address as the per-address limits count it (an IPv6 address by its /64). */
export function addressOf(request: FastifyRequest): string {
  return normalizeIP(request.ip)
}
