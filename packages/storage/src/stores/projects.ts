import type { CreateProjectCommand, NamespaceContext, PageRequest, ProjectRecord, ProjectStore, WriteRefusal } from '@quire/core'
import { type Kysely, sql } from 'kysely'
import { auditFrom } from '../audit.ts'
import { isUniqueViolation } from '../pg-errors.ts'
import { projectFrom, type Row, roleFrom, workspaceFrom } from '../rows.ts'
import type { Database } from '../schema.ts'
import { credentialFromColumns } from './credential-projection.ts'
import { credentialColumns, credentialJoins, projectColumns, workspaceColumns } from './fragments.ts'
import { pastCursor } from './paging.ts'
import { idempotencyFrom, withClauses } from './writes.ts'

async function loadNamespaceForCaller(
  db: Kysely<Database>,
  query: Parameters<ProjectStore['loadNamespaceForCaller']>[0],
): Promise<NamespaceContext> {
  const projectJoin =
    query.projectSlug === undefined ? sql`` : sql`LEFT JOIN projects p ON p.workspace_id = w.id AND p.slug = ${query.projectSlug}::text`
  const projectSelect = query.projectSlug === undefined ? sql`` : sql`, ${projectColumns}`
  const { rows } = await sql<Row>`SELECT ${credentialColumns}, ${workspaceColumns}, m.role AS m_role ${projectSelect}
    FROM (SELECT 1) AS one
    ${credentialJoins(query.credential?.secretHash ?? null)}
    LEFT JOIN workspaces w ON w.slug = ${query.owner}::text
    LEFT JOIN memberships m ON m.workspace_id = w.id AND m.user_id = u.id
    ${projectJoin}`.execute(db)
  const row = rows[0] ?? {}
  return {
    credential: credentialFromColumns(row),
    workspace: workspaceFrom(row),
    role: roleFrom(row.m_role),
    project: projectFrom(row),
  }
}

async function createProject(db: Kysely<Database>, cmd: CreateProjectCommand): Promise<{ ok: true } | { ok: false; reason: WriteRefusal }> {
  const p = cmd.project
  const insert = sql`INSERT INTO projects (id, workspace_id, slug, title, description, icon, created_at, created_by_kind, created_by_id, created_by_label)
    VALUES (${p.id}, ${p.workspaceId}, ${p.slug}, ${p.title}, ${p.description}, ${p.icon}, ${p.createdAt}::timestamptz,
      ${p.createdBy.kind}, ${p.createdBy.id}, ${p.createdBy.label})
    RETURNING id`
  try {
    await sql`${withClauses([
      ['prj', insert],
      ['audit', auditFrom('prj', cmd.audit)],
      ['idem', idempotencyFrom('prj', cmd.idempotency)],
    ])} SELECT id FROM prj`.execute(db)
    return { ok: true }
  } catch (error) {
    if (isUniqueViolation(error, 'idempotency_keys_pkey')) return { ok: false, reason: 'idempotency_taken' }
    if (isUniqueViolation(error, 'projects_workspace_id_slug_key')) return { ok: false, reason: 'slug_taken' }
    throw error
  }
}

const projectsFrom = (rows: Row[]) =>
  rows.flatMap((r) => {
    const p = projectFrom(r)
    return p ? [p] : []
  })

async function listProjectsForUser(db: Kysely<Database>, userId: string, page: PageRequest): Promise<ProjectRecord[]> {
  const { rows } = await sql<Row>`SELECT ${projectColumns} FROM projects p
    JOIN memberships m ON m.workspace_id = p.workspace_id AND m.user_id = ${userId}::text
    JOIN workspaces w ON w.id = p.workspace_id
    WHERE ${pastCursor('p.id', page.after)}
    ORDER BY p.id DESC LIMIT ${page.limit + 1}::int`.execute(db)
  return projectsFrom(rows)
}

async function listProjectsForWorkspace(db: Kysely<Database>, workspaceId: string, page: PageRequest): Promise<ProjectRecord[]> {
  const { rows } = await sql<Row>`SELECT ${projectColumns} FROM projects p
    JOIN workspaces w ON w.id = p.workspace_id
    WHERE p.workspace_id = ${workspaceId}::text AND ${pastCursor('p.id', page.after)}
    ORDER BY p.id DESC LIMIT ${page.limit + 1}::int`.execute(db)
  return projectsFrom(rows)
}

export function projectStore(db: Kysely<Database>): ProjectStore {
  return {
    loadNamespaceForCaller: (query) => loadNamespaceForCaller(db, query),
    create: (cmd) => createProject(db, cmd),
    listForUser: (userId, page) => listProjectsForUser(db, userId, page),
    listForWorkspace: (workspaceId, page) => listProjectsForWorkspace(db, workspaceId, page),
    async slugTaken(workspaceId, slug) {
      const row = await db
        .selectFrom('projects')
        .select('id')
        .where('workspace_id', '=', workspaceId)
        .where('slug', '=', slug)
        .executeTakeFirst()
      return row !== undefined
    },
  }
}
