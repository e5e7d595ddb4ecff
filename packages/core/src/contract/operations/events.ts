import { defineOperation } from '../operation.ts'
import { EventBatch, EventsQuery } from '../schemas/events.ts'

export const eventOperations = {
  listEvents: defineOperation({
    method: 'GET',
    path: '/api/events',
    summary: 'Follow an artifact, a project or a workspace: the changes after an event id, as JSON (a long poll) or as Server-Sent Events',
    description:
      "Name exactly one of `artifact` (an id or `owner/project/slug`), `project` (`owner/project`) or `workspace` (an id). As JSON, the answer holds the events after `after`, waiting up to `wait` seconds for a first one. With `Accept: text/event-stream` it is a stream: one `id:`/`data:` message per event (the data is the event as JSON), a comment every 15 seconds to keep proxies from closing it, `Last-Event-ID` (or `after`) to resume exactly after the last event seen, and a final `event: closed` (`{reason, message}`) when the credential is revoked, access is lost or the server shuts down. Each event is shown only to a follower who may read its artifact at that moment; a deleted artifact's events only to those who could delete it. Events are thin (ids, kind, version, actor, time): read the content with the normal operations.",
    tags: ['events', 'artifacts'],
    action: 'artifact.read',
    anonymous: false,
    query: EventsQuery,
    success: { status: 200, schema: EventBatch },
    errors: ['not_found', 'forbidden', 'insufficient_scope', 'invalid_cursor'],
    hints: { readOnly: true, destructive: false, idempotent: true },
  }),
} as const
