import { oauthServerConfig } from '@quire/core'
import { type AgentConnection, agentsPage, noticeKey, webRoutes } from '@quire/pages'
import type { Runtime } from '@quire/runtime'
import { visitorFrom } from '@quire/web-http'
import type { FastifyInstance } from 'fastify'
import { operate } from '../../operate.ts'
import { redirectWithNotice } from './notice-redirect.ts'
import { refuse } from './refusals.ts'
import { cursorOf, pageQuery, single } from './request-values.ts'
import { sendPage, signedIn } from './signed-in.ts'

/** Agents on one page of the list. */
const AGENTS_PAGE_SIZE = 50

/** Where agents connect on this deployment; null when agent registration (auth.md) is off. */
function connectionOf(runtime: Runtime): AgentConnection | null {
  if (runtime.agentAuth === null) return null
  const webUrl = oauthServerConfig(runtime.deps.config).issuer
  return { skillUrl: `${webUrl}${webRoutes.authMd.path()}`, claimUrl: `${webUrl}${webRoutes.agentClaim.path()}` }
}

/** `/settings/agents`: list the agents the person claimed, and revoke them. */
export function registerAgentRoutes(app: FastifyInstance, runtime: Runtime): void {
  app.get(webRoutes.agents.pattern, async (request, reply) => {
    const session = signedIn(request, reply, webRoutes.agents.path())
    if (!session) return reply
    const cursor = cursorOf(request, reply)
    if (cursor === null) return reply
    const agents = await operate(runtime, request, 'listAgents', {
      params: undefined,
      query: pageQuery(AGENTS_PAGE_SIZE, cursor),
      body: undefined,
    })
    if (!agents.ok) return refuse(request, reply, agents.error)
    const page = agentsPage({
      agents: agents.value.value,
      cursor,
      visitor: visitorFrom(session),
      csrfToken: session.csrfToken,
      notice: noticeKey(single(request.query, 'notice')),
      connection: connectionOf(runtime),
    })
    return sendPage(reply, page)
  })

  app.post<{ Params: { agentId: string } }>(webRoutes.agentRevoke.pattern, async (request, reply) => {
    if (!signedIn(request, reply, webRoutes.agents.path())) return reply
    const revoked = await operate(runtime, request, 'revokeAgent', {
      params: { agentId: request.params.agentId },
      query: undefined,
      body: undefined,
    })
    if (!revoked.ok) return refuse(request, reply, revoked.error)
    return redirectWithNotice(reply, webRoutes.agents.path({}, { notice: 'agent-revoked' }))
  })
}
