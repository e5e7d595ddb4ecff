import cors from '@fastify/cors'
import type { FastifyInstance } from 'fastify'

export interface SecuritySettings {
  /** Browser origins that may call the API (the web app's, and any others configured). */
  readonly allowedOrigins: readonly string[]
}

/**
 * The security headers of every response: Helmet's choices for what an API serving JSON needs,
 * set as one constant object. (`@fastify/helmet` rebuilds its middleware on every request, which
 * cost the reads 5–15% of their throughput in bench/api; Helmet's legacy headers for old
 * browsers and plugins are left out.)
 *
 * - Responses are data, never documents: they may load nothing and be framed nowhere (the /docs
 *   page replaces the CSP with its own, see openapi.ts).
 * - `Cross-Origin-Resource-Policy: cross-origin`: the web app (another origin) reads the API.
 *   Who may read a response from script is CORS's decision, and credentials are bearer tokens a
 *   page must hold itself, never ambient cookies, so this exposes nothing.
 */
export const securityHeaders: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'cross-origin-resource-policy': 'cross-origin',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
})

/** Response headers a browser client may read besides the CORS-safelisted ones. */
const exposedHeaders = [
  'x-request-id',
  'etag',
  'location',
  'retry-after',
  'idempotent-replayed',
  'www-authenticate',
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
]

/** Request headers a browser client may send besides the CORS-safelisted ones. */
const allowedHeaders = ['authorization', 'content-type', 'idempotency-key', 'if-none-match', 'x-request-id', 'quire-client']

/**
 * Security headers and CORS. Only the listed origins get CORS headers: an unlisted one gets none at
 * all, not even on a preflight. No credentials mode, because the API takes no cookies.
 */
export async function registerSecurity(app: FastifyInstance, settings: SecuritySettings): Promise<void> {
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(securityHeaders)
    done()
  })
  const allowed = new Set(settings.allowedOrigins)
  await app.register(cors, {
    origin: (origin, callback) => callback(null, origin !== undefined && allowed.has(origin) ? origin : false),
    credentials: false,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders,
    exposedHeaders,
    // Browsers cap this (Chromium at two hours); a preflight per call would double the latency.
    maxAge: 7200,
  })
}
