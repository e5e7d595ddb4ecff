import { defineOperation } from '../operation.ts'
import { Agent, AgentParams } from '../schemas/agent.ts'
import { Page, PageQuery } from '../schemas/common.ts'

/** The agents the caller claimed (auth.md). */
export const agentOperations = {
  listAgents: defineOperation({
    method: 'GET',
    path: '/api/agents',
    summary: 'List the agents the caller claimed, newest first, with when each was last used',
    description: 'Revoked agents are listed too, with `revokedAt`. Agents not yet claimed belong to no one and are not listed.',
    tags: ['agents'],
    action: 'agent.manage',
    anonymous: false,
    query: PageQuery,
    success: { status: 200, schema: Page(Agent) },
    errors: ['forbidden', 'insufficient_scope', 'invalid_cursor'],
    hints: { readOnly: true, destructive: false, idempotent: true },
  }),
  revokeAgent: defineOperation({
    method: 'POST',
    path: '/api/agents/:agentId/revoke',
    summary: 'Revoke an agent: every token of it stops at once (idempotent)',
    description:
      'Its identity assertion stops too, so it cannot get new tokens. Revoking a revoked agent changes nothing and is not an error.',
    tags: ['agents'],
    action: 'agent.manage',
    anonymous: false,
    params: AgentParams,
    success: { status: 200, schema: Agent },
    errors: ['not_found', 'forbidden', 'insufficient_scope'],
    hints: { readOnly: false, destructive: true, idempotent: true },
  }),
} as const
