import type { ServerResponse } from 'node:http'
import cors from '@fastify/cors'
import type { FastifyInstance } from 'fastify'
import helmet from 'helmet'

export interface SecuritySettings {
  /** Browser origins that may call the API (the web app's, and any others configured). */
  readonly allowedOrigins: readonly string[]
}

/**
 * Helmet's policy for an API that serves data, never documents: responses may load nothing and be
 * framed nowhere (the /docs page replaces the CSP with its own, see openapi.ts), and
 * `Cross-Origin-Resource-Policy: cross-origin` because the web app (another origin) reads the API:
 * who may read a response from script is CORS's decision, and credentials are bearer tokens a page
 * must hold itself, never ambient cookies.
 */
const policy = helmet({
  contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
  crossOriginResourcePolicy: { policy: 'cross-origin' },
  frameguard: { action: 'deny' },
})

/**
 * The headers Helmet sets, computed once by running its middleware against a recording response.
 * `@fastify/helmet` runs the middleware on every request, which cost the reads 5–15% of their
 * throughput in bench/api; the headers never vary by request, so every response gets this one
 * frozen object instead.
 */
function recordHeaders(): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {}
  const recorder = {
    setHeader: (name: string, value: string | number | readonly string[]) => {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value)
    },
    removeHeader: (name: string) => {
      delete headers[name.toLowerCase()]
    },
  } as unknown as ServerResponse
  let failure: unknown = null
  policy({} as never, recorder, (error?: unknown) => {
    failure = error ?? null
  })
  if (failure !== null) throw failure
  return Object.freeze(headers)
}

export const securityHeaders = recordHeaders()

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
 * CORS: only the listed origins get CORS headers; an unlisted one gets none at all, not even on a
 * preflight. No credentials mode, because the API takes no cookies.
 */
export async function registerCors(app: FastifyInstance, settings: SecuritySettings): Promise<void> {
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
