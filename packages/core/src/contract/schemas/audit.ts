import { type Static, Type } from 'typebox'
import { auditActions } from '../audit-actions.ts'
import { DeletedArtifact } from './artifact.ts'
import { ActorRef, Cursor, Limit, Page, PathSegment, Timestamp } from './common.ts'

/** One recorded change. Events are immutable. */
export const AuditEvent = Type.Object({
  id: Type.String({ description: 'Event identifier (`evt_…`), time-sortable.' }),
  at: { ...Timestamp, description: 'When it happened.' },
  action: Type.String({ description: 'What happened, e.g. `artifact.version_created`, `share_link.revoked`.' }),
  actor: { ...ActorRef, description: 'Who did it.' },
  via: Type.Object(
    {
      surface: Type.String({ description: 'Where the request came in: api, web, cli, mcp or operator.' }),
      credential: Type.Union([Type.String(), Type.Null()], {
        description: 'The kind of credential used: session, api_key, oauth, agent or share_link; null when none.',
      }),
      credentialId: Type.Union([Type.String(), Type.Null()], {
        description: 'The exact key, token, agent credential or share link used; null when none.',
      }),
    },
    { description: 'How it was done: the surface and the credential.' },
  ),
  workspaceId: Type.Union([Type.String(), Type.Null()], {
    description: 'The workspace the event belongs to (`ws_…`); null for an account-level event.',
  }),
  artifactId: Type.Union([Type.String(), Type.Null()], { description: 'The artifact the event concerns (`art_…`); null when none.' }),
  // Any members, said plainly: `Type.Record(Type.String(), Type.Unknown())` writes them as
  // `patternProperties: {"^.*$": {}}`, an empty schema that tool hosts flag as unchecked.
  data: Type.Unsafe<Record<string, unknown>>({
    type: 'object',
    additionalProperties: true,
    description: 'Details that depend on `action`, e.g. the new version number and its SHA-256 for a new version.',
  }),
})
export type AuditEvent = Static<typeof AuditEvent>

/**
 * A page of `GET /api/audit-events`: a page of events, and on the trail of a soft-deleted artifact
 * (which only those who could delete it still read) the artifact's id and when it was deleted.
 */
export const AuditTrailPage = Type.Object({
  ...Page(AuditEvent).properties,
  deletedArtifact: Type.Optional({
    ...DeletedArtifact,
    description:
      "Present only on the trail of an artifact that is soft-deleted (only its workspace's owners and admins still read it): its id and when it was deleted.",
  }),
})
export type AuditTrailPage = Static<typeof AuditTrailPage>

/** `?action=`: only the events of one kind. */
export const AuditActionFilter = Type.Enum(auditActions, { description: 'Only events of this kind, e.g. `artifact.version_created`.' })

export const AuditQuery = Type.Object(
  {
    artifactId: Type.Optional({ ...PathSegment, description: "An artifact's events; without it, the caller's account-level events." }),
    action: Type.Optional(AuditActionFilter),
    limit: Type.Optional(Limit),
    cursor: Type.Optional(Cursor),
  },
  { additionalProperties: false },
)
export type AuditQuery = Static<typeof AuditQuery>

/** A workspace's trail: a page, optionally of one kind of event. */
export const WorkspaceAuditQuery = Type.Object(
  { action: Type.Optional(AuditActionFilter), limit: Type.Optional(Limit), cursor: Type.Optional(Cursor) },
  { additionalProperties: false },
)
export type WorkspaceAuditQuery = Static<typeof WorkspaceAuditQuery>
