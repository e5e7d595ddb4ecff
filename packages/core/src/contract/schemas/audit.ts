import { type Static, Type } from 'typebox'
import { ActorRef, Cursor, Limit, PathSegment, Timestamp } from './common.ts'

/** One recorded change. Events are immutable. */
export const AuditEvent = Type.Object({
  id: Type.String({ description: 'Event identifier (`evt_…`), time-sortable.' }),
  at: Timestamp,
  action: Type.String({ description: 'What happened, e.g. `artifact.version_created`, `share_link.revoked`.' }),
  actor: ActorRef,
  via: Type.Object({
    surface: Type.String({ description: 'api, web, cli, mcp or operator.' }),
    credential: Type.Union([Type.String(), Type.Null()], { description: 'session, api_key, oauth, agent or share_link.' }),
    credentialId: Type.Union([Type.String(), Type.Null()], { description: 'The exact key, token, agent credential or share link used.' }),
  }),
  workspaceId: Type.Union([Type.String(), Type.Null()]),
  artifactId: Type.Union([Type.String(), Type.Null()]),
  data: Type.Record(Type.String(), Type.Unknown()),
})
export type AuditEvent = Static<typeof AuditEvent>

export const AuditQuery = Type.Object(
  {
    artifactId: Type.Optional({ ...PathSegment, description: "An artifact's events; without it, the caller's account-level events." }),
    limit: Type.Optional(Limit),
    cursor: Type.Optional(Cursor),
  },
  { additionalProperties: false },
)
export type AuditQuery = Static<typeof AuditQuery>
