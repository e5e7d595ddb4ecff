import type { ArtifactAccess, ArtifactType, ContentRecord, PresentedCredential, VersionContext, VersionRecord } from '@quire/core'
import type { Kysely } from 'kysely'
import { coalesce, type Lookup } from '../coalesce.ts'
import type { RawQuery } from '../database.ts'
import { isDataException } from '../pg-errors.ts'
import { roleFrom } from '../rows.ts'
import type { Database } from '../schema.ts'
import { credentialFields, credentialFrom } from './credential-projection.ts'
import type { ImmutableCache } from './immutable-cache.ts'
import { contentBody, versionsOf } from './immutable-reads.ts'

// The hot path of every version read and write: the credential, the artifact's access facts, the
// caller's role and (when asked) a version, for every request of one event-loop turn in ONE
// statement (see coalesce.ts). It is plain SQL (with prepared statements PostgreSQL plans it once
// per connection) and returns one json column per request: describing and parsing one column
// instead of thirty is what keeps it cheap (see bench/api and docs/decisions.md).
const accessFields = ['a.id', 'a.workspace_id', 'a.type', 'a.public_view', 'a.public_edit', 'a.viewer_emails', 'a.latest_version'] as const
const callerFields = [...credentialFields, 'm.role'] as const
const versionFields = [
  'v.number',
  'v.content_sha256',
  'v.size',
  'v.changelog',
  'v.restored_from',
  'v.created_at',
  'v.created_by_kind',
  'v.created_by_id',
  'v.created_by_label',
] as const
type Field = (typeof accessFields)[number] | (typeof callerFields)[number] | (typeof versionFields)[number]
const fields: readonly Field[] = [...accessFields, ...callerFields, ...versionFields]
/** Where each field sits in the returned array. */
const position = new Map<Field, number>(fields.map((field, i) => [field, i]))

// Every request is one element of the three arrays; each row is driven by its element, so a
// missing credential, artifact or version leaves nulls instead of losing the row (a bad token on a
// missing artifact is still a 401). Every join is on a unique key: one row per element. The
// version is joined on the element's artifact id, not `a.id`: on a large database (EXPLAIN with
// 200,000 artifacts, users and credentials) PostgreSQL 15 joined `a.id` on the key's first column
// only and filtered the artifact's every version; on `q.artifact_id` it uses the whole key.
const callerJoins = `LEFT JOIN credentials c ON c.secret_hash = q.secret_hash
  LEFT JOIN users u ON u.id = c.user_id
  LEFT JOIN artifacts a ON a.id = q.artifact_id AND a.deleted_at IS NULL
  LEFT JOIN memberships m ON m.workspace_id = a.workspace_id AND m.user_id = u.id
  LEFT JOIN versions v ON v.artifact_id = q.artifact_id AND v.number = q.version`
export const callerReadStatement = `SELECT q.i::int AS i, json_build_array(${fields.join(', ')}) AS r
  FROM unnest($1::text[], $2::text[], $3::int[]) WITH ORDINALITY AS q(secret_hash, artifact_id, version, i)
  ${callerJoins}`
// A request alone in its turn (one connection at a time, a quiet process) asks the same without
// arrays: PostgreSQL estimates an array parameter at ten rows, so for one-element arrays it kept
// planning the statement anew on every call (455–655 µs against 123–135 µs, docs/decisions.md).
export const singleCallerReadStatement = `SELECT 1 AS i, json_build_array(${fields.join(', ')}) AS r
  FROM (SELECT $1::text AS secret_hash, $2::text AS artifact_id, $3::int AS version) AS q
  ${callerJoins}`

/** One request's question: who is calling, about which artifact, and which version (if not in memory). */
interface CallerRead {
  readonly secretHash: string | null
  readonly artifactId: string
  readonly version: number | null
}

/** The lookup every read and write of a version goes through, coalesced per event-loop turn. */
export type CallerReads = Lookup<CallerRead, unknown[]>

export function callerReads(raw: RawQuery): CallerReads {
  return coalesce(
    async (items) => {
      const [one] = items
      const rows =
        items.length === 1 && one
          ? await raw<{ i: number; r: unknown[] }>(singleCallerReadStatement, [one.secretHash, one.artifactId, one.version])
          : await raw<{ i: number; r: unknown[] }>(callerReadStatement, [
              items.map((x) => x.secretHash),
              items.map((x) => x.artifactId),
              items.map((x) => x.version),
            ])
      const results: (unknown[] | undefined)[] = new Array(items.length)
      for (const row of rows) results[row.i - 1] = row.r
      return results
    },
    { maxBatch: 100, isolate: isDataException },
  )
}

/** Reads fields of the returned array by name. */
interface Values {
  get(field: Field): unknown
}

function read(row: unknown[] | undefined): Values {
  return { get: (field) => (row === undefined ? undefined : row[position.get(field) ?? -1]) }
}

const date = (v: unknown): Date | null => (v === null || v === undefined ? null : new Date(v as string))

function accessOf(v: Values): ArtifactAccess | null {
  if (v.get('a.id') == null) return null
  return {
    id: v.get('a.id') as string,
    workspaceId: v.get('a.workspace_id') as string,
    type: v.get('a.type') as ArtifactType,
    publicView: v.get('a.public_view') === true,
    publicEdit: v.get('a.public_edit') === true,
    viewerEmails: (v.get('a.viewer_emails') as string[] | null) ?? [],
    latestVersion: Number(v.get('a.latest_version')),
  }
}

function versionOf(v: Values, artifactId: string): VersionRecord | null {
  if (v.get('v.number') == null) return null
  return {
    artifactId,
    number: Number(v.get('v.number')),
    sha256: v.get('v.content_sha256') as string,
    size: Number(v.get('v.size')),
    changelog: v.get('v.changelog') as string,
    restoredFrom: v.get('v.restored_from') == null ? null : Number(v.get('v.restored_from')),
    createdAt: date(v.get('v.created_at')) ?? new Date(0),
    createdBy: {
      kind: v.get('v.created_by_kind') as VersionRecord['createdBy']['kind'],
      id: v.get('v.created_by_id') as string,
      label: v.get('v.created_by_label') as string,
    },
  }
}

/**
 * Credential, access facts, role and (when asked) a version, in one statement (shared with the
 * other requests of this event-loop turn). A version this process has seen comes from memory: a
 * pinned one is looked up before the query, the head after it (the query returns the head's
 * number). Only a version never seen here costs a second, primary-key lookup.
 */
export async function loadVersionForCaller(
  db: Kysely<Database>,
  reads: CallerReads,
  cache: ImmutableCache,
  query: { credential: PresentedCredential | null; artifactId: string; version?: number | 'latest' },
): Promise<VersionContext> {
  const pinned = typeof query.version === 'number' ? cache.version(query.artifactId, query.version) : undefined
  const values = read(
    await reads({
      secretHash: query.credential?.secretHash ?? null,
      artifactId: query.artifactId,
      version: typeof query.version === 'number' && pinned === undefined ? query.version : null,
    }),
  )
  const artifact = accessOf(values)
  const base = {
    credential: query.credential === null ? null : credentialFrom((field) => values.get(field)),
    artifact,
    role: roleFrom(values.get('m.role')),
  }
  if (artifact === null || query.version === undefined) return { ...base, version: null }
  const number = query.version === 'latest' ? artifact.latestVersion : query.version
  if (number > artifact.latestVersion) return { ...base, version: null }
  const known = pinned ?? cache.version(artifact.id, number)
  if (known) return { ...base, version: known }
  const joined = versionOf(values, artifact.id)
  if (joined) cache.rememberVersion(joined)
  return { ...base, version: joined ?? (await versionsOf(db, cache, artifact.id, [number]))[0] ?? null }
}

/** The same, with the version's content (from memory when this SHA-256 was seen before). */
export async function loadContentForCaller(
  db: Kysely<Database>,
  reads: CallerReads,
  cache: ImmutableCache,
  query: { credential: PresentedCredential | null; artifactId: string; version: number | 'latest' },
): Promise<VersionContext<ContentRecord>> {
  const ctx = await loadVersionForCaller(db, reads, cache, query)
  if (ctx.version === null) return { ...ctx, version: null }
  const body = cache.content(ctx.version.sha256) ?? (await contentBody(db, cache, ctx.version.sha256))
  return { ...ctx, version: { ...ctx.version, body } }
}
