import { type AgentReply, normaliseEmail } from '@quire/agent-auth'
import { type ClaimPage, claimPage, claimPageStatus, signInPath, webRoutes } from '@quire/pages'
import type { Runtime } from '@quire/runtime'
import { addressOf, budget, visitorFrom } from '@quire/web-http'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'

const HOUR_MS = 60 * 60_000

/** The JSON endpoints answer agents, not the browser's session, with RFC 6749-shaped errors (`{error, error_description}`). */
const agentEndpoint = { config: { session: false, oauthErrors: true } } as const

/**
 * A wrong code costs its account and its client address one each of these per quarter hour; past
 * either, the page answers 429 without looking codes up (many accounts behind one address do not
 * multiply the guesses, and a few people there can each fumble a code).
 */
const codeGuesses = { perAccount: 10, perAddress: 30, timeWindow: 15 * 60_000 }

function sendAgentReply(reply: FastifyReply, answer: AgentReply): FastifyReply {
  reply.header('cache-control', 'no-store').header('pragma', 'no-cache').header('access-control-allow-origin', '*')
  if (answer.retryAfterSeconds !== undefined) reply.header('retry-after', String(answer.retryAfterSeconds))
  return answer.body === null ? reply.code(answer.status).send() : reply.code(answer.status).send(answer.body)
}

function rateLimited(retryAfterSeconds: number, what: string): AgentReply {
  return {
    status: 429,
    body: { error: 'rate_limited', error_description: `Too many ${what}. Retry in ${retryAfterSeconds} s.` },
    retryAfterSeconds,
  }
}

/** A field of a JSON body, if it is a string. */
function field(request: FastifyRequest, name: string): string | null {
  const body = request.body
  if (typeof body !== 'object' || body === null) return null
  const value = (body as Record<string, unknown>)[name]
  return typeof value === 'string' ? value : null
}

/** The secret of an `Authorization: Bearer` header (as the API reads it), or null without one. */
function bearerOf(request: FastifyRequest): string | null {
  const header = request.headers.authorization
  if (header === undefined) return null
  return /^Bearer[ ]+([\x21-\x7e]+)[ ]*$/i.exec(header)?.[1] ?? null
}

/** The user code a query or form carries. */
function userCodeOf(input: unknown): string | null {
  if (typeof input !== 'object' || input === null) return null
  const value = (input as Record<string, unknown>).user_code
  return typeof value === 'string' && value.trim() !== '' ? value : null
}

/**
 * The agent registration layer at the web origin (the authorization server): `/auth.md`, the
 * registration, self-revocation and claim-request endpoints for agents, and the claim page for people. Registered
 * only when AUTH_MD_ENABLED is true; otherwise every one of these paths is a 404. The token and
 * revocation endpoints are the OAuth server's (oauth/authorization-server.ts), which hands the agent grants here.
 */
export function registerAgentRoutes(app: FastifyInstance, options: { runtime: Runtime }): void {
  const agents = options.runtime.agentAuth
  if (agents === null) return
  const authMd = agents.document()

  // Registration budgets (docs/decisions.md "The agent registration layer"): an address may try a
  // few anonymous registrations an hour and a few more naming a person, refused ones included; a
  // person is named by at most five registrations an hour, from anywhere, and only registrations
  // that were made count there (a refused one cannot spend someone else's budget).
  const typeOf = (request: FastifyRequest) => field(request, 'type')
  const anonymousPerAddress = budget(app, {
    name: 'agent-anonymous',
    max: 5,
    timeWindow: HOUR_MS,
    key: (r) => (typeOf(r) === 'anonymous' ? addressOf(r) : null),
  })
  const namedPerAddress = budget(app, {
    name: 'agent-service',
    max: 20,
    timeWindow: HOUR_MS,
    key: (r) => (typeOf(r) === 'service_auth' ? addressOf(r) : null),
  })
  const namedPerPerson = budget(app, {
    name: 'agent-hint',
    max: 5,
    timeWindow: HOUR_MS,
    key: (r) => (typeOf(r) === 'service_auth' ? normaliseEmail(field(r, 'login_hint')) : null),
  })
  const claimRequests = budget(app, { name: 'agent-claim', max: 20, timeWindow: HOUR_MS, key: addressOf })
  // Scope requests (step-up) are spent like claim requests: per address, refused ones included.
  const scopeRequests = budget(app, { name: 'agent-scopes', max: 20, timeWindow: HOUR_MS, key: addressOf })
  const wrongCodes = [
    budget(app, {
      name: 'agent-code',
      max: codeGuesses.perAccount,
      timeWindow: codeGuesses.timeWindow,
      key: (r) => r.session?.user.id ?? null,
    }),
    budget(app, { name: 'agent-code-address', max: codeGuesses.perAddress, timeWindow: codeGuesses.timeWindow, key: addressOf }),
  ]

  app.get(webRoutes.authMd.pattern, { config: { session: false } }, async (_request, reply) =>
    reply
      .header('access-control-allow-origin', '*')
      .header('cache-control', 'public, max-age=300')
      .type('text/markdown; charset=utf-8')
      .send(authMd),
  )

  app.post(webRoutes.agentIdentity.pattern, agentEndpoint, async (request, reply) => {
    for (const limit of [anonymousPerAddress, namedPerAddress]) {
      const { exceeded, retryAfterSeconds } = await limit(request)
      if (exceeded) return sendAgentReply(reply, rateLimited(retryAfterSeconds, 'registrations'))
    }
    const named = await namedPerPerson(request, { increment: false })
    if (named.exceeded) return sendAgentReply(reply, rateLimited(named.retryAfterSeconds, 'registrations naming this person'))
    const answer = await agents.register(request.body)
    if (answer.status === 200) await namedPerPerson(request)
    return sendAgentReply(reply, answer)
  })

  // The agent ends its own registration with its own credential (no session, no scope).
  app.delete(webRoutes.agentIdentity.pattern, agentEndpoint, async (request, reply) => {
    const answer = await agents.revokeIdentity(bearerOf(request))
    if (answer.status === 401) reply.header('www-authenticate', 'Bearer error="invalid_token"')
    return sendAgentReply(reply, answer)
  })

  app.post(webRoutes.agentIdentityClaim.pattern, agentEndpoint, async (request, reply) => {
    const { exceeded, retryAfterSeconds } = await claimRequests(request)
    if (exceeded) return sendAgentReply(reply, rateLimited(retryAfterSeconds, 'claim requests'))
    return sendAgentReply(reply, await agents.requestClaim(request.body))
  })

  app.post(webRoutes.agentIdentityScopes.pattern, agentEndpoint, async (request, reply) => {
    const { exceeded, retryAfterSeconds } = await scopeRequests(request)
    if (exceeded) return sendAgentReply(reply, rateLimited(retryAfterSeconds, 'scope requests'))
    const answer = await agents.requestScopes(bearerOf(request), request.body)
    if (answer.status === 401) reply.header('www-authenticate', 'Bearer error="invalid_token"')
    return sendAgentReply(reply, answer)
  })

  /** The page, for a signed-in person; signed out, they sign in first and come back here. */
  const sendClaimPage = (request: FastifyRequest, reply: FastifyReply, page: ClaimPage) => {
    const session = request.session
    if (session === null) throw new Error('the claim page is only rendered for a signed-in person')
    if (page.kind === 'locked') reply.header('retry-after', String(page.retryAfterSeconds))
    return reply
      .code(claimPageStatus[page.kind])
      .header('cache-control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(claimPage(page, visitorFrom(session), session.csrfToken))
  }

  /** Looks a code up for the signed-in person, counting every code that does not lead to a pending claim. */
  const lookUp = async (request: FastifyRequest, code: string, act: 'view' | 'confirm'): Promise<ClaimPage> => {
    const session = request.session
    if (session === null) throw new Error('codes are looked up only for a signed-in person')
    for (const limit of wrongCodes) {
      const locked = await limit(request, { increment: false })
      if (locked.exceeded) return { kind: 'locked', retryAfterSeconds: locked.retryAfterSeconds }
    }
    const outcome =
      act === 'view'
        ? await agents.claimView(code, session.user)
        : await agents.confirmClaim(code, { user: session.user, sessionId: session.credentialId })
    switch (outcome.kind) {
      case 'pending':
        return { kind: 'pending', agent: outcome.registration, userCode: outcome.userCode }
      case 'confirmed':
        return { kind: 'confirmed', agent: outcome.registration }
      case 'step_up':
        return { kind: 'step_up', agent: outcome.registration, userCode: outcome.userCode, added: outcome.added, held: outcome.held }
      case 'granted':
        return { kind: 'granted', agent: outcome.registration, added: outcome.added }
      case 'claimed':
        return { kind: 'claimed' }
      default:
        for (const limit of wrongCodes) await limit(request)
        return { kind: outcome.kind }
    }
  }

  // GET only shows: a link preview, a prefetch or a scanner confirms nothing.
  app.get(webRoutes.agentClaim.pattern, async (request, reply) => {
    if (request.session === null) return reply.redirect(signInPath(request.url), 302)
    const code = userCodeOf(request.query)
    return sendClaimPage(request, reply, code === null ? { kind: 'enter' } : await lookUp(request, code, 'view'))
  })

  // The session hook has checked the CSRF token and refused forms from other sites by now.
  app.post(webRoutes.agentClaim.pattern, async (request, reply) => {
    const code = userCodeOf(request.body)
    if (request.session === null) {
      const back = webRoutes.agentClaim.path({}, { user_code: code })
      return reply.redirect(signInPath(back), 303)
    }
    return sendClaimPage(request, reply, code === null ? { kind: 'enter' } : await lookUp(request, code, 'confirm'))
  })
}
