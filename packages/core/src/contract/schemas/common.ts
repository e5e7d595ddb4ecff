import { type Static, type TSchema, Type } from 'typebox'

/** Slugs and usernames: lowercase letters, digits and inner hyphens, 1–64 characters. */
export const SLUG_PATTERN = '^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$'

export const Slug = Type.String({
  pattern: SLUG_PATTERN,
  minLength: 1,
  maxLength: 64,
  description: 'Lowercase letters, digits and inner hyphens; 1–64 characters.',
})

/** A path segment as received: any short printable string (validity is reported, not rejected). */
export const PathSegment = Type.String({ minLength: 1, maxLength: 200, pattern: '^[^\\u0000-\\u001f\\u007f]+$' })

/**
 * Free text: any string without NUL characters (PostgreSQL text cannot hold them, and no
 * document needs them).
 */
export function Text(options: { minLength?: number; maxLength?: number; description?: string } = {}) {
  return Type.String({ ...options, pattern: '^[^\\u0000]*$' })
}

export const Timestamp = Type.String({
  format: 'date-time',
  description: 'ISO 8601 UTC timestamp with milliseconds, e.g. `2026-11-22T10:00:00.000Z`.',
})

export const Email = Type.String({ format: 'email', maxLength: 254, description: 'An email address (at most 254 characters).' })

export function Id(prefix: string, description: string) {
  return Type.String({ pattern: `^${prefix}_[0-9a-z]{26}$`, description, examples: [`${prefix}_01jc0000000000000000000000`] })
}

/** A version's fingerprint: what a pinned read's ETag is, and what a dry run says a write would store. */
export const Sha256 = Type.String({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the UTF-8 content, hex.' })

export const ArtifactId = Id('art', 'Artifact identifier.')
export const ProjectId = Id('prj', 'Project identifier.')
export const WorkspaceId = Id('ws', 'Workspace identifier.')

export const Limit = Type.Integer({ minimum: 1, maximum: 100, default: 50, description: 'Page size, 1–100 (default 50).' })
export const Cursor = Type.String({ minLength: 1, maxLength: 200, description: 'Opaque cursor from `nextCursor`.' })

/** The caller's key for a write it may retry (REST's `Idempotency-Key` header, an MCP write tool's `idempotencyKey`). */
export const IdempotencyKey = Type.String({
  minLength: 1,
  maxLength: 255,
  pattern: '^[\\x21-\\x7e]+$',
  description:
    'Makes the write safe to retry: a retry with the same key and input returns the first result and writes nothing (kept 24 hours). Printable ASCII, 1–255 characters.',
})

/** The query of every list operation. */
export const PageQuery = Type.Object({ limit: Type.Optional(Limit), cursor: Type.Optional(Cursor) }, { additionalProperties: false })
export type PageQuery = Static<typeof PageQuery>

function pageOf<T extends TSchema>(item: T) {
  return Type.Object({
    items: Type.Array(item, { description: 'The items of this page (at most `limit`), in the order the operation states.' }),
    nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `cursor` for the next page; null on the last page.' }),
  })
}

const pages = new WeakMap<TSchema, ReturnType<typeof pageOf>>()

/**
 * A keyset-paginated page: walk `nextCursor` until it is null. One schema per item schema (the
 * same object every time it is asked for), so the page of a resource is one named type wherever
 * it is used (the OpenAPI document names it once, e.g. `ArtifactPage`).
 */
export function Page<T extends TSchema>(item: T): ReturnType<typeof pageOf<T>> {
  let page = pages.get(item)
  if (!page) {
    page = pageOf(item)
    pages.set(item, page)
  }
  return page as ReturnType<typeof pageOf<T>>
}
export interface PageOf<T> {
  items: T[]
  nextCursor: string | null
}

export const AvailabilityReason = Type.Union([Type.Literal('taken'), Type.Literal('reserved'), Type.Literal('invalid')], {
  description:
    'Why the slug is not available: `taken` (in use), `reserved` (kept for the service) or `invalid` (not a valid slug). Absent when available.',
})
export type AvailabilityReason = Static<typeof AvailabilityReason>

/** Free names offered instead of a refused slug (the availability answer and the refusal's problem body). */
export const SlugSuggestions = Type.Array(Type.String({ pattern: SLUG_PATTERN }), {
  maxItems: 3,
  description:
    'When the slug is `reserved` or `taken`: up to 3 alternatives that were free and valid when asked, best first (e.g. `status-reports`, `status-2`).',
})

/** Who did something, as recorded on versions and audit events. */
export const ActorRef = Type.Object({
  kind: Type.Union(
    [Type.Literal('user'), Type.Literal('agent'), Type.Literal('share_link'), Type.Literal('operator'), Type.Literal('system')],
    { description: 'What acted: a user, an agent, someone holding a share link, the operator or the service itself (system).' },
  ),
  id: Type.String({
    description: 'The actor identifier: a user (`usr_…`), agent (`agt_…`) or share link (`shl_…`) id; `operator` or `quire` otherwise.',
  }),
  label: Type.String({ description: 'A display name, e.g. the username, `Release bot (agent of <username>)` or `share link`.' }),
  onBehalfOf: Type.Optional(
    Type.Object(
      {
        id: Type.String({ description: 'The user id (`usr_…`).' }),
        label: Type.String({ description: 'Their username.' }),
      },
      { description: 'On audit events by a claimed agent: the person who claimed it and for whom it acted.' },
    ),
  ),
})
export type ActorRef = Static<typeof ActorRef>
