import { parseAgentAuthSettings } from '@quire/agent-auth'
import { type Static, type TObject, Type } from 'typebox'
import { Value } from 'typebox/value'

/** A setting that is missing, malformed or does not go with another: the process must not start. Its message is one line. */
export class ConfigurationError extends Error {
  override readonly name = 'ConfigurationError'
}

/**
 * Runs an entry point's reading of its environment; a refused configuration ends the process
 * with its one line on standard error and exit status 1, not a stack trace.
 */
export function settingsOrExit<T>(read: () => T): T {
  try {
    return read()
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error
    process.stderr.write(`${error.message}\n`)
    process.exit(1)
  }
}

/** Every setting of the runtime and the API, read from the environment the app passes, with defaults. */
export const Env = Type.Object({
  API_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000 }),
  API_HOST: Type.String({ default: '127.0.0.1' }),
  /** Public address of this API (used in links and OpenAPI). */
  API_URL: Type.Optional(Type.String()),
  /** Public address of the web app (artifact URLs are built from it). */
  WEB_URL: Type.String({ default: 'http://localhost:3001' }),
  /**
   * The content origin, where HTML, SVG and Mermaid artifacts are rendered, in a sandboxed frame or
   * as an image (an origin: scheme, host, port). In production a separate registrable domain
   * (`https://quire-usercontent.example`); unset in production, or `off`: those types are shown as
   * source. Locally the web process serves it on CONTENT_PORT, by default at
   * `http://127.0.0.1:3002` (another site than `http://localhost:3001`: no cookie of the web app reaches it).
   */
  CONTENT_URL: Type.Optional(Type.String({ minLength: 1 })),
  /** Signs the content origin's capability URLs (at least 32 characters); unset: one made once and kept in the database. */
  CONTENT_SIGNING_KEY: Type.Optional(Type.String({ minLength: 32 })),
  /** PostgreSQL connection URL; when unset, the embedded PGlite database in QUIRE_DATA_DIR is used. */
  DATABASE_URL: Type.Optional(Type.String({ minLength: 1 })),
  DATABASE_POOL_SIZE: Type.Integer({ minimum: 1, maximum: 200, default: 10 }),
  /** Prepare statements per connection; turn off behind a transaction-pooling proxy (PgBouncer). */
  DATABASE_PREPARED_STATEMENTS: Type.Boolean({ default: true }),
  /**
   * Where the change feed's `LISTEN` connects (default DATABASE_URL): straight to PostgreSQL, since
   * a pooler in transaction mode (PgBouncer) cannot carry it.
   */
  DATABASE_LISTEN_URL: Type.Optional(Type.String({ minLength: 1 })),
  /** How often each process looks for changes when no notification came (the fallback when LISTEN is cut), in ms. */
  EVENTS_POLL_MS: Type.Integer({ minimum: 100, maximum: 60_000, default: 2000 }),
  /** Seconds between heartbeat comments on an event stream (`GET /api/events` as text/event-stream). */
  /**
   * Host names webhooks may deliver to whatever address they resolve to, comma-separated (e.g.
   * `127.0.0.1,receiver.internal` for a local setup or a test). Empty (default): loopback, private,
   * link-local, unique-local and IPv4-mapped addresses are refused, when given and when connected to.
   */
  WEBHOOK_ALLOWED_HOSTS: Type.String({ default: '' }),
  /** The key webhook secrets are derived from; unset: one made once and kept in the database. */
  WEBHOOK_SIGNING_KEY: Type.Optional(Type.String({ minLength: 32 })),
  EVENTS_HEARTBEAT_SECONDS: Type.Integer({ minimum: 1, maximum: 30, default: 15 }),
  QUIRE_DATA_DIR: Type.String({ default: '.quire' }),
  QUIRE_CONTENT_MAX_BYTES: Type.Integer({ minimum: 1024, default: 1024 * 1024 }),
  LOG_LEVEL: Type.Enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { default: 'info' }),
  /** Log every request, not only failures. */
  LOG_REQUESTS: Type.Boolean({ default: false }),
  NODE_ENV: Type.String({ default: 'development' }),
  /** Browser origins allowed to call the API besides WEB_URL's (CORS), comma-separated, e.g. `https://a.example,https://b.example`. */
  CORS_ORIGINS: Type.String({ default: '' }),
  /** Behind a proxy: `true` (trust every hop), a hop count, or comma-separated proxy addresses/CIDRs; the client address then comes from X-Forwarded-For. */
  TRUST_PROXY: Type.Optional(Type.String({ minLength: 1 })),
  /** Rate limiting on or off (off only for benchmarks and load tests). */
  RATE_LIMIT_ENABLED: Type.Boolean({ default: true }),
  /** Requests per window per credential (per client address for anonymous calls). */
  RATE_LIMIT_MAX: Type.Integer({ minimum: 1, default: 600 }),
  /** The rate-limit window in milliseconds. */
  RATE_LIMIT_WINDOW_MS: Type.Integer({ minimum: 1000, maximum: 86_400_000, default: 60_000 }),
  /** Refused credentials (401) per window per client address before its credentials get 429 (guessing tokens is not free). */
  RATE_LIMIT_AUTH_FAILURES: Type.Integer({ minimum: 1, default: 30 }),
  /** The window of RATE_LIMIT_AUTH_FAILURES, in milliseconds. */
  RATE_LIMIT_AUTH_FAILURES_WINDOW_MS: Type.Integer({ minimum: 1000, maximum: 86_400_000, default: 600_000 }),
  /** Where the counters live: `memory` (per process), `redis` or `postgres` (shared). Default: `redis` when RATE_LIMIT_REDIS_URL is set, else `memory`. */
  RATE_LIMIT_STORE: Type.Optional(Type.Enum(['memory', 'redis', 'postgres'])),
  /** Redis for the shared rate-limit counters, e.g. `redis://127.0.0.1:6379`. */
  RATE_LIMIT_REDIS_URL: Type.Optional(Type.String({ minLength: 1 })),
  /** Put before every key Quire writes to that Redis (default none): for several deployments, or test runs, sharing one Redis. */
  RATE_LIMIT_REDIS_PREFIX: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9._:-]{1,64}$' })),
  /** How long a shutdown (SIGTERM) waits for in-flight requests before cutting them off and exiting with 1. */
  SHUTDOWN_TIMEOUT_MS: Type.Integer({ minimum: 0, default: 10_000 }),
  /** How often this process deletes the audit events past their plan's retention; 0 turns it off (prune with `pnpm admin prune-audit`). At most setTimeout's 2^31-1. */
  AUDIT_PRUNE_INTERVAL_MS: Type.Integer({ minimum: 0, maximum: 2_147_483_647, default: 3_600_000 }),
  /** `true` turns on the agent registration layer (auth.md); off by default. Run the migrations first (every start does). */
  AUTH_MD_ENABLED: Type.Optional(Type.String()),
  /** Signs agent identity assertions (HS256): at least 32 random bytes, as hex or base64, e.g. `openssl rand -base64 32`. */
  AUTH_MD_SIGNING_SECRET: Type.Optional(Type.String()),
  /** The scopes a claimed agent may hold, comma-separated (default `artifacts:read,artifacts:create,artifacts:update`). */
  AUTH_MD_ALLOWED_SCOPES: Type.Optional(Type.String()),
  /** The scopes of an anonymous agent's pre-claim tokens, comma-separated (default `artifacts:read`; `none`: no anonymous agents). */
  AUTH_MD_ANONYMOUS_PRE_CLAIM_SCOPES: Type.Optional(Type.String()),
})
export type Env = Static<typeof Env>

/**
 * The settings a schema describes, from an environment: unset and empty variables take the
 * schema's defaults, strings are converted to its types, and the first invalid value fails with
 * its name. Both apps read theirs with it.
 */
export function readSettings<S extends TObject>(schema: S, source: Record<string, string | undefined>): Static<S> {
  const known = Object.fromEntries(
    Object.keys(schema.properties).flatMap((k) => (source[k] === undefined || source[k] === '' ? [] : [[k, source[k]]])),
  )
  const converted = Value.Convert(schema, Value.Default(schema, known))
  const first = [...Value.Errors(schema, converted)][0]
  if (first)
    throw new ConfigurationError(
      `Invalid environment: ${first.instancePath.replace(/^\//, '') || 'value'} ${first.message ?? 'is invalid'}`,
    )
  return converted as Static<S>
}

/**
 * Reads and validates an environment (the app's `env.ts` passes its process's: this package reads
 * none); a bad value fails at boot with its name.
 */
export function readEnv(source: Record<string, string | undefined>): Env {
  const env = readSettings(Env, source)
  const conflict = settingsConflict(env)
  if (conflict) throw new ConfigurationError(`Invalid environment: ${conflict}`)
  agentAuthSettings(env)
  return Object.freeze(env)
}

/**
 * The agent registration layer's settings (null: the layer is off), checked: enabled with a
 * missing or short signing secret, or an unknown scope, refuses the start with one line.
 */
export function agentAuthSettings(env: Env) {
  try {
    return parseAgentAuthSettings(env)
  } catch (error) {
    throw new ConfigurationError(`Invalid environment: ${error instanceof Error ? error.message : String(error)}`)
  }
}

/** The local content origin's default port (the web process listens on it besides WEB_PORT). */
export const DEFAULT_CONTENT_PORT = 3002

/**
 * The content origin when none is set, outside production: the other loopback name than the web
 * app's on `port` (`127.0.0.1` beside `localhost`, and the reverse), so that the two are different
 * sites and the web app's cookies are never sent to it.
 */
export function localContentUrl(webUrl: string, port: number): string {
  const host = new URL(webUrl).hostname
  return `http://${host === '127.0.0.1' ? 'localhost' : '127.0.0.1'}:${port}`
}

/** The content origin these settings name (CONTENT_URL, or the local default outside production); null: none, those types are shown as source. */
export function contentUrlOf(env: Pick<Env, 'CONTENT_URL' | 'WEB_URL' | 'NODE_ENV'>): string | null {
  if (env.CONTENT_URL === 'off') return null
  if (env.CONTENT_URL) return env.CONTENT_URL.replace(/\/+$/, '')
  return env.NODE_ENV === 'production' ? null : localContentUrl(env.WEB_URL, DEFAULT_CONTENT_PORT)
}

/**
 * Why a content origin cannot serve beside this web origin, or null. It must be another origin;
 * in production an https one on another host that is neither a subdomain nor a parent of the web
 * app's (a script there could then set cookies for the web app).
 */
export function contentUrlConflict(contentUrl: string, webUrl: string, production: boolean): string | null {
  if (!URL.canParse(contentUrl) || !['http:', 'https:'].includes(new URL(contentUrl).protocol) || new URL(contentUrl).origin !== contentUrl)
    return `CONTENT_URL ${JSON.stringify(contentUrl)} is not an origin (scheme://host[:port], no path), nor \`off\``
  if (!URL.canParse(webUrl)) return null
  const content = new URL(contentUrl)
  const web = new URL(webUrl)
  if (content.origin === web.origin)
    return 'CONTENT_URL must be another origin than WEB_URL: documents rendered there must not reach the web app'
  if (!production) return null
  if (content.protocol !== 'https:') return 'CONTENT_URL must be https in production'
  const a = content.hostname
  const b = web.hostname
  if (a === b || a.endsWith(`.${b}`) || b.endsWith(`.${a}`))
    return `CONTENT_URL's host ${a} must be another site than WEB_URL's ${b} (a separate registrable domain, e.g. quire-usercontent.example)`
  return null
}

/** Settings that are each valid but do not go together. */
function settingsConflict(env: Env): string | null {
  const contentUrl = contentUrlOf(env)
  if (contentUrl !== null) {
    const conflict = contentUrlConflict(contentUrl, env.WEB_URL, env.NODE_ENV === 'production')
    if (conflict) return conflict
  }
  if (env.RATE_LIMIT_STORE === 'postgres' && !env.DATABASE_URL)
    return 'RATE_LIMIT_STORE=postgres needs DATABASE_URL (the embedded database serves one process: use memory)'
  if (env.RATE_LIMIT_STORE === 'redis' && !env.RATE_LIMIT_REDIS_URL) return 'RATE_LIMIT_STORE=redis needs RATE_LIMIT_REDIS_URL'
  if (env.RATE_LIMIT_REDIS_URL && env.RATE_LIMIT_STORE !== undefined && env.RATE_LIMIT_STORE !== 'redis')
    return `RATE_LIMIT_REDIS_URL is set but RATE_LIMIT_STORE is ${env.RATE_LIMIT_STORE}`
  for (const origin of listOf(env.CORS_ORIGINS)) {
    if (!URL.canParse(origin) || new URL(origin).origin !== origin)
      return `CORS_ORIGINS has ${JSON.stringify(origin)}, which is not an origin (scheme://host[:port], no path or trailing slash)`
  }
  return null
}

/** A comma-separated setting as its items, blanks dropped. */
export function listOf(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)
}
