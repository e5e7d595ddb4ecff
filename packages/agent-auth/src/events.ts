import { type AgentOwner, type AuditAction, type AuditEventDraft, agentActor } from '@quire/core'
import type { AgentContext } from './context.ts'

/**
 * What a claimed agent did, on its person's account trail: the agent as the actor (on the person's
 * behalf), the agent credential it used (null: its identity assertion, which has no id).
 */
export function agentEvent(
  ctx: AgentContext,
  action: AuditAction,
  agent: { readonly id: string; readonly name: string },
  owner: AgentOwner,
  credentialId: string | null,
  at: Date,
  data: Readonly<Record<string, unknown>>,
): AuditEventDraft {
  return {
    id: ctx.deps.ids.next('evt'),
    at,
    action,
    actor: agentActor(agent, owner),
    via: { surface: 'api', credential: 'agent', credentialId },
    workspaceId: owner.personalWorkspaceId,
    artifactId: null,
    data: { agentId: agent.id, ...data },
  }
}

/** What the person did on the claim page, on their own trail: their signed-in session as the credential. */
export function personEvent(
  ctx: AgentContext,
  action: AuditAction,
  owner: AgentOwner,
  sessionId: string,
  at: Date,
  data: Readonly<Record<string, unknown>>,
): AuditEventDraft {
  return {
    id: ctx.deps.ids.next('evt'),
    at,
    action,
    actor: { kind: 'user', id: owner.id, label: owner.username },
    via: { surface: 'web', credential: 'session', credentialId: sessionId },
    workspaceId: owner.personalWorkspaceId,
    artifactId: null,
    data,
  }
}
