import {
  ConfigurationError,
  DEFAULT_CONTENT_PORT,
  localContentUrl,
  type Env as RuntimeEnv,
  readEnv as readRuntimeEnv,
  readSettings,
} from '@quire/runtime'
import { devProviderInProduction } from '@quire/sign-in'
import { type Static, Type } from 'typebox'

/**
 * Every setting the web app reads from its environment, with defaults. The only reader of
 * process.env in this app. The database and the runtime's other settings are the API's (the same
 * variables, read by `readEnv` from `@quire/runtime`): both apps run on one composition.
 */
export const WebEnv = Type.Object({
  WEB_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3001 }),
  WEB_HOST: Type.String({ default: '127.0.0.1' }),
  /** Public address of the web app (an origin: scheme, host, port); default `http://localhost:$WEB_PORT`. Cookies, redirects and the sign-in callback are built from it. */
  WEB_URL: Type.Optional(Type.String()),
  /** Where this process serves the content origin (CONTENT_URL), beside WEB_PORT; its host is WEB_HOST. */
  CONTENT_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: DEFAULT_CONTENT_PORT }),
  /** Public address of the REST API (linked from the pages). */
  API_URL: Type.Optional(Type.String({ minLength: 1 })),
  /** The OpenID Connect provider people sign in with; unset (with the two below): the bundled development provider. */
  OIDC_ISSUER: Type.Optional(Type.String({ minLength: 1 })),
  OIDC_CLIENT_ID: Type.Optional(Type.String({ minLength: 1 })),
  OIDC_CLIENT_SECRET: Type.Optional(Type.String({ minLength: 1 })),
  /** Signs the session cookie and derives the CSRF tokens. Required in production; else generated once into QUIRE_DATA_DIR. */
  SESSION_SECRET: Type.Optional(Type.String({ minLength: 32 })),
  NODE_ENV: Type.String({ default: 'development' }),
  DATABASE_URL: Type.Optional(Type.String({ minLength: 1 })),
  QUIRE_DATA_DIR: Type.String({ default: '.quire' }),
  LOG_LEVEL: Type.Enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { default: 'info' }),
  LOG_REQUESTS: Type.Boolean({ default: false }),
  SHUTDOWN_TIMEOUT_MS: Type.Integer({ minimum: 0, default: 10_000 }),
})
export type WebEnv = Static<typeof WebEnv> & { readonly WEB_URL: string }

/** Reads and validates the web app's environment once; a bad value fails at boot with its name. */
export function readWebEnv(source: Record<string, string | undefined> = process.env): WebEnv {
  const read = readSettings(WebEnv, source)
  const env = { ...read, WEB_URL: (read.WEB_URL ?? `http://localhost:${read.WEB_PORT}`).replace(/\/+$/, '') }
  const conflict = settingsConflict(env)
  if (conflict) throw new ConfigurationError(`Invalid environment: ${conflict}`)
  return Object.freeze(env)
}

/**
 * The web app's settings and the runtime's (the API's variables: database, limits…), read from
 * one environment, with one WEB_URL for both: the runtime builds artifact URLs and the OAuth
 * issuer from it, the web app its cookies and redirects.
 */
export function readServerEnv(source: Record<string, string | undefined> = process.env): { web: WebEnv; runtime: RuntimeEnv } {
  const web = readWebEnv(source)
  // The content origin this process serves on CONTENT_PORT, unless one is named (or `off`), outside production.
  const contentUrl = source.CONTENT_URL || (web.NODE_ENV === 'production' ? undefined : localContentUrl(web.WEB_URL, web.CONTENT_PORT))
  return { web, runtime: readRuntimeEnv({ ...source, WEB_URL: web.WEB_URL, ...(contentUrl ? { CONTENT_URL: contentUrl } : {}) }) }
}

/** Settings that are each valid but do not go together. */
function settingsConflict(env: WebEnv): string | null {
  const oidc = [env.OIDC_ISSUER, env.OIDC_CLIENT_ID, env.OIDC_CLIENT_SECRET]
  if (oidc.some((v) => v !== undefined) && oidc.some((v) => v === undefined))
    return 'OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET go together: set all three (an external provider) or none (the development provider)'
  if (env.OIDC_ISSUER && !isHttpUrl(env.OIDC_ISSUER)) return `OIDC_ISSUER ${JSON.stringify(env.OIDC_ISSUER)} is not an http(s) URL`
  const webUrl = env.WEB_URL
  if (!isHttpUrl(webUrl) || new URL(webUrl).origin !== webUrl)
    return `WEB_URL ${JSON.stringify(webUrl)} is not an origin (scheme://host[:port], no path)`
  if (env.NODE_ENV === 'production') {
    if (!env.SESSION_SECRET)
      return 'SESSION_SECRET is required in production (at least 32 random characters, e.g. `openssl rand -base64 48`)'
    if (new URL(webUrl).protocol !== 'https:') return 'WEB_URL must be https in production (session cookies are Secure)'
    if (!env.OIDC_ISSUER) return devProviderInProduction
  }
  return null
}

function isHttpUrl(value: string): boolean {
  return URL.canParse(value) && ['http:', 'https:'].includes(new URL(value).protocol)
}
