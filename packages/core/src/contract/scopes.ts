import { type Static, Type } from 'typebox'

/** The eight scopes an API key, OAuth token or agent token can carry (SPEC "Valid scopes"). */
export const scopes = [
  'artifacts:read',
  'artifacts:create',
  'artifacts:update',
  'artifacts:delete',
  'artifacts:share',
  'artifacts:access:read',
  'artifacts:access:write',
  'agents:manage',
  'webhooks:write',
] as const

export type Scope = (typeof scopes)[number]

export const ScopeSchema = Type.Enum(scopes, { description: 'A permission scope.' })

export function isScope(value: string): value is Scope {
  return (scopes as readonly string[]).includes(value)
}

export type ScopeValue = Static<typeof ScopeSchema>
