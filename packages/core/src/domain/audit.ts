import type { AuditAction } from '../contract/audit-actions.ts'
import type { ActorRef } from '../contract/schemas/common.ts'
import type { Caller, CredentialKind, Principal, Surface } from './principal.ts'

/** Through which surface and with which exact credential a change was made. */
export interface AuditVia {
  readonly surface: Surface
  readonly credential: CredentialKind | null
  readonly credentialId: string | null
}

/** An audit event as written, in the same transaction as the change it records. */
export interface AuditEventDraft {
  readonly id: string
  readonly at: Date
  readonly action: AuditAction
  readonly actor: ActorRef
  readonly via: AuditVia
  readonly workspaceId: string | null
  readonly artifactId: string | null
  readonly data: Readonly<Record<string, unknown>>
}

/** The operator (the `admin` command) as an actor. */
export const operatorActor: ActorRef = { kind: 'operator', id: 'operator', label: 'operator' }

/** Quire itself, acting on its own rules (revoking a grant whose code or refresh token was replayed). */
export const systemActor: ActorRef = { kind: 'system', id: 'quire', label: 'Quire' }

/**
 * An agent as an actor, by its name: for the person who claimed it (`Release bot (agent of
 * <username>)`, `onBehalfOf` them), or `Release bot (unclaimed agent)`. The name is the agent's
 * own words, so the part in brackets is what says whose it is.
 */
export function agentActor(
  agent: { readonly id: string; readonly name: string },
  person: { readonly id: string; readonly username: string } | null,
): ActorRef {
  return person
    ? {
        kind: 'agent',
        id: agent.id,
        label: `${agent.name} (agent of ${person.username})`,
        onBehalfOf: { id: person.id, label: person.username },
      }
    : { kind: 'agent', id: agent.id, label: `${agent.name} (unclaimed agent)` }
}

/** The actor recorded for a principal. Anonymous callers never write, so they have none. */
export function actorOf(principal: Principal): ActorRef {
  switch (principal.kind) {
    case 'session':
    case 'api_key':
    case 'oauth':
      return { kind: 'user', id: principal.user.id, label: principal.user.username }
    case 'agent':
      return agentActor({ id: principal.agentId, name: principal.agentName }, principal.user)
    case 'share_link':
      return { kind: 'share_link', id: principal.credentialId, label: 'share link' }
    case 'anonymous':
      throw new Error('anonymous callers cannot be recorded as actors')
  }
}

export function viaOf(principal: Principal, caller: Caller): AuditVia {
  if (principal.kind === 'anonymous') return { surface: caller.surface, credential: null, credentialId: null }
  return { surface: caller.surface, credential: principal.kind, credentialId: principal.credentialId }
}
