import type {
  AcceptInvitationCommand,
  CreateInvitationCommand,
  CreateInvitationOutcome,
  InvitationRecord,
  InvitationStore,
  PageRequest,
  PresentedCredential,
  RevokeInvitationCommand,
  WorkspaceContext,
} from '@quire/core'
import { type Kysely, sql } from 'kysely'
import { auditFrom } from '../audit.ts'
import { isUniqueViolation } from '../pg-errors.ts'
import { actor, date, maybeDate, type Row, roleFrom, workspaceFrom } from '../rows.ts'
import type { Database } from '../schema.ts'
import { credentialFromColumns } from './credential-projection.ts'
import { credentialColumns, credentialJoins, workspaceColumns } from './fragments.ts'
import { credentialIsLive, workspaceGuardCondition } from './guard.ts'
import { pastCursor } from './paging.ts'
import { idempotencyFrom, withClauses } from './writes.ts'

/** An invitation `i` with its workspace `w` (for the slug). */
const invitationColumns = sql`i.id AS i_id, i.workspace_id AS i_workspace_id, w.slug AS i_workspace_slug, i.email AS i_email,
  i.role AS i_role, i.created_at AS i_created_at, i.created_by_kind AS i_created_by_kind, i.created_by_id AS i_created_by_id,
  i.created_by_label AS i_created_by_label, i.expires_at AS i_expires_at, i.accepted_at AS i_accepted_at,
  i.accepted_by AS i_accepted_by, i.revoked_at AS i_revoked_at`

function invitationFrom(row: Row): InvitationRecord | null {
  if (row.i_id === null || row.i_id === undefined) return null
  return {
    id: row.i_id as string,
    workspaceId: row.i_workspace_id as string,
    workspaceSlug: row.i_workspace_slug as string,
    email: row.i_email as string,
    role: row.i_role as InvitationRecord['role'],
    createdAt: date(row.i_created_at),
    createdBy: actor(row, 'i_'),
    expiresAt: date(row.i_expires_at),
    acceptedAt: maybeDate(row.i_accepted_at),
    acceptedBy: (row.i_accepted_by as string | null) ?? null,
    revokedAt: maybeDate(row.i_revoked_at),
  }
}

const invitationsFrom = (rows: Row[]) =>
  rows.flatMap((r) => {
    const invitation = invitationFrom(r)
    return invitation ? [invitation] : []
  })

async function findInvitation(db: Kysely<Database>, invitationId: string): Promise<InvitationRecord | null> {
  const { rows } = await sql<Row>`SELECT ${invitationColumns} FROM workspace_invitations i JOIN workspaces w ON w.id = i.workspace_id
    WHERE i.id = ${invitationId}::text`.execute(db)
  return invitationFrom(rows[0] ?? {})
}

/** One round trip: the caller's credential, the invitation, its workspace and the caller's role there. */
async function loadForCaller(
  db: Kysely<Database>,
  query: { credential: PresentedCredential | null; invitationId: string },
): Promise<WorkspaceContext & { invitation: InvitationRecord | null }> {
  const { rows } = await sql<Row>`SELECT ${credentialColumns}, ${invitationColumns}, ${workspaceColumns}, m.role AS m_role
    FROM (SELECT 1) AS one
    ${credentialJoins(query.credential?.secretHash ?? null)}
    LEFT JOIN (workspace_invitations i JOIN workspaces w ON w.id = i.workspace_id) ON i.id = ${query.invitationId}::text
    LEFT JOIN memberships m ON m.workspace_id = w.id AND m.user_id = u.id`.execute(db)
  const row = rows[0] ?? {}
  return {
    credential: credentialFromColumns(row),
    workspace: workspaceFrom(row),
    role: roleFrom(row.m_role),
    invitation: invitationFrom(row),
  }
}

/**
 * The invitation, its audit event and idempotency record: one statement, while the guard holds
 * and nobody with that email is a member yet. An expired invitation still holding the pending
 * slot (see migration 0004) is marked superseded by the new one first: the INSERT reads the
 * count of `lapsed`, so that UPDATE has run before the unique index is checked.
 */
async function create(db: Kysely<Database>, cmd: CreateInvitationCommand): Promise<CreateInvitationOutcome> {
  const inv = cmd.invitation
  const ws = sql`SELECT w.id FROM workspaces w WHERE w.id = ${inv.workspaceId}::text AND ${workspaceGuardCondition(cmd.guard, sql`w.id`)}`
  const member = sql`SELECT 1 AS member FROM memberships m JOIN users u ON u.id = m.user_id
    WHERE m.workspace_id = ${inv.workspaceId}::text AND u.email = ${inv.email}::text`
  const lapsed = sql`UPDATE workspace_invitations SET superseded_by = ${inv.id}::text
    WHERE workspace_id = (SELECT id FROM ws) AND email = ${inv.email}::text
      AND accepted_at IS NULL AND revoked_at IS NULL AND superseded_by IS NULL AND expires_at <= ${inv.createdAt}::timestamptz
      AND NOT EXISTS (SELECT 1 FROM member)
    RETURNING id`
  const created = sql`INSERT INTO workspace_invitations (id, workspace_id, email, role, created_at, created_by_kind, created_by_id,
      created_by_label, expires_at)
    SELECT ${inv.id}::text, ws.id, ${inv.email}::text, ${inv.role}::text, ${inv.createdAt}::timestamptz, ${inv.createdBy.kind}::text,
      ${inv.createdBy.id}::text, ${inv.createdBy.label}::text, ${inv.expiresAt}::timestamptz
    FROM ws CROSS JOIN (SELECT count(*) AS superseded FROM lapsed) AS lapsed_first
    WHERE NOT EXISTS (SELECT 1 FROM member)
    RETURNING id`
  try {
    const { rows } = await sql<{ present: number; admitted: number; members: number; created: number }>`${withClauses([
      ['ws', ws],
      ['member', member],
      ['lapsed', lapsed],
      ['created', created],
      ['audit', auditFrom('created', cmd.audit)],
      ['idem', idempotencyFrom('created', cmd.idempotency)],
    ])} SELECT (SELECT count(*)::int FROM workspaces WHERE id = ${inv.workspaceId}::text) AS present,
      (SELECT count(*)::int FROM ws) AS admitted, (SELECT count(*)::int FROM member) AS members,
      (SELECT count(*)::int FROM created) AS created`.execute(db)
    const outcome = rows[0]
    if (outcome?.created === 1) return { ok: true }
    if (outcome?.present === 0) return { ok: false, reason: 'gone' }
    if (outcome?.admitted === 0) return { ok: false, reason: 'refused' }
    return { ok: false, reason: 'already_member' }
  } catch (error) {
    if (isUniqueViolation(error, 'idempotency_keys_pkey')) return { ok: false, reason: 'idempotency_taken' }
    if (isUniqueViolation(error, 'workspace_invitations_pending')) return { ok: false, reason: 'invitation_pending' }
    throw error
  }
}

async function listForWorkspace(db: Kysely<Database>, workspaceId: string, page: PageRequest): Promise<InvitationRecord[]> {
  const { rows } = await sql<Row>`SELECT ${invitationColumns} FROM workspace_invitations i JOIN workspaces w ON w.id = i.workspace_id
    WHERE i.workspace_id = ${workspaceId}::text AND ${pastCursor('i.id', page.after)}
    ORDER BY i.id DESC LIMIT ${page.limit + 1}::int`.execute(db)
  return invitationsFrom(rows)
}

async function listPendingForEmail(db: Kysely<Database>, email: string, now: Date, page: PageRequest): Promise<InvitationRecord[]> {
  const { rows } = await sql<Row>`SELECT ${invitationColumns} FROM workspace_invitations i JOIN workspaces w ON w.id = i.workspace_id
    WHERE i.email = ${email}::text AND i.accepted_at IS NULL AND i.revoked_at IS NULL AND i.expires_at > ${now}::timestamptz
      AND ${pastCursor('i.id', page.after)}
    ORDER BY i.id DESC LIMIT ${page.limit + 1}::int`.execute(db)
  return invitationsFrom(rows)
}

/**
 * Sets `revoked_at` once, while the guard holds; the event is written only by the call that
 * revoked it. The revoked row comes back from the statement; any other outcome reads it.
 */
async function revoke(db: Kysely<Database>, cmd: RevokeInvitationCommand): ReturnType<InvitationStore['revoke']> {
  const ws = sql`SELECT w.id FROM workspaces w WHERE w.id = ${cmd.workspaceId}::text AND ${workspaceGuardCondition(cmd.guard, sql`w.id`)}`
  const rev = sql`UPDATE workspace_invitations SET revoked_at = ${cmd.guard.at}::timestamptz
    WHERE id = ${cmd.invitationId}::text AND workspace_id = ${cmd.workspaceId}::text AND accepted_at IS NULL AND revoked_at IS NULL
      AND EXISTS (SELECT 1 FROM ws)
    RETURNING *`
  const { rows } = await sql<Row>`${withClauses([
    ['ws', ws],
    ['rev', rev],
    ['audit', auditFrom('rev', cmd.audit)],
  ])} SELECT (SELECT count(*)::int FROM workspaces WHERE id = ${cmd.workspaceId}::text) AS present,
    (SELECT count(*)::int FROM ws) AS admitted, ${invitationColumns}
    FROM (SELECT 1) AS one LEFT JOIN (rev i JOIN workspaces w ON w.id = i.workspace_id) ON true`.execute(db)
  const outcome = rows[0] ?? {}
  const revoked = invitationFrom(outcome)
  if (revoked) return { ok: true, invitation: revoked, changed: true }
  if (outcome.present !== 1) return { ok: false, reason: 'gone' }
  if (outcome.admitted !== 1) return { ok: false, reason: 'refused' }
  const current = await findInvitation(db, cmd.invitationId)
  if (current === null || current.workspaceId !== cmd.workspaceId) return { ok: false, reason: 'gone' }
  if (current.acceptedAt !== null) return { ok: false, reason: 'already_member' }
  return current.revokedAt !== null ? { ok: true, invitation: current, changed: false } : { ok: false, reason: 'gone' }
}

/**
 * The acceptance, the membership and the audit event: one statement. The UPDATE takes the
 * invitation's row lock and re-checks that it is still pending, so a racing revoke or second
 * acceptance either happened before (nothing here) or waits. A failed acceptance reads why.
 */
async function accept(db: Kysely<Database>, cmd: AcceptInvitationCommand): ReturnType<InvitationStore['accept']> {
  const at = cmd.guard.at
  const acc = sql`UPDATE workspace_invitations i SET accepted_at = ${at}::timestamptz, accepted_by = ${cmd.userId}::text
    WHERE i.id = ${cmd.invitationId}::text AND i.accepted_at IS NULL AND i.revoked_at IS NULL AND i.superseded_by IS NULL
      AND i.expires_at > ${at}::timestamptz AND ${credentialIsLive(cmd.guard.credentialId, at)}
      AND NOT EXISTS (SELECT 1 FROM memberships m WHERE m.workspace_id = i.workspace_id AND m.user_id = ${cmd.userId}::text)
    RETURNING i.*`
  const joined = sql`INSERT INTO memberships (workspace_id, user_id, role, created_at)
    SELECT workspace_id, ${cmd.userId}::text, role, ${at}::timestamptz FROM acc RETURNING workspace_id`
  try {
    const { rows } = await sql<Row>`${withClauses([
      ['acc', acc],
      ['joined', joined],
      ['audit', auditFrom('joined', cmd.audit)],
    ])} SELECT ${invitationColumns} FROM acc i JOIN workspaces w ON w.id = i.workspace_id`.execute(db)
    const invitation = invitationFrom(rows[0] ?? {})
    if (invitation) return { ok: true, invitation }
  } catch (error) {
    // A membership that appeared after the statement began (its check saw none): nothing was written.
    if (isUniqueViolation(error, 'memberships_pkey')) return { ok: false, reason: 'already_member' }
    throw error
  }
  const { rows } = await sql<{ live: boolean; member: boolean }>`SELECT ${credentialIsLive(cmd.guard.credentialId, at)} AS live,
    EXISTS (SELECT 1 FROM workspace_invitations i JOIN memberships m ON m.workspace_id = i.workspace_id
      WHERE i.id = ${cmd.invitationId}::text AND m.user_id = ${cmd.userId}::text) AS member`.execute(db)
  if (rows[0]?.live !== true) return { ok: false, reason: 'refused' }
  return rows[0]?.member === true ? { ok: false, reason: 'already_member' } : { ok: false, reason: 'gone' }
}

export function invitationStore(db: Kysely<Database>): InvitationStore {
  return {
    loadForCaller: (query) => loadForCaller(db, query),
    create: (cmd) => create(db, cmd),
    listForWorkspace: (workspaceId, page) => listForWorkspace(db, workspaceId, page),
    listPendingForEmail: (email, now, page) => listPendingForEmail(db, email, now, page),
    revoke: (cmd) => revoke(db, cmd),
    accept: (cmd) => accept(db, cmd),
  }
}
