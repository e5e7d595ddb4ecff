import type { ArtifactContext, ArtifactTarget, ContentRecord, PageRequest, PresentedCredential, VersionRecord } from '@quire/core'
import { type Kysely, sql } from 'kysely'
import { artifactFrom, credentialFrom, type Row, roleFrom, versionFrom } from '../rows.ts'
import type { Database } from '../schema.ts'
import { artifactColumns, credentialColumns, credentialJoins, versionColumns } from './fragments.ts'

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
 * The read behind every artifact-scoped call, in ONE round trip: the presented credential and
 * its user, the live artifact, the caller's role in its workspace, and optionally one version
 * (the head by primary key, so head reads do not slow down with history) with its content.
 */
export async function loadArtifactForCaller(
  db: Kysely<Database>,
  query: { credential: PresentedCredential | null; target: ArtifactTarget; version?: number | 'latest'; withContent?: boolean },
): Promise<ArtifactContext> {
  const versionNumber = query.version === undefined || query.version === 'latest' ? null : query.version
  const versionJoin =
    query.version === undefined
      ? sql``
      : sql`LEFT JOIN versions v ON v.artifact_id = a.id AND v.number = COALESCE(${versionNumber}::int, a.latest_version)`
  const contentJoin = query.version !== undefined && query.withContent ? sql`LEFT JOIN contents ct ON ct.sha256 = v.content_sha256` : sql``
  const extraColumns =
    query.version === undefined ? sql`` : query.withContent ? sql`, ${versionColumns}, ct.body AS ct_body` : sql`, ${versionColumns}`
  const { rows } = await sql<Row>`SELECT ${credentialColumns}, ${artifactColumns}, m.role AS m_role ${extraColumns}
    FROM (SELECT 1) AS one
    ${credentialJoins(query.credential?.secretHash ?? null)}
    ${targetJoin(query.target)}
    LEFT JOIN memberships m ON m.workspace_id = a.workspace_id AND m.user_id = u.id
    ${versionJoin} ${contentJoin}`.execute(db)
  const row = rows[0] ?? {}
  const version = versionFrom(row)
  return {
    credential: credentialFrom(row),
    artifact: artifactFrom(row),
    role: roleFrom(row.m_role),
    version: version && query.withContent ? ({ ...version, body: row.ct_body as string } satisfies ContentRecord) : version,
  }
}

export async function listVersions(db: Kysely<Database>, artifactId: string, page: PageRequest): Promise<VersionRecord[]> {
  const after = page.after === null ? null : Number(page.after)
  const { rows } = await sql<Row>`SELECT ${versionColumns} FROM versions v
    WHERE v.artifact_id = ${artifactId}::text AND (${after}::int IS NULL OR v.number < ${after}::int)
    ORDER BY v.number DESC LIMIT ${page.limit + 1}::int`.execute(db)
  return rows.map((r) => versionFrom(r)).filter((v): v is VersionRecord => v !== null)
}

export async function versionContents(db: Kysely<Database>, artifactId: string, numbers: readonly number[]): Promise<ContentRecord[]> {
  if (numbers.length === 0) return []
  const { rows } = await sql<Row>`SELECT ${versionColumns}, ct.body AS ct_body FROM versions v
    JOIN contents ct ON ct.sha256 = v.content_sha256
    WHERE v.artifact_id = ${artifactId}::text AND v.number = ANY(${[...numbers]}::int[])`.execute(db)
  return rows.flatMap((r) => {
    const v = versionFrom(r)
    return v ? [{ ...v, body: r.ct_body as string }] : []
  })
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
