import { createHmac } from 'node:crypto'
import cookie from '@fastify/cookie'
import { sessionPrincipal } from '@quire/core'
import type { Runtime } from '@quire/runtime'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { csrfField, csrfHeader, csrfTokens } from './csrf.ts'
import { sendFailure } from './problem.ts'
import { webDeps } from './web-caller.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `false`: the route never looks at the session cookie (and so needs no CSRF token). */
    session?: boolean
    /** The route answers OAuth clients: refusals take RFC 6749's shape (`{ error, error_description }`). */
    oauthErrors?: boolean
  }
}

export const sessionCookieName = 'quire_session'

/** The bodies an HTML form can send without a CORS preflight: what a page on another site can make a browser post here. */
const formTypes = /^\s*(application\/x-www-form-urlencoded|multipart\/form-data|text\/plain)\b/i

/**
 * A form another site made the browser send. The session cookie is SameSite=Lax, so such a post
 * arrives signed out, and the CSRF token stops it when it does not; this refuses it outright,
 * before anything reads it, so that no form, even one that works signed out, acts on another
 * site's behalf. The browser says where a form came from in `Sec-Fetch-Site`, which a page cannot
 * forge: only `same-origin` (or `none`, the person's own doing) passes. A browser that does not
 * send it is judged by `Origin`, which must be ours when present. `Sec-Fetch-Site` comes first
 * because a page whose URL carries a secret sends `Referrer-Policy: no-referrer`, and under that
 * policy the browser sends `Origin: null` even for its own forms (the consent and claim pages).
 */
function crossSiteForm(request: FastifyRequest, origin: string): boolean {
  if (!formTypes.test(request.headers['content-type'] ?? '')) return false
  const site = request.headers['sec-fetch-site']
  if (site !== undefined) return site !== 'same-origin' && site !== 'none'
  const from = request.headers.origin
  return from !== undefined && from !== origin
}

const unsafeMethods = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

export interface SessionCookies {
  set(reply: FastifyReply, secret: string, expiresAt: Date): void
  clear(reply: FastifyReply): void
  /** The CSRF token of the session with this credential id. */
  csrfTokenFor(credentialId: string): string
}

/**
 * Browser sessions. The cookie `quire_session` holds the session's secret, signed (a key derived
 * from SESSION_SECRET), HttpOnly, SameSite=Lax, Secure on https; the session itself is looked up
 * in the database on every request (`sessionPrincipal`), so signing out or expiry takes effect at
 * once in every process. Every unsafe request made with a session must carry the session's CSRF
 * token, as the `_csrf` form field or the `X-CSRF-Token` header: else 403 `forbidden`.
 */
export async function registerSessions(
  app: FastifyInstance,
  options: { runtime: Runtime; sessionSecret: string; secure: boolean; origin: string },
): Promise<SessionCookies> {
  const signingKey = createHmac('sha256', options.sessionSecret).update('quire cookie signing v1').digest()
  await app.register(cookie, { secret: signingKey })
  const csrf = csrfTokens(options.sessionSecret)
  const attributes = { httpOnly: true, sameSite: 'lax', path: '/', secure: options.secure } as const
  const cookies: SessionCookies = {
    set: (reply, secret, expiresAt) => {
      reply.setCookie(sessionCookieName, secret, { ...attributes, signed: true, expires: expiresAt })
    },
    clear: (reply) => {
      reply.clearCookie(sessionCookieName, attributes)
    },
    csrfTokenFor: csrf.tokenFor,
  }

  app.decorateRequest('session', null)
  // preHandler: the body is parsed by then, so a form's `_csrf` field can be read.
  app.addHook('preHandler', async (request, reply) => {
    if (request.routeOptions.config.session === false || request.is404) return
    if (unsafeMethods.has(request.method) && crossSiteForm(request, options.origin)) {
      request.log.info({ method: request.method, url: request.url, origin: request.headers.origin }, 'refused: cross-site form post')
      return sendFailure(request, reply, {
        code: 'forbidden',
        title: 'Form refused',
        message: 'This form was sent from another site. Open the page on Quire itself and send it from there.',
      })
    }
    const raw = request.cookies[sessionCookieName]
    if (raw === undefined) return
    const unsigned = request.unsignCookie(raw)
    const principal =
      unsigned.valid && unsigned.value ? await sessionPrincipal(webDeps(options.runtime.deps, request), unsigned.value) : null
    if (principal?.kind !== 'session' || unsigned.value === null) {
      // Forged, ended or expired: forget it, and carry on signed out.
      cookies.clear(reply)
      return
    }
    request.session = {
      principal,
      user: principal.user,
      credentialId: principal.credentialId,
      secret: unsigned.value,
      csrfToken: csrf.tokenFor(principal.credentialId),
    }
    if (!unsafeMethods.has(request.method)) return
    const body = request.body as Record<string, unknown> | null | undefined
    const presented = request.headers[csrfHeader] ?? body?.[csrfField]
    if (csrf.verify(principal.credentialId, presented)) return
    request.log.info({ method: request.method, url: request.url }, 'refused: unsafe request on a session without its CSRF token')
    return sendFailure(request, reply, {
      code: 'forbidden',
      title: 'Form expired',
      message:
        presented === undefined
          ? `This ${request.method} request comes with a session cookie but without a CSRF token: send the page's \`${csrfField}\` form field or an \`X-CSRF-Token\` header. Reload the page and try again.`
          : `The CSRF token does not belong to this session (the page may be from before you signed in again). Reload the page and try again.`,
    })
  })
  return cookies
}
