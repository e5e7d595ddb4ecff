import { type Static, Type } from 'typebox'
import { ScopeSchema } from '../scopes.ts'
import { Id, PathSegment, Timestamp } from './common.ts'

export const AgentId = Id('agt', 'Agent identifier (its registration).')

/** An agent a person claimed (auth.md): how it registered, what its tokens carry, and when it was used. */
export const Agent = Type.Object({
  id: AgentId,
  type: Type.Enum(['service_auth', 'anonymous'], {
    description: 'How the agent registered: `service_auth` (naming the person who claims it) or `anonymous`.',
  }),
  name: Type.String({
    description: 'What people see it as: the `name` it registered with (plain text, at most 80 characters), or one generated from its id.',
  }),
  description: Type.Union([Type.String(), Type.Null()], {
    description: 'What the agent said it does when it registered (plain text, at most 500 characters); null if it said nothing.',
  }),
  scopes: Type.Array(ScopeSchema, { description: 'What its tokens carry since the claim (never more than the person may).' }),
  createdAt: { ...Timestamp, description: 'When the agent registered.' },
  claimedAt: { ...Timestamp, description: 'When the person confirmed the claim.' },
  lastUsedAt: Type.Union([Timestamp, Type.Null()], {
    description: 'When one of its tokens was last used, recorded to the minute; null if never.',
  }),
  revokedAt: Type.Union([Timestamp, Type.Null()], {
    description: 'When the agent was revoked (every token of it stopped then); null unless revoked.',
  }),
  scopeRequest: Type.Union(
    [
      Type.Object({
        scopes: Type.Array(ScopeSchema, { description: 'The scopes it asks for, beyond those it holds.' }),
        expiresAt: { ...Timestamp, description: 'When the code the agent showed for it expires.' },
      }),
      Type.Null(),
    ],
    {
      description:
        'More scopes the agent asked for (step-up), waiting for the person to confirm with the link and code the agent showed; null when none is live.',
    },
  ),
})
export type Agent = Static<typeof Agent>

export const AgentParams = Type.Object(
  { agentId: { ...PathSegment, description: 'Agent identifier (`agt_…`).' } },
  { additionalProperties: false },
)
export type AgentParams = Static<typeof AgentParams>
