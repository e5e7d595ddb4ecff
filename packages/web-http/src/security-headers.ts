import type { FastifyInstance } from 'fastify'
import { carriesSecret } from './secret-urls.ts'

/**
 * The pages load only what this origin serves (one stylesheet, no scripts at all) and are framed
 * nowhere; their forms submit only to this origin. `formAction: false` drops that last rule for
 * a page whose form ends in a redirect elsewhere (the OAuth consent page answers a client at its
 * registered redirect URI, and Chromium applies form-action to the redirect too). `remoteImages`:
 * an artifact's page, whose document may show https images.
 */
export function contentSecurityPolicy(
  options: {
    formAction?: boolean
    remoteImages?: boolean
    /**
     * A page that shows documents drawn on the content origin: it frames that origin and shows its
     * images, and runs one script of ours (its full URL), which fits those frames to their documents.
     */
    content?: { readonly origin: string; readonly script: string }
  } = {},
): string {
  const { content } = options
  return [
    "default-src 'self'",
    content ? `script-src ${content.script}` : "script-src 'none'",
    "style-src 'self'",
    // A document may show images it links (as GitHub renders them); the referrer policy keeps its URL to us.
    `${options.remoteImages ? "img-src 'self' data: https:" : "img-src 'self' data:"}${content ? ` ${content.origin}` : ''}`,
    ...(content ? [`frame-src ${content.origin}`] : []),
    ...(options.formAction !== false ? ["form-action 'self'"] : []),
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "object-src 'none'",
  ].join('; ')
}

/** Headers on every response, fixed per process, so built once. */
export function securityHeaders(options: { https: boolean }): Readonly<Record<string, string>> {
  return Object.freeze({
    'content-security-policy': contentSecurityPolicy(),
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'same-origin',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
    ...(options.https ? { 'strict-transport-security': 'max-age=31536000; includeSubDomains' } : {}),
  })
}

/**
 * Sets the headers and the request id on whatever answers (a page, a redirect, a refusal). The
 * referrer policy is said here only, never in a page: `same-origin`, except on a URL that carries
 * a secret, whose answers send no Referer at all (secret-urls.ts).
 */
export function registerSecurityHeaders(app: FastifyInstance, options: { https: boolean }): void {
  const headers = securityHeaders(options)
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(headers)
    reply.header('x-request-id', request.id)
    if (carriesSecret(request.url)) reply.header('referrer-policy', 'no-referrer')
    done()
  })
}
