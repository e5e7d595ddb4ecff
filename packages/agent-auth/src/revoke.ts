import type { AuditEventDraft } from '@quire/core'
import type { AgentContext } from './context.ts'
import { agentFail, agentOk } from './errors.ts'
import { agentEvent } from './events.ts'
import { revokeByAssertion } from './self-revoke.ts'
import type { AgentForm, AgentReply } from './types.ts'

/**
 * `/oauth2/revoke` for agent tokens (RFC 7009): revokes the token with this hash. Unknown, foreign
 * and already revoked tokens change nothing and get the same answer (200, empty), so the endpoint
 * tells nobody whether a token existed. `token_type_hint` is accepted and ignored. An identity
 * assertion of this server ends its whole registration, as `DELETE /agent/identity` does.
 */
export async function revoke(ctx: AgentContext, form: AgentForm): Promise<AgentReply> {
  const token = form.token
  if (typeof token !== 'string' || token === '') return agentFail('revoke', 'invalid_request', 'token is required.')
  if (await revokeByAssertion(ctx, token)) return agentOk(null)
  const { deps } = ctx
  const at = deps.clock.now()
  await deps.agents.revokeToken({
    secretHash: await deps.sha256(token),
    at,
    // Only a claimed agent's token is on someone's trail: an unclaimed agent acts for nobody.
    audit: (registration, owner, tokenId): AuditEventDraft | null =>
      owner === null ? null : agentEvent(ctx, 'token.revoked', registration, owner, tokenId, at, { tokenId, reason: 'revoked_by_agent' }),
  })
  return agentOk(null)
}
