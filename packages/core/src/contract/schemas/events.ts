import { type Static, Type } from 'typebox'
import type { AuditAction } from '../audit-actions.ts'
import { ActorRef, ArtifactId, ProjectId, Timestamp, WorkspaceId } from './common.ts'

/**
 * The kinds of change a follower hears of: the audit kinds a reader of an artifact cares about (the
 * trigger of migration 0011 lists the same, as it stood when written).
 */
export const changeKinds = [
  'artifact.created',
  'artifact.version_created',
  'artifact.restored',
  'artifact.deleted',
  'artifact.access_changed',
  'share_link.created',
  'share_link.revoked',
] as const satisfies readonly AuditAction[]
export type ChangeKind = (typeof changeKinds)[number]

/** The longest a long poll (or `wait_for_changes`) waits for a first event, in seconds. */
export const EVENTS_MAX_WAIT_SECONDS = 30

/** An event id: the decimal position of the event in the one ordered stream of changes. */
export const EventId = Type.String({
  pattern: '^(0|[1-9][0-9]{0,17})$',
  description: 'An event id (a decimal position in the one ordered stream of changes). Pass the last one you saw as `after` to resume.',
})

/**
 * One change, thin: which artifact, what happened, who and when. The content is read through the
 * normal operations (`getArtifactChanges` with the version you last saw).
 */
export const ChangeEvent = Type.Object({
  id: EventId,
  kind: Type.Enum(changeKinds, { description: 'What happened, as the audit trail names it.' }),
  at: { ...Timestamp, description: 'When it happened (the time of the change, recorded in its transaction).' },
  artifactId: ArtifactId,
  path: Type.String({ description: 'Where the artifact is now: `owner/project/slug`.' }),
  projectId: ProjectId,
  workspaceId: WorkspaceId,
  versionNumber: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
    description: 'The version made (created, version_created, restored); null for other kinds.',
  }),
  actor: { ...ActorRef, description: 'Who made the change.' },
})
export type ChangeEvent = Static<typeof ChangeEvent>

export const EventsQuery = Type.Object(
  {
    artifact: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 400,
        description: 'Follow one artifact: its id (`art_…`) or its path `owner/project/slug`.',
      }),
    ),
    project: Type.Optional(
      Type.String({ minLength: 3, maxLength: 200, description: 'Follow every artifact of a project: `owner/project`. Members only.' }),
    ),
    workspace: Type.Optional({ ...WorkspaceId, description: 'Follow every artifact of a workspace, by id. Members only.' }),
    after: Type.Optional({
      ...EventId,
      description:
        'The last event id you saw: the events after it are returned, in order. Left out: from now on (the answer\'s `cursor` is where "now" is).',
    }),
    wait: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: EVENTS_MAX_WAIT_SECONDS,
        description: `Seconds to wait for a first event when there is none yet (0–${EVENTS_MAX_WAIT_SECONDS}, default 0): a long poll.`,
      }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, description: 'Events per answer, 1–500 (default 100).' })),
  },
  { additionalProperties: false },
)
export type EventsQuery = Static<typeof EventsQuery>

export const EventBatch = Type.Object({
  events: Type.Array(ChangeEvent, { description: 'The events after `after`, oldest first; empty when none came in time.' }),
  cursor: {
    ...EventId,
    description:
      'Pass it back as `after` to go on: the last event returned, or (when none were) where the stream stands, past any event you may not see.',
  },
  more: Type.Boolean({ description: 'True when more events are already waiting: ask again at once.' }),
})
export type EventBatch = Static<typeof EventBatch>
