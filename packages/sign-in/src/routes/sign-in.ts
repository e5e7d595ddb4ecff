import { signInWithOidc, signOut } from '@quire/core'
import { errorPage, webRoutes } from '@quire/pages'
import type { Runtime } from '@quire/runtime'
import { type SessionCookies, webRateLimits } from '@quire/web-http'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { clearPendingSignIn, readPendingSignIn, savePendingSignIn } from '../oidc/pending-cookie.ts'
import { type RelyingParty, SignInFailure } from '../oidc/relying-party.ts'
import { safeReturnTo } from '../return-to.ts'

export interface SignInRouteOptions {
  readonly runtime: Runtime
  readonly relyingParty: RelyingParty
  readonly sessions: SessionCookies
  /** The public origin: the callback URL the provider answered is rebuilt on it, never on the Host header. */
  readonly webUrl: string
  readonly secure: boolean
}

/** Signing in through the OpenID Connect provider, and signing out. */
export function registerSignInRoutes(app: FastifyInstance, options: SignInRouteOptions): void {
  const { runtime, relyingParty, sessions, webUrl, secure } = options

  app.get(webRoutes.signIn.pattern, { config: { rateLimit: webRateLimits.signIn } }, async (request, reply) => {
    const returnTo = safeReturnTo((request.query as Record<string, unknown>).return_to)
    if (request.session) return reply.redirect(returnTo, 303)
    try {
      const { url, pending } = await relyingParty.begin(returnTo)
      savePendingSignIn(reply, pending, secure)
      return reply.redirect(url.href, 303)
    } catch (error) {
      return sendSignInFailure(request, reply, error)
    }
  })

  app.get(webRoutes.signInCallback.pattern, { config: { rateLimit: webRateLimits.signIn } }, async (request, reply) => {
    const pending = readPendingSignIn(request)
    clearPendingSignIn(reply, secure)
    if (!pending)
      return sendSignInFailure(
        request,
        reply,
        new SignInFailure(
          'Sign-in expired',
          'This sign-in was started more than ten minutes ago, or in another browser. Start again.',
          'no pending sign-in cookie',
        ),
      )
    try {
      const identity = await relyingParty.finish(new URL(request.url, webUrl), pending)
      const session = await signInWithOidc(runtime.deps, identity)
      // A fresh session every time; one this browser held before ends (no fixation, no leftovers).
      if (request.session) await signOut(runtime.deps, request.session.secret, request.session.principal)
      sessions.set(reply, session.sessionSecret, session.expiresAt)
      request.log.info({ userId: session.user.id, issuer: identity.issuer }, 'signed in')
      return reply.redirect(pending.returnTo, 303)
    } catch (error) {
      return sendSignInFailure(request, reply, error)
    }
  })

  // The session hook has already checked the CSRF token when there is a session to end.
  app.post(webRoutes.signOut.pattern, async (request, reply) => {
    if (request.session) await signOut(runtime.deps, request.session.secret, request.session.principal)
    sessions.clear(reply)
    return reply.redirect(webRoutes.home.path(), 303)
  })
}

/**
 * A failed sign-in ends on a page that says what happened; anything unexpected goes to the error
 * handler. The provider's own words (`access_denied: …`) are shown; how our side failed to reach
 * it (addresses, network errors) is only logged.
 */
function sendSignInFailure(request: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply {
  if (!(error instanceof SignInFailure)) throw error
  request.log.warn({ title: error.title, detail: error.detail }, 'sign-in failed')
  return reply
    .code(error.status)
    .header('cache-control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(
      errorPage({
        title: error.title,
        message: error.message,
        ...(error.status === 400 && error.detail ? { detail: error.detail } : {}),
        requestId: request.id,
        retrySignIn: true,
      }),
    )
}
