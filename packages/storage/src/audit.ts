import type { AuditEventDraft } from '@quire/core'
import { type Kysely, type RawBuilder, sql, type Transaction } from 'kysely'
import type { Database } from './schema.ts'

/**
 * The one place that writes audit events. Every change calls one of these inside the
 * statement or transaction that makes the change, so the change and its event commit together.
 */
function values(event: AuditEventDraft) {
  return {
    id: event.id,
    at: event.at,
    action: event.action,
    actor_kind: event.actor.kind,
    actor_id: event.actor.id,
    actor_label: event.actor.label,
    actor_for_id: event.actor.onBehalfOf?.id ?? null,
    actor_for_label: event.actor.onBehalfOf?.label ?? null,
    via_surface: event.via.surface,
    via_credential: event.via.credential,
    via_credential_id: event.via.credentialId,
    workspace_id: event.workspaceId,
    artifact_id: event.artifactId,
    data: JSON.stringify(event.data),
  }
}

/** Inserts an event within a transaction. */
export async function insertAudit(trx: Kysely<Database> | Transaction<Database>, event: AuditEventDraft): Promise<void> {
  await trx.insertInto('audit_events').values(values(event)).execute()
}

/**
 * An `INSERT … SELECT … FROM <cte>` fragment for single-statement writes: the event is written
 * exactly when the common table expression `source` produced a row (the change happened).
 */
export function auditFrom(source: string, event: AuditEventDraft): RawBuilder<unknown> {
  const v = values(event)
  return sql`INSERT INTO audit_events (id, at, action, actor_kind, actor_id, actor_label, actor_for_id, actor_for_label, via_surface,
      via_credential, via_credential_id, workspace_id, artifact_id, data)
    SELECT ${v.id}, ${v.at}::timestamptz, ${v.action}, ${v.actor_kind}, ${v.actor_id}, ${v.actor_label}, ${v.actor_for_id}::text,
      ${v.actor_for_label}::text, ${v.via_surface}, ${v.via_credential}::text, ${v.via_credential_id}::text, ${v.workspace_id}::text,
      ${v.artifact_id}::text, ${v.data}::jsonb
    FROM ${sql.table(source)}`
}
