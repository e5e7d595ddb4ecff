import rateLimit, { normalizeIP } from '@fastify/rate-limit'
import { type DatabaseHandle, postgresRateLimitStore, type RateLimitStoreClass } from '@quire/storage'
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify'
import { Redis } from 'ioredis'
import { type AuthFailureLimiter, type AuthFailureSettings, createAuthFailureLimiter, defaultAuthFailures } from './auth-failures.ts'
import { callerOf, keepCallers } from './caller.ts'
import { RefusalError } from './problem.ts'

/** Where the counters live: this process's memory, or a store every process shares. */
export type RateLimitStoreSetting =
  | { readonly kind: 'memory' }
  /** `prefix` goes before every key (RATE_LIMIT_REDIS_PREFIX): deployments sharing one Redis keep apart. */
  | { readonly kind: 'redis'; readonly url: string; readonly prefix?: string }
  | { readonly kind: 'postgres' }

export interface RateLimitSettings {
  /** Requests per window per key. */
  readonly max: number
  readonly windowMs: number
  readonly store: RateLimitStoreSetting
  /** Refused credentials per window per client address (see auth-failures.ts). */
  readonly authFailures?: AuthFailureSettings
}

/** The limits when none are configured: generous for a person or an agent, a wall for a runaway loop. */
export const defaultRateLimit: RateLimitSettings = {
  max: 600,
  windowMs: 60_000,
  store: { kind: 'memory' },
  authFailures: defaultAuthFailures,
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Failed authentication counted per client address; null when rate limiting is off. */
    authFailures: AuthFailureLimiter | null
  }
}

/** The client address as every limit counts it: an IPv6 address by its /64. */
export const addressOf = (request: FastifyRequest): string => normalizeIP(request.ip)

/** The load balancer's probe is never counted (nor refused). */
const unlimitedUrls = new Set(['/health'])

/**
 * Whose budget a request spends: its credential's (the SHA-256 of the bearer secret, so every key
 * and token has its own budget and no secret reaches the store), else its client address.
 */
export function rateLimitKey(request: FastifyRequest): string {
  const credential = callerOf(request).credential
  return credential ? `credential:${credential.secretHash}` : `address:${addressOf(request)}`
}

/** The store reports its failures here; the request goes through (a limit is not worth an outage). */
function withFailuresLogged(Store: RateLimitStoreClass, log: FastifyBaseLogger): RateLimitStoreClass {
  return class extends Store {
    override incr(...[key, callback, timeWindow, max]: Parameters<InstanceType<RateLimitStoreClass>['incr']>): void {
      super.incr(
        key,
        (error, result) => {
          if (error) log.warn({ err: error }, 'rate limit: the counter store failed; the request was let through')
          callback(error, result)
        },
        timeWindow,
        max,
      )
    }
  }
}

/** A Redis client for the counters: reachable at boot, and quick to fail (then fail open) later. */
async function connectRedis(app: FastifyInstance, url: string): Promise<Redis> {
  const redis = new Redis(url, { lazyConnect: true, connectTimeout: 1_000, maxRetriesPerRequest: 1, enableOfflineQueue: false })
  redis.on('error', (error: Error) => app.log.warn({ err: error }, 'rate limit: Redis error'))
  try {
    await redis.connect()
  } catch (error) {
    redis.disconnect()
    const shown = new URL(url)
    shown.password = shown.password ? '***' : ''
    throw new Error(`Rate limiting: Redis at ${shown.toString()} is not reachable (${(error as Error).message}).`)
  }
  app.addHook('onClose', async () => {
    await redis.quit().catch(() => redis.disconnect())
  })
  return redis
}

/** The store a setting names, connected: a Redis client or PostgreSQL's store class (neither for memory). */
async function connectStore(
  app: FastifyInstance,
  store: RateLimitStoreSetting,
  database: DatabaseHandle,
): Promise<{ redis: Redis | null; redisPrefix: string; Postgres: RateLimitStoreClass | null }> {
  if (store.kind === 'postgres' && database.kind !== 'postgres')
    throw new Error('Rate limiting: the postgres store needs a PostgreSQL database (DATABASE_URL).')
  return {
    redis: store.kind === 'redis' ? await connectRedis(app, store.url) : null,
    redisPrefix: store.kind === 'redis' ? (store.prefix ?? '') : '',
    Postgres: store.kind === 'postgres' ? postgresRateLimitStore(database) : null,
  }
}

/** An app's counters: the store the settings name, connected, and the limiter of refused secrets on it. */
export interface Counters {
  readonly redis: Redis | null
  /** Before every key in Redis (the setting's `prefix`). */
  readonly redisPrefix: string
  readonly Postgres: RateLimitStoreClass | null
  readonly authFailures: AuthFailureLimiter
}

/**
 * Where an app's counters live (the store the settings name, connected), and the failed-
 * authentication limiter on it. The API's limits and the web app's (`/mcp`, share-link pages) all
 * count here, so a secret guessed at one is counted at the others when they share Redis or
 * PostgreSQL. Connected once per app: every limit of the app takes these.
 */
export async function countersFor(app: FastifyInstance, settings: RateLimitSettings, database: DatabaseHandle): Promise<Counters> {
  const { redis, redisPrefix, Postgres } = await connectStore(app, settings.store, database)
  // Refused credentials count against the address, in a store of the same kind (keys of their own).
  const authFailures = createAuthFailureLimiter(
    settings.authFailures ?? defaultAuthFailures,
    redis
      ? { kind: 'redis', redis, prefix: redisPrefix }
      : Postgres
        ? { kind: 'store', store: new Postgres(undefined, 'auth-failure:') }
        : { kind: 'memory' },
    addressOf,
    app.log,
  )
  return { redis, redisPrefix, Postgres, authFailures }
}

/**
 * The `@fastify/rate-limit` options that keep another limiter's counters (the web app's per-address
 * limits) in the counters' store, under keys of their own (`prefix`): with several processes they
 * count one budget, not one each. Memory: none (the plugin's default, per process).
 */
export function sharedCounterOptions(
  app: FastifyInstance,
  counters: Counters,
  prefix: string,
): { redis: Redis; nameSpace: string } | { store: RateLimitStoreClass } | Record<string, never> {
  const { redis, redisPrefix, Postgres } = counters
  if (redis) return { redis, nameSpace: redisPrefix + prefix }
  if (Postgres) {
    return {
      store: withFailuresLogged(
        class extends Postgres {
          constructor(settings?: unknown) {
            super(settings, prefix)
          }
        },
        app.log,
      ),
    }
  }
  return {}
}

/**
 * Rate limits on every route (preflights and /health excepted). A limited request is answered
 * 429 `rate_limited` with `Retry-After`; every counted one carries the RateLimit headers.
 * Returns the limiter for the not-found handler, so that unknown URLs are counted too.
 */
export async function registerRateLimit(
  app: FastifyInstance,
  settings: RateLimitSettings,
  counters: Counters,
): Promise<preHandlerAsyncHookHandler> {
  const window = settings.windowMs % 60_000 === 0 ? `${settings.windowMs / 60_000} min` : `${settings.windowMs / 1000} s`
  const { redis, redisPrefix, Postgres, authFailures } = counters
  const shared = redis
    ? { redis, nameSpace: `${redisPrefix}quire:rate-limit:` }
    : Postgres
      ? { store: withFailuresLogged(Postgres, app.log) }
      : {}
  app.decorate('authFailures', authFailures)
  // The limiter asks who calls before the handler does: worked out once.
  keepCallers(app)
  await app.register(rateLimit, {
    ...shared,
    max: settings.max,
    timeWindow: settings.windowMs,
    keyGenerator: rateLimitKey,
    allowList: (request) => request.method === 'OPTIONS' || unlimitedUrls.has(request.routeOptions.url ?? ''),
    // The IETF RateLimit-* header names, not X-RateLimit-*.
    enableDraftSpec: true,
    skipOnError: true,
    errorResponseBuilder: (_request, context) =>
      new RefusalError({
        code: 'rate_limited',
        message: `Too many requests: at most ${context.max} per ${window} for each credential (or address, without one). Retry in ${context.after}.`,
        meta: { retryAfter: Math.max(1, Math.ceil(context.ttl / 1000)) },
      }),
  })
  return app.rateLimit()
}
