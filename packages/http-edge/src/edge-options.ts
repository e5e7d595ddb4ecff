import type { Env } from '@quire/runtime'
import { listOf } from '@quire/runtime'
import type { FastifyServerOptions } from 'fastify'
import type { RateLimitSettings } from './rate-limit.ts'

/** What the HTTP edge of either app is told: request budgets, browser origins, proxies to believe. */
export interface EdgeOptions {
  /** Request budgets; `false` turns rate limiting off. Default: `defaultRateLimit`, counted in memory. */
  readonly rateLimit?: RateLimitSettings | false
  /** Browser origins allowed to call the API besides the web app's (CORS). */
  readonly corsOrigins?: readonly string[]
  /** Which proxies to believe about the client address (Fastify's `trustProxy`). Default: none. */
  readonly trustProxy?: FastifyServerOptions['trustProxy']
}

/** The settings of the HTTP edge (limits, CORS, proxies) from the environment. */
export function edgeOptions(env: Env): EdgeOptions {
  const kind = env.RATE_LIMIT_STORE ?? (env.RATE_LIMIT_REDIS_URL ? 'redis' : 'memory')
  const store = kind === 'redis' ? { kind, url: env.RATE_LIMIT_REDIS_URL ?? '', prefix: env.RATE_LIMIT_REDIS_PREFIX ?? '' } : { kind }
  return {
    rateLimit: env.RATE_LIMIT_ENABLED
      ? {
          max: env.RATE_LIMIT_MAX,
          windowMs: env.RATE_LIMIT_WINDOW_MS,
          store,
          authFailures: { max: env.RATE_LIMIT_AUTH_FAILURES, windowMs: env.RATE_LIMIT_AUTH_FAILURES_WINDOW_MS },
        }
      : false,
    corsOrigins: listOf(env.CORS_ORIGINS),
    ...(env.TRUST_PROXY === undefined ? {} : { trustProxy: trustedProxies(env.TRUST_PROXY) }),
  }
}

/**
 * TRUST_PROXY as Fastify takes it: `true`/`false`, a hop count, or addresses and CIDRs. Both apps
 * read the one setting (the web app imports this), so they believe the same proxies.
 */
export function trustedProxies(setting: string): NonNullable<EdgeOptions['trustProxy']> {
  if (setting === 'true' || setting === 'false') return setting === 'true'
  if (/^\d+$/.test(setting)) {
    const hops = Number(setting)
    return (_address: string, hop: number) => hop < hops
  }
  return setting
}
