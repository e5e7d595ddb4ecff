import Fastify, { type FastifyInstance, type FastifyServerOptions, LogController } from 'fastify'
import { type Env, listOf } from './config.ts'
import type { Runtime } from './container.ts'
import { registerEdge } from './plugins/edge.ts'
import { registerOpenApi } from './plugins/openapi.ts'
import { handleError } from './plugins/problem.ts'
import { countersFor, defaultRateLimit, type RateLimitSettings, registerRateLimit } from './plugins/rate-limit.ts'
import { requestIdOf } from './plugins/request-id.ts'
import { registerResourceMetadata } from './plugins/resource-metadata.ts'
import { registerCors } from './plugins/security.ts'
import { drainOnClose } from './plugins/shutdown.ts'
import { validatorCompiler } from './plugins/validation.ts'
import { handleUnrouted } from './routes/method-not-allowed.ts'
import { registerOperations } from './routes/register.ts'

export interface AppOptions {
  readonly logger?: FastifyServerOptions['logger']
  /** Log every request and response (access log). */
  readonly logRequests?: boolean
  readonly serverUrl?: string
  /** Request budgets; `false` turns rate limiting off. Default: `defaultRateLimit`, counted in memory. */
  readonly rateLimit?: RateLimitSettings | false
  /** Browser origins allowed to call the API besides the web app's (CORS). */
  readonly corsOrigins?: readonly string[]
  /** Which proxies to believe about the client address (Fastify's `trustProxy`). Default: none. */
  readonly trustProxy?: FastifyServerOptions['trustProxy']
}

/** The settings of the HTTP edge (limits, CORS, proxies) from the environment. */
export function edgeOptions(env: Env): Pick<AppOptions, 'rateLimit' | 'corsOrigins' | 'trustProxy'> {
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
export function trustedProxies(setting: string): NonNullable<AppOptions['trustProxy']> {
  if (setting === 'true' || setting === 'false') return setting === 'true'
  if (/^\d+$/.test(setting)) {
    const hops = Number(setting)
    return (_address: string, hop: number) => hop < hops
  }
  return setting
}

/**
 * Builds the API: routes from the operation table, problem+json errors, OpenAPI, and the edge
 * around them (request ids, security headers, CORS, rate limits, draining on close). The app
 * holds no state of its own; everything lives in the runtime's database (or the shared
 * rate-limit store).
 */
export async function buildApp(runtime: Runtime, options: AppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? false,
    // By default a request is logged when it fails (see the error handler), not twice per
    // success: per-request logging costs about a tenth of a read's CPU (bench/api).
    logController: new LogController({ disableRequestLogging: !options.logRequests }),
    bodyLimit: Math.max(runtime.deps.config.limits.contentBytes * 8, 1024 * 1024),
    genReqId: requestIdOf,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    trustProxy: options.trustProxy ?? false,
    // On close: idle keep-alive connections are closed at once, requests in flight finish, and a
    // request arriving meanwhile gets our problem+json 503 (plugins/shutdown.ts), not Fastify's.
    forceCloseConnections: 'idle',
    return503OnClosing: false,
    // Errors Fastify raises before routing (a malformed URL, a bad content type) get the same
    // problem+json treatment as everything else.
    frameworkErrors: (error, request, reply) => {
      handleError(error, request, reply)
    },
  })
  app.setValidatorCompiler(validatorCompiler)
  // Replies are built from explicit DTOs, so schema-driven serialisation buys no safety here, and
  // native JSON.stringify is several times faster on the long strings Quire serves (content, diffs).
  app.setSerializerCompiler(() => (data) => JSON.stringify(data))
  app.setErrorHandler(handleError)
  // The resource named in challenges is the audience tokens are checked against: the runtime's.
  registerResourceMetadata(app, runtime)
  registerEdge(app, drainOnClose(app))
  await registerCors(app, { allowedOrigins: [new URL(runtime.deps.config.webUrl).origin, ...(options.corsOrigins ?? [])] })
  const limits = options.rateLimit === false ? null : (options.rateLimit ?? defaultRateLimit)
  const limiter = limits === null ? null : await registerRateLimit(app, limits, await countersFor(app, limits, runtime.database))
  if (limiter === null) app.decorate('authFailures', null)
  // Unknown URLs spend the caller's budget too: probing for routes is not free.
  app.setNotFoundHandler(limiter ? { preHandler: limiter } : {}, handleUnrouted)
  await registerOpenApi(app, { version: runtime.deps.config.version, ...(options.serverUrl ? { serverUrl: options.serverUrl } : {}) })
  registerOperations(app, runtime)
  return app
}
