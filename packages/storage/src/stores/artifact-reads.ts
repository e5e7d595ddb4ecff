import type {
  ArtifactContext,
  ArtifactListScope,
  ArtifactTarget,
  ContentRecord,
  PageRequest,
  PresentedCredential,
  VersionRecord,
} from '@quire/core'
import { type Kysely, sql } from 'kysely'
import { artifactFrom, type Row, roleFrom, versionFrom } from '../rows.ts'
import type { Database } from '../schema.ts'
import { credentialFromColumns } from './credential-projection.ts'
import { artifactColumns, credentialColumns, credentialJoins, versionColumns } from './fragments.ts'
import type { ImmutableCache } from './immutable-cache.ts'
import { contentBody, versionsOf } from './immutable-reads.ts'

function targetJoin(target: ArtifactTarget) {
  if ('id' in target) {
    return sql`LEFT JOIN artifacts a ON a.id = ${target.id}::text AND a.deleted_at IS NULL
      LEFT JOIN workspaces w ON w.id = a.workspace_id
      LEFT JOIN projects p ON p.id = a.project_id`
  }
  return sql`LEFT JOIN (workspaces w
      JOIN projects p ON p.workspace_id = w.id AND p.slug = ${target.projectSlug}::text
      JOIN artifacts a ON a.project_id = p.id AND a.slug = ${target.slug}::text AND a.deleted_at IS NULL)
    ON w.slug = ${target.owner}::text`
}

/**
 * The read behind metadata calls, in ONE round trip: the presented credential and its user,
 * the live artifact with its owner and project, and the caller's role in its workspace.
 */
export async function loadArtifactForCaller(
  db: Kysely<Database>,
  query: { credential: PresentedCredential | null; target: ArtifactTarget },
): Promise<ArtifactContext> {
  const withCredential = query.credential !== null
  const { rows } = await sql<Row>`SELECT ${artifactColumns}
      ${withCredential ? sql`, ${credentialColumns}, m.role AS m_role` : sql``}
    FROM (SELECT 1) AS one
    ${withCredential ? credentialJoins(query.credential?.secretHash ?? null) : sql``}
    ${targetJoin(query.target)}
    ${withCredential ? sql`LEFT JOIN memberships m ON m.workspace_id = a.workspace_id AND m.user_id = u.id` : sql``}`.execute(db)
  const row = rows[0] ?? {}
  return { credential: credentialFromColumns(row), artifact: artifactFrom(row), role: roleFrom(row.m_role) }
}

export async function listVersions(db: Kysely<Database>, artifactId: string, page: PageRequest): Promise<VersionRecord[]> {
  const after = page.after === null ? null : Number(page.after)
  const { rows } = await sql<Row>`SELECT ${versionColumns} FROM versions v
    WHERE v.artifact_id = ${artifactId}::text AND (${after}::int IS NULL OR v.number < ${after}::int)
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

export async function listArtifactsForUser(db: Kysely<Database>, userId: string, page: PageRequest) {
  const { rows } = await sql<Row>`SELECT ${artifactColumns} FROM artifacts a
    JOIN memberships m ON m.workspace_id = a.workspace_id AND m.user_id = ${userId}::text
    JOIN workspaces w ON w.id = a.workspace_id
    JOIN projects p ON p.id = a.project_id
    WHERE a.deleted_at IS NULL AND (${page.after}::text IS NULL OR a.id < ${page.after}::text)
    ORDER BY a.id DESC LIMIT ${page.limit + 1}::int`.execute(db)
  return rows.flatMap((r) => {
    const a = artifactFrom(r)
    return a ? [a] : []
  })
}

/** Artifacts (not deleted) of one workspace's projects, newest first (index `artifacts_by_workspace`), narrowed by the scope. */
export async function listArtifactsForWorkspace(db: Kysely<Database>, scope: ArtifactListScope, page: PageRequest) {
  const { rows } = await sql<Row>`SELECT ${artifactColumns} FROM artifacts a
    JOIN workspaces w ON w.id = a.workspace_id
    JOIN projects p ON p.id = a.project_id
    WHERE a.workspace_id = ${scope.workspaceId}::text AND a.deleted_at IS NULL
      AND (${scope.projectId ?? null}::text IS NULL OR a.project_id = ${scope.projectId ?? null}::text)
      AND (NOT ${scope.publicOnly ?? false}::boolean OR a.public_view)
      AND (${page.after}::text IS NULL OR a.id < ${page.after}::text)
    ORDER BY a.id DESC LIMIT ${page.limit + 1}::int`.execute(db)
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
