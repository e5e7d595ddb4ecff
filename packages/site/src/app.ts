import formbody from '@fastify/formbody'
import { countersFor, defaultRateLimit, type RateLimitSettings, requestIdOf, sharedCounterOptions } from '@quire/http-edge'
import { webRoutes } from '@quire/pages'
import type { Runtime } from '@quire/runtime'
import {
  createDevProvider,
  type DevProvider,
  type OidcClientSettings,
  registerAgentRoutes,
  registerDevProvider,
  registerOAuthRoutes,
  registerSignInRoutes,
  relyingParty,
} from '@quire/sign-in'
import {
  handleError,
  handleNotFound,
  registerSecurityHeaders,
  registerSessions,
  registerTextRule,
  registerWebRateLimit,
} from '@quire/web-http'
import Fastify, { type FastifyInstance, type FastifyServerOptions, LogController } from 'fastify'
import { registerAccountRoutes } from './routes/account/index.ts'
import { registerArtifactRoutes } from './routes/artifacts.ts'
import { registerBrowseRoutes } from './routes/browse.ts'
import { documentPages } from './routes/document-pages.ts'
import { registerHistoryRoutes } from './routes/history.ts'
import { registerHomeRoutes } from './routes/home.ts'
import { registerMcpRoutes } from './routes/mcp.ts'
import { registerOwnerFormRoutes } from './routes/owner-forms.ts'
import { registerPublishRoutes } from './routes/publish/index.ts'
import { registerSearchRoutes } from './routes/search.ts'

export interface WebAppOptions {
  /** The public origin of the web app (WEB_URL, no trailing slash). */
  readonly webUrl: string
  /** The public address of the REST API, linked from the pages. */
  readonly apiUrl?: string | null
  /** Signs the session cookie and derives CSRF tokens (at least 32 characters). */
  readonly sessionSecret: string
  /** The external OpenID Connect provider; null: the bundled development provider (refused in production). */
  readonly oidc: OidcClientSettings | null
  readonly production: boolean
  readonly logger?: FastifyServerOptions['logger']
  readonly logRequests?: boolean
  /** Per-address limits on registration, tokens and sign-in (default on; RATE_LIMIT_ENABLED=false turns them off). */
  readonly rateLimit?: boolean
  /**
   * Which proxies to believe about the client (Fastify's `trustProxy`, from TRUST_PROXY as the
   * API reads it): behind them the client's address comes from X-Forwarded-For, so the
   * per-address limits count clients, not the proxy. Default: none.
   */
  readonly trustProxy?: FastifyServerOptions['trustProxy']
  /**
   * The API's limits, in the runtime's shared store: `/mcp` spends a credential's request budget
   * with them, and refused secrets count against the client address in their budget there and at
   * the share-link pages. Default: the API's defaults in memory, unless `rateLimit` is false.
   */
  readonly mcpRateLimit?: RateLimitSettings | false
  /** Browser origins besides the web app's own that may call `/mcp` (CORS_ORIGINS, as the API reads it). */
  readonly corsOrigins?: readonly string[]
}

/**
 * Builds the web app: server-rendered pages, sign-in through OpenID Connect (the configured
 * provider, or the bundled development one mounted at /dev-oidc), cookie sessions with CSRF
 * tokens. Like the API it holds no state of its own: sessions live in the runtime's database and
 * a sign-in in progress in a signed cookie, so any number of processes can serve it.
 */
export async function buildWebApp(runtime: Runtime, options: WebAppOptions): Promise<FastifyInstance> {
  if (options.sessionSecret.length < 32) throw new Error('The session secret must be at least 32 characters long.')
  // First, so that a production boot without a provider fails before anything else is set up.
  const { oidc, dev } = signInProvider(options)
  // Every cookie the app sets (the session, the sign-in in progress, the development provider's)
  // is Secure exactly when the public origin is https, whatever the hop from a proxy was.
  const secure = new URL(options.webUrl).protocol === 'https:'

  const app = Fastify({
    logger: options.logger ?? false,
    logController: new LogController({ disableRequestLogging: !options.logRequests }),
    routerOptions: { ignoreTrailingSlash: true },
    forceCloseConnections: 'idle',
    trustProxy: options.trustProxy ?? false,
    // As the API does: the caller's X-Request-Id when well-formed, else a fresh UUID.
    genReqId: requestIdOf,
  })
  app.setErrorHandler(handleError)
  app.setNotFoundHandler(handleNotFound)
  registerSecurityHeaders(app, { https: secure })
  await app.register(formbody)
  // Every query string, form and JSON body: well-formed text without NUL, before any route reads it.
  registerTextRule(app)
  // The API's limits and the web app's own, in the API's store when it is shared: N web processes
  // count one budget per address. Connected once; off (RATE_LIMIT_ENABLED=false), nothing counts.
  const apiLimits = options.mcpRateLimit ?? (options.rateLimit === false ? false : defaultRateLimit)
  const counters =
    apiLimits === false && options.rateLimit === false ? null : await countersFor(app, apiLimits || defaultRateLimit, runtime.database)
  if (counters && options.rateLimit !== false) await registerWebRateLimit(app, sharedCounterOptions(app, counters, 'quire:web-rate-limit:'))
  const sessions = await registerSessions(app, {
    runtime,
    sessionSecret: options.sessionSecret,
    secure,
    origin: new URL(options.webUrl).origin,
  })

  const rp = relyingParty({
    ...oidc,
    redirectUri: `${options.webUrl}${webRoutes.signInCallback.path()}`,
    // Plain http to the provider only outside production (the bundled one, a local Keycloak).
    allowHttp: !options.production && new URL(oidc.issuer).protocol === 'http:',
  })
  if (dev) await registerDevProvider(app, dev, { webUrl: options.webUrl })
  registerHomeRoutes(app, { runtime, apiUrl: options.apiUrl ?? null, devSignIn: dev !== null })
  registerSignInRoutes(app, { runtime, relyingParty: rp, sessions, webUrl: options.webUrl, secure })
  registerOAuthRoutes(app, { runtime, sessions })
  registerAgentRoutes(app, { runtime })
  // Rendered documents, kept per content hash for every page that shows one (64 MiB of markup).
  const documents = documentPages({
    maxBytes: 64 * 1024 * 1024,
    previews: runtime.deps.previews ?? null,
    webUrl: new URL(options.webUrl).origin,
    now: () => runtime.deps.clock.now(),
  })
  registerArtifactRoutes(app, { runtime, webUrl: options.webUrl, documents })
  registerHistoryRoutes(app, { runtime })
  registerAccountRoutes(app, { runtime, apiUrl: options.apiUrl ?? null })
  registerOwnerFormRoutes(app, { runtime })
  await registerPublishRoutes(app, { runtime })
  registerSearchRoutes(app, { runtime })
  const refusedSecrets = apiLimits === false || counters === null ? null : counters.authFailures
  registerBrowseRoutes(app, { runtime, webUrl: options.webUrl, documents, refusedSecrets })
  await registerMcpRoutes(app, {
    runtime,
    webUrl: options.webUrl,
    allowedOrigins: options.corsOrigins ?? [],
    limits: apiLimits === false || counters === null ? false : { settings: apiLimits, counters },
  })
  return app
}

/** The provider people sign in with: the configured one, else the development provider (which refuses production). */
function signInProvider(options: WebAppOptions): { oidc: OidcClientSettings; dev: DevProvider | null } {
  if (options.oidc) return { oidc: options.oidc, dev: null }
  const dev = createDevProvider({ webUrl: options.webUrl, production: options.production })
  return { oidc: { issuer: dev.issuer, clientId: dev.clientId, clientSecret: dev.clientSecret }, dev }
}
