import type {
  AppendOutcome,
  AppendVersionCommand,
  CreateArtifactCommand,
  GuardedOutcome,
  SoftDeleteCommand,
  UpdateAccessCommand,
  VersionRecord,
  WriteRefusal,
} from '@quire/core'
import { type Kysely, sql } from 'kysely'
import { auditFrom } from '../audit.ts'
import { isUniqueViolation } from '../pg-errors.ts'
import type { Database } from '../schema.ts'
import { searchRowFrom } from '../search-index.ts'
import { guardCondition, workspaceGuardCondition } from './guard.ts'
import type { ImmutableCache } from './immutable-cache.ts'
import { idempotencyFrom, withClauses } from './writes.ts'

function contentFrom(source: string, sha256: string, body: string, size: number, at: Date) {
  return sql`INSERT INTO contents (sha256, body, size, created_at)
    SELECT ${sha256}::text, ${body}::text, ${size}::int, ${at}::timestamptz FROM ${sql.table(source)}
    ON CONFLICT (sha256) DO NOTHING`
}

function versionFrom(source: string, v: VersionRecord) {
  return sql`INSERT INTO versions (artifact_id, number, content_sha256, size, changelog, restored_from, created_at,
      created_by_kind, created_by_id, created_by_label)
    SELECT ${v.artifactId}::text, ${v.number}::int, ${v.sha256}::text, ${v.size}::int, ${v.changelog}::text, ${v.restoredFrom}::int,
      ${v.createdAt}::timestamptz, ${v.createdBy.kind}::text, ${v.createdBy.id}::text, ${v.createdBy.label}::text
    FROM ${sql.table(source)}`
}

/** What was just written never changes: later reads in this process need not fetch it. */
function remember(cache: ImmutableCache, version: VersionRecord, content: string | null): void {
  cache.rememberVersion(version)
  if (content !== null) cache.rememberContent(version.sha256, content)
}

function refusal(error: unknown): WriteRefusal | null {
  if (isUniqueViolation(error, 'idempotency_keys_pkey')) return 'idempotency_taken'
  if (isUniqueViolation(error, 'artifacts_live_slug')) return 'slug_taken'
  return null
}

/** Artifact, first version, content, search index row, audit event and idempotency record: one statement. */
export async function createArtifact(
  db: Kysely<Database>,
  cache: ImmutableCache,
  cmd: CreateArtifactCommand,
): Promise<{ ok: true } | { ok: false; reason: WriteRefusal | 'refused' }> {
  const a = cmd.artifact
  // Inserted only while the grant that admitted it holds (the role, the credential's liveness).
  const insertArtifact = sql`INSERT INTO artifacts (id, workspace_id, project_id, slug, type, title, description, public_view, public_edit,
      viewer_emails, latest_version, created_at, updated_at, created_by_kind, created_by_id, created_by_label)
    SELECT ${a.id}::text, ${a.workspaceId}::text, ${a.projectId}::text, ${a.slug}::text, ${a.type}::text, ${a.title}::text,
      ${a.description}::text, ${a.publicView}::boolean, ${a.publicEdit}::boolean, ${[...a.viewerEmails]}::text[], 1,
      ${a.createdAt}::timestamptz, ${a.updatedAt}::timestamptz, ${a.createdBy.kind}::text, ${a.createdBy.id}::text, ${a.createdBy.label}::text
    WHERE ${workspaceGuardCondition(cmd.guard, sql`${a.workspaceId}::text`)}
    RETURNING id, workspace_id, title, description`
  try {
    const { rows } = await sql<{ id: string }>`${withClauses([
      ['art', insertArtifact],
      ['ct', contentFrom('art', cmd.version.sha256, cmd.content, cmd.version.size, cmd.version.createdAt)],
      ['ver', versionFrom('art', cmd.version)],
      ['idx', searchRowFrom('art', cmd.version, cmd.content)],
      ['audit', auditFrom('art', cmd.audit)],
      ['idem', idempotencyFrom('art', cmd.idempotency)],
    ])} SELECT id FROM art`.execute(db)
    if (rows.length === 0) return { ok: false, reason: 'refused' }
    remember(cache, cmd.version, cmd.content)
    return { ok: true }
  } catch (error) {
    const reason = refusal(error)
    if (reason) return { ok: false, reason }
    throw error
  }
}

/**
 * Appends a version conditional on the head: the UPDATE matches only while `latest_version`
 * equals the expectation, so of any number of concurrent appends exactly one wins and version
 * numbers stay contiguous. The version, content, search index row, audit event and idempotency record are written
 * by the same statement, only when the head moved.
 */
export async function appendVersion(db: Kysely<Database>, cache: ImmutableCache, cmd: AppendVersionCommand): Promise<AppendOutcome> {
  const v = cmd.version
  const head = sql`UPDATE artifacts SET latest_version = latest_version + 1, updated_at = ${v.createdAt}::timestamptz
    WHERE id = ${cmd.artifactId}::text AND deleted_at IS NULL AND latest_version = ${cmd.expectedLatestVersion}::int
      AND ${guardCondition(cmd.guard)}
    RETURNING id, workspace_id, title, description`
  try {
    const { rows } = await sql<{ written: number }>`${withClauses([
      ['head', head],
      ['ct', cmd.content === null ? null : contentFrom('head', v.sha256, cmd.content, v.size, v.createdAt)],
      ['ver', versionFrom('head', v)],
      ['idx', searchRowFrom('head', v, cmd.content)],
      ['audit', auditFrom('head', cmd.audit)],
      ['idem', idempotencyFrom('head', cmd.idempotency)],
    ])} SELECT count(*)::int AS written FROM head`.execute(db)
    if (rows[0]?.written === 1) {
      remember(cache, v, cmd.content)
      return { ok: true }
    }
  } catch (error) {
    if (isUniqueViolation(error, 'idempotency_keys_pkey')) return { ok: false, reason: 'idempotency_taken' }
    throw error
  }
  // Nothing written: read the head with a fresh snapshot (the statement saw the row as it was
  // when it began) to tell a moved head from a failed guard.
  const current = await db
    .selectFrom('artifacts')
    .select('latest_version')
    .where('id', '=', cmd.artifactId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst()
  if (!current) return { ok: false, reason: 'gone' }
  if (current.latest_version !== cmd.expectedLatestVersion) return { ok: false, reason: 'conflict', latestVersion: current.latest_version }
  return { ok: false, reason: 'refused' }
}

/** Marks an artifact deleted and records it; false when it was already gone. */
export async function softDeleteArtifact(db: Kysely<Database>, cmd: SoftDeleteCommand): Promise<boolean> {
  const del = sql`UPDATE artifacts SET deleted_at = ${cmd.at}::timestamptz, updated_at = ${cmd.at}::timestamptz
    WHERE id = ${cmd.artifactId}::text AND deleted_at IS NULL RETURNING id`
  const { rows } = await sql<{ n: number }>`${withClauses([
    ['del', del],
    ['audit', auditFrom('del', cmd.audit)],
  ])} SELECT count(*)::int AS n FROM del`.execute(db)
  return rows[0]?.n === 1
}

/** New access settings and their audit event, one statement, only while the guard holds. */
export async function updateArtifactAccess(db: Kysely<Database>, cmd: UpdateAccessCommand): Promise<GuardedOutcome> {
  const s = cmd.settings
  const upd = sql`UPDATE artifacts SET public_view = ${s.publicView}, public_edit = ${s.publicEdit},
      viewer_emails = ${[...s.viewerEmails]}::text[], updated_at = ${cmd.audit.at}::timestamptz
    WHERE id = ${cmd.artifactId}::text AND deleted_at IS NULL AND ${guardCondition(cmd.guard)}
    RETURNING id`
  const { rows } = await sql<{ n: number }>`${withClauses([
    ['upd', upd],
    ['audit', auditFrom('upd', cmd.audit)],
  ])} SELECT count(*)::int AS n FROM upd`.execute(db)
  if (rows[0]?.n === 1) return { ok: true }
  return (await artifactIsLive(db, cmd.artifactId)) ? { ok: false, reason: 'refused' } : { ok: false, reason: 'gone' }
}

export async function artifactIsLive(db: Kysely<Database>, artifactId: string): Promise<boolean> {
  const row = await db.selectFrom('artifacts').select('id').where('id', '=', artifactId).where('deleted_at', 'is', null).executeTakeFirst()
  return row !== undefined
}
