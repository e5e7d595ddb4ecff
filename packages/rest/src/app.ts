import {
  countersFor,
  defaultRateLimit,
  drainOnClose,
  type EdgeOptions,
  handleError,
  registerCors,
  registerEdge,
  registerRateLimit,
  requestIdOf,
} from '@quire/http-edge'
import type { Runtime } from '@quire/runtime'
import Fastify, { type FastifyInstance, type FastifyServerOptions, LogController } from 'fastify'
import { registerOpenApi } from './plugins/openapi.ts'
import { registerResourceMetadata } from './plugins/resource-metadata.ts'
import { validatorCompiler } from './plugins/validation.ts'
import { handleUnrouted } from './routes/method-not-allowed.ts'
import { registerOperations } from './routes/register.ts'

export interface AppOptions extends EdgeOptions {
  readonly logger?: FastifyServerOptions['logger']
  /** Log every request and response (access log). */
  readonly logRequests?: boolean
  readonly serverUrl?: string
  /** Seconds between heartbeat comments on an event stream (default 15; EVENTS_HEARTBEAT_SECONDS). */
  readonly eventsHeartbeatSeconds?: number
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
  registerOperations(
    app,
    runtime,
    options.eventsHeartbeatSeconds === undefined ? {} : { eventsHeartbeatSeconds: options.eventsHeartbeatSeconds },
  )
  return app
}
