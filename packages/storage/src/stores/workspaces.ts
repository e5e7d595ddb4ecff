import type {
  CreateWorkspaceCommand,
  MembershipRecord,
  PageRequest,
  Plan,
  PresentedCredential,
  SetPlanCommand,
  WorkspaceContext,
  WorkspacePlanRecord,
  WorkspaceStore,
  WorkspaceSummary,
} from '@quire/core'
import { type Kysely, sql } from 'kysely'
import { auditFrom, insertAudit } from '../audit.ts'
import { isUniqueViolation } from '../pg-errors.ts'
import { date, type Row, roleFrom, workspaceFrom } from '../rows.ts'
import type { Database } from '../schema.ts'
import { credentialFromColumns } from './credential-projection.ts'
import { credentialColumns, credentialJoins, workspaceColumns } from './fragments.ts'
import { credentialIsLive } from './guard.ts'
import { pastCursor } from './paging.ts'
import { idempotencyFrom, withClauses } from './writes.ts'

/** One round trip: the caller's credential and user, the workspace and the caller's role in it. */
async function loadForCaller(
  db: Kysely<Database>,
  query: { credential: PresentedCredential | null; workspaceId: string },
): Promise<WorkspaceContext> {
  const { rows } = await sql<Row>`SELECT ${credentialColumns}, ${workspaceColumns}, m.role AS m_role
    FROM (SELECT 1) AS one
    ${credentialJoins(query.credential?.secretHash ?? null)}
    LEFT JOIN workspaces w ON w.id = ${query.workspaceId}::text
    LEFT JOIN memberships m ON m.workspace_id = w.id AND m.user_id = u.id`.execute(db)
  const row = rows[0] ?? {}
  return { credential: credentialFromColumns(row), workspace: workspaceFrom(row), role: roleFrom(row.m_role) }
}

async function listForUser(db: Kysely<Database>, userId: string, page: PageRequest): Promise<WorkspaceSummary[]> {
  const { rows } = await sql<Row>`SELECT ${workspaceColumns}, w.plan AS w_plan, w.created_at AS w_created_at, m.role AS m_role
    FROM memberships m JOIN workspaces w ON w.id = m.workspace_id
    WHERE m.user_id = ${userId}::text AND ${pastCursor('w.id', page.after, 'asc')}
    ORDER BY w.id LIMIT ${page.limit + 1}::int`.execute(db)
  return rows.flatMap((row) => {
    const workspace = workspaceFrom(row)
    const role = roleFrom(row.m_role)
    if (workspace === null || role === null) return []
    return [{ ...workspace, plan: row.w_plan as Plan, createdAt: date(row.w_created_at), role }]
  })
}

/** The team workspace, its owner's membership, the audit event and idempotency record: one statement, while the credential is live. */
async function create(db: Kysely<Database>, cmd: CreateWorkspaceCommand): ReturnType<WorkspaceStore['create']> {
  const w = cmd.workspace
  const ws = sql`INSERT INTO workspaces (id, slug, kind, name, plan, created_at)
    SELECT ${w.id}::text, ${w.slug}::text, 'team', ${w.name}::text, 'free', ${w.createdAt}::timestamptz
    WHERE ${credentialIsLive(cmd.guard.credentialId, cmd.guard.at)}
    RETURNING id`
  const owner = sql`INSERT INTO memberships (workspace_id, user_id, role, created_at)
    SELECT id, ${cmd.ownerId}::text, 'owner', ${w.createdAt}::timestamptz FROM ws RETURNING workspace_id`
  try {
    const { rows } = await sql<{ n: number }>`${withClauses([
      ['ws', ws],
      ['owner', owner],
      ['audit', auditFrom('ws', cmd.audit)],
      ['idem', idempotencyFrom('ws', cmd.idempotency)],
    ])} SELECT count(*)::int AS n FROM owner`.execute(db)
    return rows[0]?.n === 1 ? { ok: true } : { ok: false, reason: 'refused' }
  } catch (error) {
    if (isUniqueViolation(error, 'idempotency_keys_pkey')) return { ok: false, reason: 'idempotency_taken' }
    if (isUniqueViolation(error, 'workspaces_slug_key')) return { ok: false, reason: 'slug_taken' }
    throw error
  }
}

async function listMembers(db: Kysely<Database>, workspaceId: string, page: PageRequest): Promise<MembershipRecord[]> {
  const { rows } = await sql<Row>`SELECT m.user_id, u.username, u.email, m.role, m.created_at
    FROM memberships m JOIN users u ON u.id = m.user_id
    WHERE m.workspace_id = ${workspaceId}::text AND ${pastCursor('m.user_id', page.after, 'asc')}
    ORDER BY m.user_id LIMIT ${page.limit + 1}::int`.execute(db)
  return rows.flatMap((row) => {
    const role = roleFrom(row.role)
    if (role === null) return []
    return [
      { userId: row.user_id as string, username: row.username as string, email: row.email as string, role, joinedAt: date(row.created_at) },
    ]
  })
}

/**
 * The operator's plan change: the workspace row is locked while its event is built from the plan
 * before, so a concurrent change cannot slip between the read and the write.
 */
async function setPlan(db: Kysely<Database>, cmd: SetPlanCommand): Promise<WorkspacePlanRecord | null> {
  return db.transaction().execute(async (trx) => {
    const before = await trx
      .selectFrom('workspaces')
      .select(['id', 'slug', 'kind', 'name', 'plan'])
      .where('slug', '=', cmd.slug)
      .forUpdate()
      .executeTakeFirst()
    if (!before) return null
    await trx.updateTable('workspaces').set({ plan: cmd.plan }).where('id', '=', before.id).execute()
    await insertAudit(trx, cmd.audit(before))
    return { ...before, plan: cmd.plan }
  })
}

export function workspaceStore(db: Kysely<Database>): WorkspaceStore {
  return {
    loadForCaller: (query) => loadForCaller(db, query),
    listForUser: (userId, page) => listForUser(db, userId, page),
    create: (cmd) => create(db, cmd),
    listMembers: (workspaceId, page) => listMembers(db, workspaceId, page),
    setPlan: (cmd) => setPlan(db, cmd),
  }
}
