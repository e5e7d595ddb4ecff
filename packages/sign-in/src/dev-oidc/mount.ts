import type { IncomingMessage } from 'node:http'
import { devSignInPage, errorPage, webRoutes } from '@quire/pages'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { InteractionResults } from 'oidc-provider'
import { type DevProvider, devProviderPath, unverifiedPrefix } from './provider.ts'

/** Loose on purpose: a development form, checked by the provider's consumer (Quire) anyway. */
const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

/**
 * Mounts the development provider under /dev-oidc. Its own endpoints (discovery, authorization,
 * token, userinfo, jwks…) get the raw request and response: the reply is hijacked and the URL
 * stripped of the prefix, as oidc-provider expects when mounted (it rebuilds its URLs from
 * `originalUrl`). Their bodies are left unread for the provider to parse. The sign-in form at
 * /dev-oidc/interaction/:uid is ours. None of these routes look at Quire's session cookie.
 *
 * The provider (a Koa app) builds its endpoints' URLs from the request's protocol and host and
 * marks its cookies Secure when the request's protocol is https. Behind a TLS-terminating proxy
 * it would see plain http from the proxy, announce http endpoints and set cookies without Secure;
 * so it is told what the web app knows: the public origin (WEB_URL, as the sign-in callback is
 * rebuilt on it, never on the Host header) and the client's address as Fastify decided it
 * (X-Forwarded-For believed only from TRUST_PROXY's proxies).
 */
export async function registerDevProvider(app: FastifyInstance, dev: DevProvider, options: { webUrl: string }): Promise<void> {
  const callback = dev.provider.callback()
  const origin = new URL(options.webUrl)
  // Koa reads the X-Forwarded-* headers only with `proxy`; the hook below writes them.
  dev.provider.proxy = true
  await app.register(async (devScope) => {
    devScope.addHook('onRequest', async (request) => {
      const headers = request.raw.headers
      headers['x-forwarded-proto'] = origin.protocol.slice(0, -1)
      headers['x-forwarded-host'] = origin.host
      headers['x-forwarded-for'] = request.ip
    })

    await devScope.register(async (scope) => {
      scope.removeAllContentTypeParsers()
      scope.addContentTypeParser('*', (_request, _payload, done) => done(null))
      scope.all(webRoutes.devProvider.pattern, { config: { session: false } }, (request, reply) => {
        reply.hijack()
        const raw = request.raw as IncomingMessage & { originalUrl?: string }
        raw.originalUrl = raw.url
        raw.url = (raw.url ?? '/').slice(devProviderPath.length) || '/'
        void callback(raw, reply.raw)
      })
    })

    devScope.get(webRoutes.devSignIn.pattern, { config: { session: false } }, async (request, reply) => {
      const details = await interactionOf(dev, request, reply)
      if (!details) return reply
      return sendPage(reply, 200, devSignInPage({ action: request.url.split('?')[0] ?? '' }))
    })

    devScope.post(webRoutes.devSignIn.pattern, { config: { session: false } }, async (request, reply) => {
      const details = await interactionOf(dev, request, reply)
      if (!details) return reply
      const body = (request.body ?? {}) as Record<string, unknown>
      if (body.action === 'cancel')
        return finishInteraction(dev, request, reply, { error: 'access_denied', error_description: 'The person cancelled the sign-in.' })
      const email = typeof body.email === 'string' ? body.email.trim().toLowerCase() : ''
      if (!emailPattern.test(email) || email.length > 254) {
        const page = devSignInPage({ action: request.url, email, problem: 'Enter an email address, like you@example.com.' })
        return sendPage(reply, 400, page)
      }
      return finishInteraction(dev, request, reply, { login: { accountId: body.unverified ? `${unverifiedPrefix}${email}` : email } })
    })
  })
}

/** The interaction in progress, or null after answering with a page saying it is gone. */
async function interactionOf(dev: DevProvider, request: FastifyRequest, reply: FastifyReply) {
  try {
    const details = await dev.provider.interactionDetails(request.raw, reply.raw)
    if (details.uid !== (request.params as { uid: string }).uid) throw new Error('interaction mismatch')
    return details
  } catch (error) {
    request.log.info({ err: error }, 'dev-oidc: no such interaction')
    sendPage(
      reply,
      400,
      errorPage({
        title: 'Sign-in expired',
        message: 'This sign-in page is no longer valid (it expired, or was opened in another browser). Start again from Quire.',
        retrySignIn: true,
      }),
    )
    return null
  }
}

/** Hands the result to the provider, which answers with its redirect onward (on the raw response). */
async function finishInteraction(
  dev: DevProvider,
  request: FastifyRequest,
  reply: FastifyReply,
  result: InteractionResults,
): Promise<void> {
  reply.hijack()
  try {
    await dev.provider.interactionFinished(request.raw, reply.raw, result, { mergeWithLastSubmission: false })
  } catch (error) {
    request.log.error({ err: error }, 'dev-oidc: could not finish the interaction')
    if (reply.raw.headersSent) return
    reply.raw.writeHead(500, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
    reply.raw.end(
      errorPage({
        title: 'Sign-in failed',
        message: 'The development provider could not finish the sign-in. Start again.',
        retrySignIn: true,
      }),
    )
  }
}

function sendPage(reply: FastifyReply, status: number, page: string): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(page)
}
