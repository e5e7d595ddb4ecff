import { oauthServerConfig } from '@quire/core'
import { layout, signInPath } from '@quire/pages'
import { discoveryDocuments, type Runtime } from '@quire/runtime'
import { contentSecurityPolicy, type SessionCookies } from '@quire/web-http'
import type { FastifyInstance } from 'fastify'
import { registerOAuthServer } from './authorization-server.ts'

/**
 * The OAuth 2.1 authorization server (authorization-server.ts), given what it needs from the web app:
 * the signed-in person (the session hook has already checked the CSRF token of every unsafe
 * request that came with one), their CSRF token, the sign-in URL, and the page layout.
 */
export function registerOAuthRoutes(app: FastifyInstance, options: { runtime: Runtime; sessions: SessionCookies }): void {
  const { runtime, sessions } = options
  registerOAuthServer(app, runtime.deps, oauthServerConfig(runtime.deps.config), {
    discovery: discoveryDocuments(runtime),
    agents: runtime.agentAuth,
    session: async (request) => request.session?.principal ?? null,
    csrfToken: (principal) => ('credentialId' in principal ? sessions.csrfTokenFor(principal.credentialId) : ''),
    loginUrl: signInPath,
    sendPage: (reply, page) =>
      reply
        .code(page.status ?? 200)
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        // The consent form's answer redirects to the client, wherever it is registered.
        .header('content-security-policy', contentSecurityPolicy({ formAction: false }))
        .send(layout({ title: page.title, visitor: reply.request.session?.user ?? null }, page.body)),
  })
}
