import type { Scope } from './scopes.ts'

/**
 * The authorization action catalogue. Every operation names one action; the action names the
 * scope a token must carry. `decide()` (in @quire/authz) owns what each action means.
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
} as const satisfies Record<string, { scope: Scope; mutates: boolean }>

export type Action = keyof typeof actions

export const Actions = Object.keys(actions) as Action[]

/** The scope a token needs for an action. */
export function scopeFor(action: Action): Scope {
  return actions[action].scope
}
