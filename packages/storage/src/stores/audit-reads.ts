import {
  type ActorRef,
  type AuditAction,
  type AuditEventDraft,
  type AuditStore,
  accountActions,
  type CredentialKind,
  type PageRequest,
  type Surface,
} from '@quire/core'
import { type Kysely, type Selectable, sql } from 'kysely'
import type { AuditEventsTable, Database } from '../schema.ts'
import { pastCursor } from './paging.ts'
import { retained, windowStart } from './retention.ts'

/** The actor as recorded; `onBehalfOf` only on events a claimed agent made (the key is absent otherwise). */
function actorFrom(row: Selectable<AuditEventsTable>): ActorRef {
  const actor: ActorRef = { kind: row.actor_kind as ActorRef['kind'], id: row.actor_id, label: row.actor_label }
  if (row.actor_for_id === null || row.actor_for_id === undefined) return actor
  return { ...actor, onBehalfOf: { id: row.actor_for_id, label: row.actor_for_label ?? '' } }
}

function eventFrom(row: Selectable<AuditEventsTable>): AuditEventDraft {
  return {
    id: row.id,
    at: row.at instanceof Date ? row.at : new Date(row.at),
    action: row.action as AuditAction,
    actor: actorFrom(row),
    via: {
      surface: row.via_surface as Surface,
      credential: row.via_credential as CredentialKind | null,
      credentialId: row.via_credential_id,
    },
    workspaceId: row.workspace_id,
    artifactId: row.artifact_id,
    data: typeof row.data === 'string' ? (JSON.parse(row.data) as Record<string, unknown>) : row.data,
  }
}

/** Events about a person's credentials and identity: filed in their personal workspace, read only by them. */
const accountOnly = sql.join(accountActions.map((action) => sql`${action}::text`))

const after = (page: PageRequest) => pastCursor('e.id', page.after)

/** Only events of one kind, when asked. */
const ofKind = (action: AuditAction | undefined) => (action === undefined ? sql<boolean>`true` : sql<boolean>`e.action = ${action}::text`)

/**
 * Reads of the audit trail. There is deliberately no update or delete here: events are written
 * only with the changes they record (audit.ts), and the database refuses to alter them (only the
 * retention pruner may delete). Every read leaves out events past their plan's retention, whether
 * or not the pruner has deleted them yet.
 */
export function auditStore(db: Kysely<Database>): AuditStore {
  return {
    async listForArtifact(artifactId, page, retention, action) {
      const { rows } = await sql<Selectable<AuditEventsTable>>`SELECT e.* FROM audit_events e
        WHERE e.artifact_id = ${artifactId}::text AND ${ofKind(action)} AND ${after(page)} AND ${retained(retention, 'e')}
        ORDER BY e.id DESC LIMIT ${page.limit + 1}::int`.execute(db)
      return rows.map(eventFrom)
    },
    async listForAccount(userId, page, retention, action) {
      // Two index scans (by actor, by workspace) merged: each side is already in id order.
      const { rows } = await sql<Selectable<AuditEventsTable>>`SELECT * FROM (
          (SELECT e.* FROM audit_events e WHERE e.actor_id = ${userId}::text AND ${ofKind(action)} AND ${after(page)}
            AND ${retained(retention, 'e')}
            ORDER BY e.id DESC LIMIT ${page.limit + 1}::int)
          UNION
          (SELECT e.* FROM audit_events e WHERE e.workspace_id = (SELECT personal_workspace_id FROM users WHERE id = ${userId}::text)
            AND ${ofKind(action)} AND ${after(page)} AND ${retained(retention, 'e')} ORDER BY e.id DESC LIMIT ${page.limit + 1}::int)
        ) AS e ORDER BY id DESC LIMIT ${page.limit + 1}::int`.execute(db)
      return rows.map(eventFrom)
    },
    async listForWorkspace(workspaceId, page, retention, action) {
      // One workspace, one plan: its window start is computed once, not per event. Account events
      // filed here (a personal workspace's owner's keys, tokens, sign-ins) are not the members' to read.
      const plan = sql`COALESCE((SELECT w.plan FROM workspaces w WHERE w.id = ${workspaceId}::text), 'free')`
      const { rows } = await sql<Selectable<AuditEventsTable>>`SELECT e.* FROM audit_events e
        WHERE e.workspace_id = ${workspaceId}::text AND e.action NOT IN (${accountOnly}) AND ${ofKind(action)} AND ${after(page)}
          AND e.at >= ${windowStart(retention, plan)}
        ORDER BY e.id DESC LIMIT ${page.limit + 1}::int`.execute(db)
      return rows.map(eventFrom)
    },
  }
}
