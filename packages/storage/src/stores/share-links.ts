import type {
  ActorRef,
  ArtifactAccess,
  ArtifactContext,
  CreateShareLinkCommand,
  GuardedOutcome,
  PageRequest,
  PresentedCredential,
  RevokeShareLinkCommand,
  ShareLinkRecord,
  ShareLinkStore,
} from '@quire/core'
import { type Kysely, sql } from 'kysely'
import { auditFrom } from '../audit.ts'
import { isUniqueViolation } from '../pg-errors.ts'
import { artifactFrom, type Row, roleFrom } from '../rows.ts'
import type { Database } from '../schema.ts'
import { artifactIsLive } from './artifact-writes.ts'
import { credentialFromColumns } from './credential-projection.ts'
import { artifactColumns, credentialColumns, credentialJoins } from './fragments.ts'
import { guardCondition } from './guard.ts'
import { pastCursor } from './paging.ts'
import { idempotencyFrom, withClauses } from './writes.ts'

const linkColumns = sql`l.id AS l_id, l.artifact_id AS l_artifact_id, l.role AS l_role, l.display_prefix AS l_display_prefix,
  l.expires_at AS l_expires_at, l.revoked_at AS l_revoked_at, l.created_at AS l_created_at,
  l.created_by_kind AS l_created_by_kind, l.created_by_id AS l_created_by_id, l.created_by_label AS l_created_by_label`

const date = (v: unknown): Date => (v instanceof Date ? v : new Date(v as string))

function linkFrom(row: Row): ShareLinkRecord | null {
  if (row.l_id === null || row.l_id === undefined) return null
  return {
    id: row.l_id as string,
    artifactId: row.l_artifact_id as string,
    role: row.l_role as 'viewer' | 'editor',
    displayPrefix: row.l_display_prefix as string,
    expiresAt: row.l_expires_at == null ? null : date(row.l_expires_at),
    revokedAt: row.l_revoked_at == null ? null : date(row.l_revoked_at),
    createdAt: date(row.l_created_at),
    createdBy:
      row.l_created_by_kind == null
        ? null
        : {
            kind: row.l_created_by_kind as ActorRef['kind'],
            id: row.l_created_by_id as string,
            label: row.l_created_by_label as string,
          },
  }
}

/**
 * One round trip: the caller's credential and user, the link, its live artifact (with owner and
 * project) and the caller's role in the artifact's workspace.
 */
async function loadForCaller(
  db: Kysely<Database>,
  query: { credential: PresentedCredential | null; shareLinkId: string },
): Promise<ArtifactContext<ArtifactAccess> & { link: ShareLinkRecord | null }> {
  const withCredential = query.credential !== null
  const { rows } = await sql<Row>`SELECT ${linkColumns}, ${artifactColumns}
      ${withCredential ? sql`, ${credentialColumns}, m.role AS m_role` : sql``}
    FROM (SELECT 1) AS one
    ${withCredential ? credentialJoins(query.credential?.secretHash ?? null) : sql``}
    LEFT JOIN (credentials l
      JOIN artifacts a ON a.id = l.artifact_id AND a.deleted_at IS NULL
      JOIN workspaces w ON w.id = a.workspace_id
      JOIN projects p ON p.id = a.project_id)
    ON l.id = ${query.shareLinkId}::text AND l.kind = 'share_link'
    ${withCredential ? sql`LEFT JOIN memberships m ON m.workspace_id = a.workspace_id AND m.user_id = u.id` : sql``}`.execute(db)
  const row = rows[0] ?? {}
  return { credential: credentialFromColumns(row), artifact: artifactFrom(row), role: roleFrom(row.m_role), link: linkFrom(row) }
}

/** The link (a credential row), its audit event and idempotency record: one statement, while the guard holds. */
async function create(db: Kysely<Database>, cmd: CreateShareLinkCommand): Promise<GuardedOutcome> {
  const l = cmd.link
  const art = sql`SELECT id FROM artifacts WHERE id = ${l.artifactId}::text AND deleted_at IS NULL AND ${guardCondition(cmd.guard)}`
  const link = sql`INSERT INTO credentials (id, kind, secret_hash, display_prefix, artifact_id, role, expires_at, created_at,
      created_by_kind, created_by_id, created_by_label)
    SELECT ${l.id}::text, 'share_link', ${cmd.secretHash}::text, ${l.displayPrefix}::text, art.id, ${l.role}::text,
      ${l.expiresAt}::timestamptz, ${l.createdAt}::timestamptz, ${l.createdBy?.kind ?? null}::text, ${l.createdBy?.id ?? null}::text,
      ${l.createdBy?.label ?? null}::text
    FROM art RETURNING id`
  try {
    const { rows } = await sql<{ n: number }>`${withClauses([
      ['art', art],
      ['link', link],
      ['audit', auditFrom('link', cmd.audit)],
      ['idem', idempotencyFrom('link', cmd.idempotency)],
    ])} SELECT count(*)::int AS n FROM link`.execute(db)
    if (rows[0]?.n === 1) return { ok: true }
  } catch (error) {
    if (isUniqueViolation(error, 'idempotency_keys_pkey')) return { ok: false, reason: 'idempotency_taken' }
    throw error
  }
  return (await artifactIsLive(db, l.artifactId)) ? { ok: false, reason: 'refused' } : { ok: false, reason: 'gone' }
}

async function listForArtifact(db: Kysely<Database>, artifactId: string, page: PageRequest): Promise<ShareLinkRecord[]> {
  const { rows } = await sql<Row>`SELECT ${linkColumns} FROM credentials l
    WHERE l.artifact_id = ${artifactId}::text AND l.kind = 'share_link' AND ${pastCursor('l.id', page.after)}
    ORDER BY l.id DESC LIMIT ${page.limit + 1}::int`.execute(db)
  return rows.flatMap((r) => {
    const link = linkFrom(r)
    return link ? [link] : []
  })
}

/** Sets `revoked_at` once; the event is written only by the call that revoked it. */
async function revoke(db: Kysely<Database>, cmd: RevokeShareLinkCommand): ReturnType<ShareLinkStore['revoke']> {
  const art = sql`SELECT id FROM artifacts WHERE id = ${cmd.artifactId}::text AND deleted_at IS NULL AND ${guardCondition(cmd.guard)}`
  const rev = sql`UPDATE credentials SET revoked_at = ${cmd.audit.at}::timestamptz
    WHERE id = ${cmd.linkId}::text AND kind = 'share_link' AND artifact_id = ${cmd.artifactId}::text AND revoked_at IS NULL
      AND EXISTS (SELECT 1 FROM art)
    RETURNING id`
  const { rows } = await sql<{ admitted: number; revoked: number }>`${withClauses([
    ['art', art],
    ['rev', rev],
    ['audit', auditFrom('rev', cmd.audit)],
  ])} SELECT (SELECT count(*)::int FROM art) AS admitted, (SELECT count(*)::int FROM rev) AS revoked`.execute(db)
  const outcome = rows[0]
  if (!outcome || outcome.admitted === 0) {
    return (await artifactIsLive(db, cmd.artifactId)) ? { ok: false, reason: 'refused' } : { ok: false, reason: 'gone' }
  }
  const link = await find(db, cmd.linkId)
  if (!link) return { ok: false, reason: 'gone' }
  return { ok: true, link, changed: outcome.revoked === 1 }
}

async function find(db: Kysely<Database>, shareLinkId: string): Promise<ShareLinkRecord | null> {
  const { rows } = await sql<Row>`SELECT ${linkColumns} FROM credentials l
    WHERE l.id = ${shareLinkId}::text AND l.kind = 'share_link'`.execute(db)
  return rows[0] ? linkFrom(rows[0]) : null
}

export function shareLinkStore(db: Kysely<Database>): ShareLinkStore {
  return {
    loadForCaller: (query) => loadForCaller(db, query),
    create: (cmd) => create(db, cmd),
    find: (shareLinkId) => find(db, shareLinkId),
    listForArtifact: (artifactId, page) => listForArtifact(db, artifactId, page),
    revoke: (cmd) => revoke(db, cmd),
  }
}
