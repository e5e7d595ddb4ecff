import type { Scope } from './scopes.ts'

/**
 * The authorization action catalogue. Every operation names one action; the action names the
 * scope a token must carry (null: any credential acting for a user, e.g. reading one's own
 * profile). `decide()` (in @quire/authz) owns what each action means. Why each scope gates what
 * it does is in docs/decisions.md ("Scopes").
 */
export const actions = {
  'artifact.read': { scope: 'artifacts:read', mutates: false },
  'artifact.create': { scope: 'artifacts:create', mutates: true },
  'artifact.update': { scope: 'artifacts:update', mutates: true },
  'artifact.delete': { scope: 'artifacts:delete', mutates: true },
  'artifact.share': { scope: 'artifacts:share', mutates: true },
  'artifact.access.read': { scope: 'artifacts:access:read', mutates: false },
  'artifact.access.write': { scope: 'artifacts:access:write', mutates: true },
  'audit.read': { scope: 'artifacts:read', mutates: false },
  'project.read': { scope: 'artifacts:read', mutates: false },
  'project.create': { scope: 'artifacts:create', mutates: true },
  'profile.read': { scope: null, mutates: false },
  /** The username is the personal namespace in every artifact URL under it. */
  'profile.update': { scope: 'artifacts:update', mutates: true },
  'workspace.read': { scope: 'artifacts:read', mutates: false },
  /** A workspace is an owner namespace for projects and artifacts. */
  'workspace.create': { scope: 'artifacts:create', mutates: true },
  /** Who is in a workspace is who has access to its artifacts. */
  'workspace.members.read': { scope: 'artifacts:access:read', mutates: false },
  /** Inviting someone shares the workspace's artifacts with them. */
  'workspace.invite': { scope: 'artifacts:share', mutates: true },
  /** The invitee's own consent, checked against their verified email. */
  'invitation.accept': { scope: null, mutates: true },
  /** Keys are the credentials automation acts with. */
  'api_key.manage': { scope: 'agents:manage', mutates: true },
  /** Claimed agents act for the person, like keys: seeing and stopping them is managing credentials. */
  'agent.manage': { scope: 'agents:manage', mutates: true },
  /** A webhook sends what its owner may read to a URL of their choosing: its own scope. */
  'webhook.manage': { scope: 'webhooks:write', mutates: true },
} as const satisfies Record<string, { scope: Scope | null; mutates: boolean }>

export type Action = keyof typeof actions

export const Actions = Object.keys(actions) as Action[]

/** The scope a token needs for an action; null when any credential of the user will do. */
export function scopeFor(action: Action): Scope | null {
  return actions[action].scope
}
