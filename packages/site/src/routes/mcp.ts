import { type Caller, type Failure, identify, type Principal, type Result, type Scope } from '@quire/core'
import { type Counters, callerOf, handleError, type RateLimitSettings, registerRateLimit, sendFailure } from '@quire/http-edge'
import { bindingExecutor, bodyRefusal, type McpHttpResponse, rpcRefusal, statelessHttpServer, toolNamed, unusableTools } from '@quire/mcp'
import { webRoutes } from '@quire/pages'
import type { Runtime } from '@quire/runtime'
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify'

export interface McpRouteOptions {
  readonly runtime: Runtime
  /** The web app's public origin: the MCP endpoint is `{webUrl}/mcp`, the audience its tokens must carry. */
  readonly webUrl: string
  /** Browser origins allowed besides the web app's own (CORS_ORIGINS). */
  readonly allowedOrigins?: readonly string[]
  /** The API's limits, counted with the web app's counters (requests per credential, refused credentials per address); false: none. */
  readonly limits: { readonly settings: RateLimitSettings; readonly counters: Counters } | false
}

/** Credentials `/mcp` accepts: API keys, OAuth tokens issued for it, agent tokens. Never a session or a share link. */
const acceptedKinds = new Set<Principal['kind']>(['api_key', 'oauth', 'agent'])

/** Headers a browser-hosted client sends and must be allowed to read (the challenge above all). */
const corsRequestHeaders = 'authorization, content-type, accept, mcp-protocol-version, mcp-method, mcp-name, last-event-id, x-request-id'
const corsExposedHeaders = 'www-authenticate, mcp-protocol-version, x-request-id, retry-after'

/** The scopes a JSON-RPC request needs before it may run: its tool's, or reading for resources. */
function scopesNeeded(body: unknown): readonly Scope[] {
  if (typeof body !== 'object' || body === null) return []
  const { method, params } = body as { method?: unknown; params?: { name?: unknown } }
  if (method === 'tools/call' && typeof params?.name === 'string') return toolNamed(params.name)?.scopes ?? []
  if (method === 'resources/read' || method === 'resources/list') return ['artifacts:read']
  return []
}

function isToolCall(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as { method?: unknown }).method === 'tools/call'
}

function lacks(principal: Principal, scopes: readonly Scope[]): boolean {
  if (!('scopes' in principal) || principal.scopes === 'all') return false
  const held = principal.scopes
  return scopes.some((scope) => !held.includes(scope))
}

/**
 * The MCP endpoint (DESIGN "Surfaces, briefly"; research/mcp-cli.md §1–§2): `POST /mcp`,
 * stateless Streamable HTTP with JSON responses, over the same operations, `decide()` and audit
 * writes as REST (every change recorded with `via.surface = "mcp"`).
 *
 * The edge answers what HTTP must, before the MCP server or (for the credential and its scopes,
 * which the call's own operation checks in the statement that reads its data) before its answer leaves:
 * - a foreign `Origin` → 403 (DNS rebinding; the web origin and CORS_ORIGINS pass, no Origin is a non-browser client);
 * - no credential → 401 with `WWW-Authenticate: Bearer resource_metadata=…/.well-known/oauth-protected-resource/mcp`,
 *   which is how a host falls back to the OAuth flow; a credential that is not valid here (unknown, expired,
 *   revoked, an OAuth token for another audience, a session or a share link) → 401 `invalid_token`;
 *   too many of those from one address → 429;
 * - past the API's request budget of the credential (the same counters as REST when they are shared) → 429;
 * - a `tools/call` (or resource read) whose scopes the credential lacks → 403 `insufficient_scope` naming all of them
 *   (the operation refused it, so nothing ran), except an agent's tool call: its tool result says what to do next;
 * - an agent is not offered the tools it can never use (`tools/list`; `initialize`'s instructions say which and why);
 * - a JSON-RPC batch → 400, JSON-RPC error -32600, before any of its calls runs (`statelessHttpServer`);
 * - a body that is not JSON → 400, JSON-RPC error -32700 (parse error); a Content-Type that is not JSON → 415.
 * `GET` and `DELETE` → 405: there are no sessions and no server-initiated stream.
 * One MCP server answers every request of the process (`statelessHttpServer`): it holds nothing
 * between requests, and each call runs as its own caller (`bindingExecutor`).
 */
export async function registerMcpRoutes(app: FastifyInstance, options: McpRouteOptions): Promise<void> {
  // Its own scope: the API's problem+json answers and rate limits, not the pages' HTML errors.
  await app.register(async (scope) => mcpRoutes(scope, options))
}

async function mcpRoutes(app: FastifyInstance, options: McpRouteOptions): Promise<void> {
  const resource = `${options.webUrl}${webRoutes.mcp.path()}`
  const deps = options.runtime.forAudience(resource)
  const mcp = statelessHttpServer({ version: deps.config.version })
  const agents = deps.config.agents
  const allowedOrigins = new Set([new URL(options.webUrl).origin, ...(options.allowedOrigins ?? [])])

  // Every Bearer challenge (401, 403) names this resource's metadata, as the API's name its own.
  app.decorate('resourceMetadataUrl', `${options.webUrl}${webRoutes.mcpResourceMetadata.path()}`)
  app.setErrorHandler((error: FastifyError, request, reply) => {
    // A body the parser refused is answered as the transport answers it: not JSON is a JSON-RPC
    // parse error (-32700), a Content-Type that is not JSON a 415.
    const refused = bodyRefusal(error)
    return refused ? send(reply, refused) : handleError(error, request, reply)
  })
  // Before anything else, limits included: a foreign Origin is refused (DNS rebinding); an allowed
  // one gets CORS on every answer, refusals too (a browser-hosted client must read the challenge).
  app.addHook('onRequest', async (request, reply) => {
    reply.header('cache-control', 'no-store')
    const origin = request.headers.origin
    if (origin === undefined) return
    if (!allowedOrigins.has(origin)) {
      if (request.method === 'OPTIONS') return reply.code(403).send()
      return send(reply, rpcRefusal(403, `Forbidden: the Origin ${origin} may not call this server.`))
    }
    reply.header('access-control-allow-origin', origin)
    reply.header('access-control-expose-headers', corsExposedHeaders)
    reply.header('vary', 'Origin')
  })
  if (options.limits !== false) await registerRateLimit(app, options.limits.settings, options.limits.counters)
  const limiter = options.limits === false ? null : app.authFailures

  /**
   * What HTTP answers instead of the JSON-RPC one: a credential not valid here (401), a scope the
   * call needs and it lacks (403). An agent token cannot re-authorize through OAuth, so its tool
   * call keeps the tool result, whose error carries the agent's hand-off (ask its person for the
   * scope, or hand them the action); OAuth tokens and API keys get the step-up challenge.
   */
  async function edgeRefusal(who: Result<Principal>, body: unknown): Promise<Failure | null> {
    if (!who.ok) return who.error
    if (who.value.kind === 'agent' && isToolCall(body)) return null
    const needed = scopesNeeded(body)
    if (!lacks(who.value, needed)) return null
    return {
      code: 'insufficient_scope',
      message: `This call needs the scopes ${needed.map((s) => `\`${s}\``).join(', ')}.`,
      scope: needed.join(' '),
    }
  }

  app.route({
    method: 'POST',
    url: webRoutes.mcp.pattern,
    // No cookie session here (a session is no credential for /mcp): the pages' session hook skips it.
    config: { session: false },
    // As the API: content up to its limit, JSON-escaped.
    bodyLimit: Math.max(deps.config.limits.contentBytes * 8, 1024 * 1024),
    handler: async (request, reply) => {
      const caller: Caller = { ...callerOf(request), surface: 'mcp', accepts: acceptedKinds }
      if (caller.credential === null)
        return sendFailure(reply, {
          code: 'unauthenticated',
          message: 'Send `Authorization: Bearer <token>`: an API key, or an OAuth token for this server (see the resource metadata).',
        })

      // An operation authenticates its caller in the statement that reads its data (the kinds
      // above included): a request that ends in one that succeeded needs no lookup of its own.
      // Any other (a failure, `initialize`, `tools/list`) is checked here before its answer leaves,
      // so a credential that is not valid gets the 401 and a missing scope the 403 as before.
      const operate = bindingExecutor(deps, caller)
      let who: Promise<Result<Principal>> | undefined
      const identified = () => {
        who ??= identify(deps, caller)
        return who
      }
      let admitted = false
      const answer = await mcp.handle(
        { headers: request.headers, body: request.body },
        {
          execute: async (call) => {
            const result = await operate(call)
            if (result.ok) admitted = true
            return result
          },
          onError: (error, tool) => request.log.error({ err: error, tool }, 'mcp: tool call failed'),
          unusable: async () => {
            const principal = await identified()
            return principal.ok && principal.value.kind === 'agent' && agents !== undefined
              ? unusableTools(agents.allowedScopes, options.webUrl)
              : null
          },
        },
      )
      if (!admitted) {
        const refusal = await edgeRefusal(await identified(), request.body)
        if (refusal !== null)
          return sendFailure(reply, limiter && refusal.code === 'invalid_token' ? await limiter.failed(request, refusal) : refusal)
      }
      return send(reply, answer)
    },
  })

  for (const method of ['GET', 'DELETE'] as const) {
    app.route({
      method,
      url: webRoutes.mcp.pattern,
      handler: async (_request, reply) =>
        send(
          reply.header('allow', 'POST, OPTIONS'),
          rpcRefusal(405, 'Method not allowed: this server is stateless; send JSON-RPC requests with POST.'),
        ),
    })
  }

  app.options(webRoutes.mcp.pattern, async (_request, reply) =>
    reply
      .code(204)
      .header('access-control-allow-methods', 'POST, OPTIONS')
      .header('access-control-allow-headers', corsRequestHeaders)
      .header('access-control-max-age', '7200')
      .send(),
  )
}

/** Sends an answer of the MCP transport (or a refusal in its shape) as it is. */
function send(reply: FastifyReply, answer: McpHttpResponse): FastifyReply {
  return reply.code(answer.status).headers(answer.headers).send(answer.body)
}
