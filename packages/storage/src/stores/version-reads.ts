import type { ArtifactAccess, ArtifactType, ContentRecord, PresentedCredential, VersionContext, VersionRecord } from '@quire/core'
import type { Kysely } from 'kysely'
import type { RawQuery } from '../database.ts'
import { roleFrom } from '../rows.ts'
import type { Database } from '../schema.ts'
import { credentialFields, credentialFrom } from './credential-projection.ts'
import type { ImmutableCache } from './immutable-cache.ts'
import { contentBody, versionsOf } from './immutable-reads.ts'

// The hot path of every version read and write. It is plain SQL per shape (nothing is built per
// call; with prepared statements PostgreSQL plans each shape once per connection) and returns
// ONE json column: describing and parsing one column instead of thirty is what keeps this query
// near the cost of a bare primary-key SELECT (see bench/api).
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

interface Shape {
  readonly text: string
  /** Where each field sits in the returned array. */
  readonly index: Readonly<Partial<Record<Field, number>>>
}

function shape(withCredential: boolean, withVersion: boolean): Shape {
  const fields: Field[] = [...accessFields, ...(withCredential ? callerFields : []), ...(withVersion ? versionFields : [])]
  const artifactParam = withCredential ? '$2' : '$1'
  const versionJoin = withVersion ? `LEFT JOIN versions v ON v.artifact_id = a.id AND v.number = ${withCredential ? '$3' : '$2'}::int` : ''
  const select = `SELECT json_build_array(${fields.join(', ')}) AS r`
  const index = Object.fromEntries(fields.map((field, i) => [field, i]))
  if (!withCredential)
    return { index, text: `${select} FROM artifacts a ${versionJoin} WHERE a.id = ${artifactParam}::text AND a.deleted_at IS NULL` }
  // Anchored on a constant row, so the credential comes back even when the artifact does not.
  return {
    index,
    text: `${select} FROM (SELECT 1) AS one
      LEFT JOIN credentials c ON c.secret_hash = $1::text
      LEFT JOIN users u ON u.id = c.user_id
      LEFT JOIN artifacts a ON a.id = ${artifactParam}::text AND a.deleted_at IS NULL
      LEFT JOIN memberships m ON m.workspace_id = a.workspace_id AND m.user_id = u.id
      ${versionJoin}`,
  }
}

const shapes = [shape(false, false), shape(false, true), shape(true, false), shape(true, true)] as const

/** Reads fields of the returned array by name. */
interface Values {
  get(field: Field): unknown
}

function read(shape: Shape, row: unknown[] | undefined): Values {
  return { get: (field) => (row === undefined ? undefined : row[shape.index[field] ?? -1]) }
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
 * Credential, access facts, role and (when asked) a version, in one statement. A version this
 * process has seen comes from memory: a pinned one is looked up before the query, the head
 * after it (the query returns the head's number). Only a version never seen here costs a
 * second, primary-key lookup.
 */
export async function loadVersionForCaller(
  db: Kysely<Database>,
  raw: RawQuery,
  cache: ImmutableCache,
  query: { credential: PresentedCredential | null; artifactId: string; version?: number | 'latest' },
): Promise<VersionContext> {
  const pinned = typeof query.version === 'number' ? cache.version(query.artifactId, query.version) : undefined
  const withVersion = typeof query.version === 'number' && pinned === undefined
  const withCredential = query.credential !== null
  const chosen = shapes[(withCredential ? 2 : 0) + (withVersion ? 1 : 0)] as Shape
  const parameters: unknown[] = withCredential ? [query.credential?.secretHash, query.artifactId] : [query.artifactId]
  if (withVersion) parameters.push(query.version)
  const rows = await raw<{ r: unknown[] }>(chosen.text, parameters)
  const values = read(chosen, rows[0]?.r)
  const artifact = accessOf(values)
  const base = {
    credential: withCredential ? credentialFrom((field) => values.get(field)) : null,
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
  raw: RawQuery,
  cache: ImmutableCache,
  query: { credential: PresentedCredential | null; artifactId: string; version: number | 'latest' },
): Promise<VersionContext<ContentRecord>> {
  const ctx = await loadVersionForCaller(db, raw, cache, query)
  if (ctx.version === null) return { ...ctx, version: null }
  const body = cache.content(ctx.version.sha256) ?? (await contentBody(db, cache, ctx.version.sha256))
  return { ...ctx, version: { ...ctx.version, body } }
}
