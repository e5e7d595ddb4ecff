import type { ArtifactContext, ArtifactListScope, ArtifactStore, ContentRecord, PageRequest, VersionRecord } from '@quire/core'
import { type Kysely, sql } from 'kysely'
import { coalesce, type Lookup } from '../coalesce.ts'
import type { RawQuery } from '../database.ts'
import { isDataException } from '../pg-errors.ts'
import { artifactFrom, type Row, roleFrom, versionFrom } from '../rows.ts'
import type { Database } from '../schema.ts'
import { credentialFromColumns } from './credential-projection.ts'
import { artifactColumns, credentialColumns, credentialJoins, versionColumns } from './fragments.ts'
import type { ImmutableCache } from './immutable-cache.ts'
import { contentBody, versionsOf } from './immutable-reads.ts'
import { pastCursor } from './paging.ts'

/** The artifact by id: a live one, or (`includeDeleted`) a soft-deleted one too. */
function targetJoin(target: { readonly id: string }, includeDeleted: boolean) {
  const live = includeDeleted ? sql`` : sql`AND a.deleted_at IS NULL`
  return sql`LEFT JOIN artifacts a ON a.id = ${target.id}::text ${live}
      LEFT JOIN workspaces w ON w.id = a.workspace_id
      LEFT JOIN projects p ON p.id = a.project_id`
}

/** One by-path question: who is calling, about which artifact address. */
interface PathRead {
  readonly secretHash: string | null
  readonly owner: string
  readonly projectSlug: string
  readonly slug: string
}

/** The by-path reads of one event-loop turn, answered by one statement (as the version reads are). */
export type PathReads = Lookup<PathRead, Row>

/**
 * Artifact pages and `resolveArtifactPath` name an artifact by its address: every such read of an
 * event-loop turn shares ONE statement (see coalesce.ts), each element finding its artifact
 * through the unique keys (workspace slug, project slug, live artifact slug) in a LATERAL
 * subquery, so every lookup is an index probe; a missing credential or artifact leaves nulls.
 */
export function pathReads(db: Kysely<Database>, raw: RawQuery): PathReads {
  const statement = sql`SELECT q.i::int AS q_i, x.*, ${credentialColumns}, m.role AS m_role
    FROM unnest(${sql.raw('$1::text[], $2::text[], $3::text[], $4::text[]')}) WITH ORDINALITY AS q(secret_hash, owner, project_slug, slug, i)
    LEFT JOIN credentials c ON c.secret_hash = q.secret_hash
    LEFT JOIN users u ON u.id = c.user_id
    LEFT JOIN LATERAL (SELECT ${artifactColumns} FROM workspaces w
        JOIN projects p ON p.workspace_id = w.id AND p.slug = q.project_slug
        JOIN artifacts a ON a.project_id = p.id AND a.slug = q.slug AND a.deleted_at IS NULL
      WHERE w.slug = q.owner) x ON true
    LEFT JOIN memberships m ON m.workspace_id = x.a_workspace_id AND m.user_id = u.id`.compile(db).sql
  return coalesce(
    async (items) => {
      const rows = await raw<Row & { q_i: number }>(statement, [
        items.map((x) => x.secretHash),
        items.map((x) => x.owner),
        items.map((x) => x.projectSlug),
        items.map((x) => x.slug),
      ])
      const results: (Row | undefined)[] = new Array(items.length)
      for (const row of rows) results[row.q_i - 1] = row
      return results
    },
    { maxBatch: 100, isolate: isDataException },
  )
}

/**
 * The read behind metadata calls, in ONE round trip: the presented credential and its user,
 * the live artifact (or, by id with `includeDeleted`, a soft-deleted one) with its owner and
 * project, and the caller's role in its workspace.
 */
export async function loadArtifactForCaller(
  db: Kysely<Database>,
  paths: PathReads,
  query: Parameters<ArtifactStore['loadForCaller']>[0],
): Promise<ArtifactContext> {
  const { target } = query
  if (!('id' in target)) {
    const row =
      (await paths({
        secretHash: query.credential?.secretHash ?? null,
        owner: target.owner,
        projectSlug: target.projectSlug,
        slug: target.slug,
      })) ?? {}
    return { credential: credentialFromColumns(row), artifact: artifactFrom(row), role: roleFrom(row.m_role) }
  }
  const withCredential = query.credential !== null
  const { rows } = await sql<Row>`SELECT ${artifactColumns}
      ${withCredential ? sql`, ${credentialColumns}, m.role AS m_role` : sql``}
    FROM (SELECT 1) AS one
    ${withCredential ? credentialJoins(query.credential?.secretHash ?? null) : sql``}
    ${targetJoin(target, query.includeDeleted === true)}
    ${withCredential ? sql`LEFT JOIN memberships m ON m.workspace_id = a.workspace_id AND m.user_id = u.id` : sql``}`.execute(db)
  const row = rows[0] ?? {}
  return { credential: credentialFromColumns(row), artifact: artifactFrom(row), role: roleFrom(row.m_role) }
}

export async function listVersions(db: Kysely<Database>, artifactId: string, page: PageRequest): Promise<VersionRecord[]> {
  const after = page.after === null ? null : Number(page.after)
  const { rows } = await sql<Row>`SELECT ${versionColumns} FROM versions v
    WHERE v.artifact_id = ${artifactId}::text AND ${pastCursor('v.number', after)}
    ORDER BY v.number DESC LIMIT ${page.limit + 1}::int`.execute(db)
  return rows.map((r) => versionFrom(r)).filter((v): v is VersionRecord => v !== null)
}

/** Versions with their content; what was seen before comes from memory. */
export async function versionContents(
  db: Kysely<Database>,
  cache: ImmutableCache,
  artifactId: string,
  numbers: readonly number[],
): Promise<ContentRecord[]> {
  const versions = await versionsOf(db, cache, artifactId, numbers)
  return Promise.all(versions.map(async (v) => ({ ...v, body: await contentBody(db, cache, v.sha256) })))
}

/**
 * The artifacts (not deleted) of every workspace the user belongs to, newest first. Per member
 * workspace, the newest `limit + 1` past the cursor come from the index `artifacts_by_workspace`
 * (LATERAL), and only those are merged: the cost follows the caller's workspaces and the page, not
 * the table. (Scanning the primary key backward and filtering on membership read every newer
 * artifact of other owners: 97 ms at 100,000 artifacts in bench/scale, see docs/decisions.md.)
 */
export async function listArtifactsForUser(db: Kysely<Database>, userId: string, page: PageRequest) {
  // The workspace is bounded as a range, not by equality, and the order names it: with equality the
  // workspace is a constant inside the subquery, and a generic plan may walk the primary key
  // backward filtering on it (every newer artifact of other owners read, measured in bench/scale);
  // ordered by (workspace_id, id DESC) only the workspace index gives the order without a sort.
  // The inner limit is written as a literal (a page holds 1 to 100, so at most 100 statement
  // texts): as a parameter the generic plan guesses a tenth of the workspace's rows, costs more
  // than a custom plan on a large table, and PostgreSQL then plans every call anew (0.4 ms at 1M).
  const { rows } = await sql<Row>`SELECT ${artifactColumns} FROM memberships m
    CROSS JOIN LATERAL (SELECT * FROM artifacts a
      WHERE a.workspace_id >= m.workspace_id AND a.workspace_id <= m.workspace_id AND a.deleted_at IS NULL
        AND ${pastCursor('a.id', page.after)}
      ORDER BY a.workspace_id, a.id DESC LIMIT ${sql.lit(page.limit + 1)}) a
    JOIN workspaces w ON w.id = a.workspace_id
    JOIN projects p ON p.id = a.project_id
    WHERE m.user_id = ${userId}::text
    ORDER BY a.id DESC LIMIT ${page.limit + 1}::int`.execute(db)
  return rows.flatMap((r) => {
    const a = artifactFrom(r)
    return a ? [a] : []
  })
}

/**
 * Artifacts (not deleted) of one workspace's projects, newest first, from the index
 * `artifacts_by_workspace`, narrowed by the scope; one project is a statement of its own (no
 * `$1 IS NULL OR …` in a generic plan, see `pastCursor`).
 */
export async function listArtifactsForWorkspace(db: Kysely<Database>, scope: ArtifactListScope, page: PageRequest) {
  const inProject = scope.projectId ? sql`AND a.project_id = ${scope.projectId}::text` : sql``
  // Bounded as a range, ordered as the index is and limited by a literal, for the reasons given in
  // listArtifactsForUser: with `workspace_id = $1` and `ORDER BY id DESC` the generic plan walked
  // the primary key backward past every newer artifact of other workspaces (bench/scale, first
  // page: 1.8 → 4.8 → 28 → 274 ms at 1k → 1M artifacts).
  const { rows } = await sql<Row>`SELECT ${artifactColumns} FROM artifacts a
    JOIN workspaces w ON w.id = a.workspace_id
    JOIN projects p ON p.id = a.project_id
    WHERE a.workspace_id >= ${scope.workspaceId}::text AND a.workspace_id <= ${scope.workspaceId}::text
      AND a.deleted_at IS NULL ${inProject}
      AND (NOT ${scope.publicOnly ?? false}::boolean OR a.public_view OR ${scope.viewerEmail ?? null}::text = ANY (a.viewer_emails))
      AND ${pastCursor('a.id', page.after)}
    ORDER BY a.workspace_id, a.id DESC LIMIT ${sql.lit(page.limit + 1)}`.execute(db)
  return rows.flatMap((r) => {
    const a = artifactFrom(r)
    return a ? [a] : []
  })
}

export async function artifactSlugTaken(db: Kysely<Database>, projectId: string, slug: string): Promise<boolean> {
  const row = await db
    .selectFrom('artifacts')
    .select('id')
    .where('project_id', '=', projectId)
    .where('slug', '=', slug)
    .where('deleted_at', 'is', null)
    .executeTakeFirst()
  return row !== undefined
}
