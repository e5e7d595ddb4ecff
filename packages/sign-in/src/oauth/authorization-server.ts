import type { AgentAuth } from '@quire/agent-auth'
import {
  approveAuthorization,
  type CoreDeps,
  checkAuthorizationRequest,
  denyAuthorization,
  exchangeToken,
  type OAuthError,
  type OAuthServerConfig,
  type Principal,
  registerOAuthClient,
  revokeOAuthToken,
} from '@quire/core'
import { consentPage, type OAuthPage, refusalPage, webRoutes } from '@quire/pages'
import type { Discovery } from '@quire/runtime'
import { webRateLimits } from '@quire/web-http'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'

/** What the OAuth routes need from the web app around them: who is signed in, CSRF, and page rendering. */
export interface OAuthWebKit {
  /** The signed-in person (a browser session), or null. */
  session(request: FastifyRequest): Promise<Principal | null>
  /** The CSRF token for a session's forms. */
  csrfToken(principal: Principal): string
  /** Where to sign in and come back to `returnTo` (a same-origin path). */
  loginUrl(returnTo: string): string
  /** Sends a finished HTML page (the app's layout around `body`). */
  sendPage(reply: FastifyReply, page: OAuthPage): FastifyReply
  /** The discovery documents (with the agent layer's additions when it is on). */
  readonly discovery: Discovery
  /** The agent registration layer, whose grants and tokens the token and revocation endpoints also serve; null when off. */
  readonly agents: AgentAuth | null
}

type Params = Record<string, string | undefined>

/** Only the string values of a query or form (repeated parameters are refused by the checks). */
function stringsOf(input: unknown): Params {
  const out: Params = {}
  if (typeof input !== 'object' || input === null) return out
  for (const [name, value] of Object.entries(input)) if (typeof value === 'string') out[name] = value
  return out
}

function sendOAuthError(reply: FastifyReply, error: OAuthError): FastifyReply {
  reply.header('cache-control', 'no-store')
  if (error.status === 401) reply.header('www-authenticate', 'Basic realm="quire"')
  return reply.code(error.status).send({ error: error.error, error_description: error.error_description })
}

/**
 * The JSON endpoints answer clients, not the browser's session: a cookie that happens to come
 * along is ignored (no session lookup, no CSRF rule), and errors keep RFC 6749's shape.
 */
const clientEndpoint = { config: { session: false, oauthErrors: true, rateLimit: webRateLimits.tokens } } as const
const registration = {
  config: { session: false, oauthErrors: true, oauthInputError: 'invalid_client_metadata', rateLimit: webRateLimits.registration },
} as const

/** Discovery documents and the JSON endpoints are for clients on any origin. */
function openToAnyOrigin(reply: FastifyReply): void {
  reply.header('access-control-allow-origin', '*')
}

/**
 * The OAuth 2.1 authorization server at the web origin (DESIGN "CLI and MCP clients sign in
 * through apps/web"): discovery (RFC 8414, RFC 9728 at the root and the `/mcp`-suffixed URL),
 * dynamic registration (RFC 7591), the authorization endpoint with a consent page, the token
 * endpoint (authorization code with PKCE S256; rotating refresh tokens) and revocation (RFC 7009).
 */
export function registerOAuthServer(app: FastifyInstance, deps: CoreDeps, config: OAuthServerConfig, kit: OAuthWebKit): void {
  const asMetadata = kit.discovery.authorizationServer
  const mcpResource = kit.discovery.protectedResource(`${config.issuer}${webRoutes.mcp.path()}`)
  app.get(webRoutes.authorizationServerMetadata.pattern, async (_request, reply) => {
    openToAnyOrigin(reply)
    return asMetadata
  })
  for (const path of [webRoutes.protectedResourceMetadata.pattern, webRoutes.mcpResourceMetadata.pattern]) {
    app.get(path, async (_request, reply) => {
      openToAnyOrigin(reply)
      return mcpResource
    })
  }

  app.options(webRoutes.oauthRegister.pattern, clientEndpoint, async (_request, reply) => {
    openToAnyOrigin(reply)
    return reply
      .code(204)
      .header('access-control-allow-methods', 'POST')
      .header('access-control-allow-headers', 'content-type')
      .header('access-control-max-age', '7200')
      .send()
  })
  app.post(webRoutes.oauthRegister.pattern, registration, async (request, reply) => {
    openToAnyOrigin(reply)
    const result = await registerOAuthClient(deps, request.body)
    if (!result.ok) return sendOAuthError(reply, result.error)
    return reply.code(201).header('cache-control', 'no-store').send(result.value)
  })

  app.get(webRoutes.oauthAuthorize.pattern, async (request, reply) => {
    const query = stringsOf(request.query)
    const checked = await checkAuthorizationRequest(deps, config, query)
    if (!checked.ok) {
      if (checked.refusal.redirectTo) return reply.redirect(checked.refusal.redirectTo, 302)
      return kit.sendPage(reply, refusalPage(checked.refusal))
    }
    const principal = await kit.session(request)
    if (principal === null) return reply.redirect(kit.loginUrl(request.url), 302)
    reply.header('cache-control', 'no-store')
    return kit.sendPage(reply, consentPage(checked.request, principal, query, kit.csrfToken(principal)))
  })

  // The consent form posts back the original request: it is checked again, as if new.
  app.post(webRoutes.oauthAuthorize.pattern, async (request, reply) => {
    const form = stringsOf(request.body)
    const principal = await kit.session(request)
    if (principal === null) return reply.redirect(kit.loginUrl(webRoutes.home.path()), 303)
    const checked = await checkAuthorizationRequest(deps, config, form)
    if (!checked.ok) {
      if (checked.refusal.redirectTo) return reply.redirect(checked.refusal.redirectTo, 303)
      return kit.sendPage(reply, refusalPage(checked.refusal))
    }
    const decision =
      form.decision === 'approve'
        ? await approveAuthorization(deps, config, principal, checked.request)
        : denyAuthorization(config, checked.request)
    return reply.header('cache-control', 'no-store').redirect(decision.redirectTo, 303)
  })

  app.post(webRoutes.oauthToken.pattern, clientEndpoint, async (request, reply) => {
    openToAnyOrigin(reply)
    const form = stringsOf(request.body)
    // The agent grants, when the layer is on; with it off they are unsupported grant types.
    const agentAnswer = kit.agents === null ? null : await kit.agents.token(form)
    if (agentAnswer !== null) {
      reply.header('cache-control', 'no-store').header('pragma', 'no-cache')
      return agentAnswer.body === null ? reply.code(agentAnswer.status).send() : reply.code(agentAnswer.status).send(agentAnswer.body)
    }
    const result = await exchangeToken(deps, form)
    if (!result.ok) return sendOAuthError(reply, result.error)
    return reply.header('cache-control', 'no-store').header('pragma', 'no-cache').send(result.value)
  })

  app.post(webRoutes.oauthRevoke.pattern, clientEndpoint, async (request, reply) => {
    openToAnyOrigin(reply)
    const form = stringsOf(request.body)
    // An agent token or an OAuth token: each revocation ignores the other's tokens (RFC 7009 answers the same either way).
    if (kit.agents !== null && form.token) await kit.agents.revoke(form)
    const result = await revokeOAuthToken(deps, form)
    if (!result.ok) return sendOAuthError(reply, result.error)
    return reply.code(200).header('cache-control', 'no-store').send()
  })
}
