import type { ContentAppOptions } from '@quire/content-origin'
import { edgeOptions } from '@quire/http-edge'
import type { Env } from '@quire/runtime'
import type { WebAppOptions } from '@quire/site'
import type { WebEnv } from './env.ts'

/** The web app's options from its environment (the session secret is resolved separately: see session-secret.ts). */
export function webAppOptions(env: WebEnv, sessionSecret: string): WebAppOptions {
  return {
    webUrl: env.WEB_URL,
    apiUrl: env.API_URL ?? null,
    sessionSecret,
    oidc:
      env.OIDC_ISSUER && env.OIDC_CLIENT_ID && env.OIDC_CLIENT_SECRET
        ? { issuer: env.OIDC_ISSUER, clientId: env.OIDC_CLIENT_ID, clientSecret: env.OIDC_CLIENT_SECRET }
        : null,
    production: env.NODE_ENV === 'production',
    logger: { level: env.LOG_LEVEL },
    logRequests: env.LOG_REQUESTS,
  }
}

/** The web app's options for a server process, given the runtime's environment too (limits, CORS origins and TRUST_PROXY are shared with the API). */
export function serverWebAppOptions(env: WebEnv, runtimeEnv: Env, sessionSecret: string): WebAppOptions {
  const edge = edgeOptions(runtimeEnv)
  return {
    ...webAppOptions(env, sessionSecret),
    rateLimit: runtimeEnv.RATE_LIMIT_ENABLED,
    mcpRateLimit: edge.rateLimit ?? false,
    corsOrigins: edge.corsOrigins ?? [],
    ...(edge.trustProxy === undefined ? {} : { trustProxy: edge.trustProxy }),
  }
}

/** The content origin's options: the one page that may frame it, and the same logging as the web app. */
export function contentAppOptions(env: WebEnv): ContentAppOptions {
  return { webUrl: env.WEB_URL, logger: { level: env.LOG_LEVEL }, logRequests: env.LOG_REQUESTS }
}
