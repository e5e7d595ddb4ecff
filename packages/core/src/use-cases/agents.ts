import type { Agent } from '../contract/schemas/agent.ts'
import type { PageOf, PageQuery } from '../contract/schemas/common.ts'
import { actorOf, viaOf } from '../domain/audit.ts'
import { unseen } from '../domain/hidden.ts'
import type { Caller } from '../domain/principal.ts'
import { fail, ok, type Result } from '../domain/result.ts'
import type { AgentSummaryRecord } from '../ports/agents.ts'
import { admitAccount } from './access.ts'
import type { CoreDeps } from './deps.ts'
import { idKey, pageOfIds } from './paging.ts'

export function presentAgent(record: AgentSummaryRecord, now: Date): Agent {
  const request = record.scopeRequest
  const live = request !== null && record.revokedAt === null && request.expiresAt.getTime() > now.getTime()
  return {
    id: record.id,
    type: record.type,
    name: record.name,
    description: record.description,
    scopes: [...record.scopes],
    createdAt: record.createdAt.toISOString(),
    claimedAt: record.claimedAt.toISOString(),
    lastUsedAt: record.lastUsedAt?.toISOString() ?? null,
    revokedAt: record.revokedAt?.toISOString() ?? null,
    scopeRequest: live ? { scopes: [...request.scopes], expiresAt: request.expiresAt.toISOString() } : null,
  }
}

/** The agents the caller claimed, newest first, revoked ones included. */
export async function listAgents(deps: CoreDeps, caller: Caller, query: PageQuery): Promise<Result<PageOf<Agent>>> {
  const account = await admitAccount(deps, caller, 'agent.manage')
  if (!account.ok) return account
  const now = deps.clock.now()
  return pageOfIds(
    query,
    'agt',
    async (page) => [...(await deps.agents.listForUser(account.value.userId, page))],
    (record) => presentAgent(record, now),
  )
}

/**
 * Revokes one of the caller's agents: every token of it and its identity assertion stop at once.
 * Revoking it again changes nothing and is not an error; an agent that is not the caller's is
 * `not_found`, as one that does not exist.
 */
export async function revokeAgent(deps: CoreDeps, caller: Caller, agentId: string): Promise<Result<Agent>> {
  const account = await admitAccount(deps, caller, 'agent.manage')
  if (!account.ok) return account
  const { principal, userId } = account.value
  if (!idKey('agt')(agentId)) return fail('not_found', unseen.agent)
  const profile = await deps.accounts.profile(userId)
  if (profile === null) return fail('invalid_token', 'The account behind this credential no longer exists.')
  const at = deps.clock.now()
  const outcome = await deps.agents.revokeAgent({
    registrationId: agentId,
    userId,
    at,
    audit: {
      id: deps.ids.next('evt'),
      at,
      action: 'agent.revoked',
      actor: actorOf(principal),
      via: viaOf(principal, caller),
      workspaceId: profile.personalWorkspaceId,
      artifactId: null,
      data: { agentId, reason: 'revoked_by_person' },
    },
  })
  if (outcome.ok) return ok(presentAgent(outcome.agent, at))
  return fail('not_found', unseen.agent)
}
