import type {
  BehindWebhook,
  ChangeKind,
  ClaimedDelivery,
  DeliveryAttemptRecord,
  DeliveryRecord,
  DeliveryStatus,
  NewDelivery,
  OwnerView,
  PageRequest,
  WebhookRecord,
  WebhookStore,
} from '@quire/core'
import { type Kysely, type RawBuilder, sql } from 'kysely'
import { auditFrom } from '../audit.ts'
import { artifactFrom, date, maybeDate, type Row, roleFrom } from '../rows.ts'
import type { Database } from '../schema.ts'
import { artifactColumns } from './fragments.ts'
import { credentialIsLive } from './guard.ts'
import { pastCursor } from './paging.ts'
import { serverKeyStore } from './server-keys.ts'
import { withClauses } from './writes.ts'

/** Webhooks, their deliveries and the signing key (migration 0012). */

const webhookColumns = sql.raw(`h.id AS h_id, h.user_id AS h_user_id, h.artifact_id AS h_artifact_id, h.project_id AS h_project_id,
  h.url AS h_url, h.kinds AS h_kinds, h.description AS h_description, h.rotation AS h_rotation, h.status AS h_status,
  h.status_reason AS h_status_reason, h.cursor AS h_cursor, h.created_at AS h_created_at`)

function webhookFrom(row: Row): WebhookRecord {
  return {
    id: row.h_id as string,
    userId: row.h_user_id as string,
    artifactId: (row.h_artifact_id as string | null) ?? null,
    projectId: (row.h_project_id as string | null) ?? null,
    url: row.h_url as string,
    kinds: (row.h_kinds as ChangeKind[] | null) ?? [],
    description: (row.h_description as string | null) ?? '',
    rotation: Number(row.h_rotation),
    status: row.h_status === 'disabled' ? 'disabled' : 'active',
    statusReason: (row.h_status_reason as string | null) ?? null,
    cursor: Number(row.h_cursor),
    createdAt: date(row.h_created_at),
  }
}

const deliveryColumns = sql.raw(`d.id AS d_id, d.webhook_id AS d_webhook_id, d.position AS d_position, d.kind AS d_kind,
  d.payload AS d_payload, d.status AS d_status, d.due_at AS d_due_at, d.attempts AS d_attempts, d.created_at AS d_created_at,
  d.delivered_at AS d_delivered_at`)

function deliveryFrom(row: Row): DeliveryRecord {
  const payload = row.d_payload
  const attempts = row.d_attempts
  return {
    id: row.d_id as string,
    webhookId: row.d_webhook_id as string,
    position: row.d_position === null || row.d_position === undefined ? null : Number(row.d_position),
    kind: row.d_kind as string,
    payload: (typeof payload === 'string' ? JSON.parse(payload) : payload) as Record<string, unknown>,
    status: row.d_status as DeliveryStatus,
    dueAt: maybeDate(row.d_due_at),
    attempts: (typeof attempts === 'string' ? JSON.parse(attempts) : attempts) as DeliveryAttemptRecord[],
    createdAt: date(row.d_created_at),
    deliveredAt: maybeDate(row.d_delivered_at),
  }
}

function insertDeliveries(webhookId: string, deliveries: readonly NewDelivery[]): RawBuilder<unknown> | null {
  if (deliveries.length === 0) return null
  const values = deliveries.map(
    (d) =>
      sql`(${d.id}::text, ${webhookId}::text, ${d.position}::bigint, ${d.kind}::text, ${JSON.stringify(d.payload)}::jsonb, 'pending', ${d.dueAt}::timestamptz, ${d.dueAt}::timestamptz)`,
  )
  return sql`INSERT INTO webhook_deliveries (id, webhook_id, position, kind, payload, status, due_at, created_at)
    VALUES ${sql.join(values)} ON CONFLICT (webhook_id, position) DO NOTHING RETURNING id`
}

export function webhookStore(db: Kysely<Database>): WebhookStore {
  const serverKeys = serverKeyStore(db)
  return {
    async create({ webhook: w, ping, guard, audit }) {
      const made = sql`INSERT INTO webhooks (id, user_id, artifact_id, project_id, url, kinds, description, rotation, status, cursor, created_at)
        SELECT ${w.id}::text, ${w.userId}::text, ${w.artifactId}::text, ${w.projectId}::text, ${w.url}::text, ${[...w.kinds]}::text[],
          ${w.description}::text, 0, 'active', ${w.cursor}::bigint, ${w.createdAt}::timestamptz
        WHERE ${credentialIsLive(guard.credentialId, guard.at)}
        RETURNING id`
      const pinged = sql`INSERT INTO webhook_deliveries (id, webhook_id, position, kind, payload, status, due_at, created_at)
        SELECT ${ping.id}::text, id, NULL, ${ping.kind}::text, ${JSON.stringify(ping.payload)}::jsonb, 'pending', ${ping.dueAt}::timestamptz,
          ${ping.dueAt}::timestamptz FROM made RETURNING id`
      const { rows } = await sql<{ n: number }>`${withClauses([
        ['made', made],
        ['pinged', pinged],
        ['audit', auditFrom('made', audit)],
      ])} SELECT count(*)::int AS n FROM made`.execute(db)
      return { ok: rows[0]?.n === 1 }
    },

    async listForUser(userId: string, page: PageRequest) {
      const { rows } = await sql<Row>`SELECT ${webhookColumns} FROM webhooks h
        WHERE h.user_id = ${userId}::text AND h.deleted_at IS NULL AND ${pastCursor('h.id', page.after)}
        ORDER BY h.id DESC LIMIT ${page.limit + 1}::int`.execute(db)
      return rows.map(webhookFrom)
    },

    async find(userId, webhookId) {
      const { rows } = await sql<Row>`SELECT ${webhookColumns} FROM webhooks h
        WHERE h.id = ${webhookId}::text AND h.user_id = ${userId}::text AND h.deleted_at IS NULL`.execute(db)
      return rows[0] ? webhookFrom(rows[0]) : null
    },

    async remove({ userId, webhookId, audit }) {
      const gone = sql`UPDATE webhooks h SET deleted_at = ${audit.at}::timestamptz
        WHERE h.id = ${webhookId}::text AND h.user_id = ${userId}::text AND h.deleted_at IS NULL RETURNING ${webhookColumns}`
      const stopped = sql`UPDATE webhook_deliveries SET status = 'stopped', due_at = NULL
        WHERE webhook_id IN (SELECT h_id FROM gone) AND status = 'pending' RETURNING id`
      const { rows } = await sql<Row>`${withClauses([
        ['gone', gone],
        ['stopped', stopped],
        ['audit', auditFrom('gone', audit)],
      ])} SELECT * FROM gone`.execute(db)
      return rows[0] ? webhookFrom(rows[0]) : null
    },

    async rotate({ userId, webhookId, audit }) {
      const turned = sql`UPDATE webhooks h SET rotation = h.rotation + 1
        WHERE h.id = ${webhookId}::text AND h.user_id = ${userId}::text AND h.deleted_at IS NULL RETURNING ${webhookColumns}`
      const { rows } = await sql<Row>`${withClauses([
        ['turned', turned],
        ['audit', auditFrom('turned', audit)],
      ])} SELECT * FROM turned`.execute(db)
      return rows[0] ? webhookFrom(rows[0]) : null
    },

    async deliveries(webhookId, page) {
      const { rows } = await sql<Row>`SELECT ${deliveryColumns} FROM webhook_deliveries d
        WHERE d.webhook_id = ${webhookId}::text AND ${pastCursor('d.id', page.after)}
        ORDER BY d.id DESC LIMIT ${page.limit + 1}::int`.execute(db)
      return rows.map(deliveryFrom)
    },

    async redeliver(webhookId, deliveryId, at) {
      const { rows } = await sql<Row>`UPDATE webhook_deliveries d SET status = 'pending', due_at = ${at}::timestamptz
        WHERE d.id = ${deliveryId}::text AND d.webhook_id = ${webhookId}::text RETURNING ${deliveryColumns}`.execute(db)
      return rows[0] ? deliveryFrom(rows[0]) : null
    },

    async behind(head, limit) {
      const { rows } = await sql<Row>`SELECT ${webhookColumns}, u.id AS u_id, u.email AS u_email, u.email_verified AS u_email_verified,
          u.username AS u_username, m.role AS m_role
        FROM webhooks h JOIN users u ON u.id = h.user_id
        LEFT JOIN projects p ON p.id = h.project_id
        LEFT JOIN memberships m ON m.workspace_id = p.workspace_id AND m.user_id = h.user_id
        WHERE h.status = 'active' AND h.deleted_at IS NULL AND h.cursor < ${head}::bigint
        ORDER BY h.cursor LIMIT ${limit}::int`.execute(db)
      return rows.map(
        (row): BehindWebhook => ({
          webhook: webhookFrom(row),
          owner: {
            id: row.u_id as string,
            email: row.u_email as string,
            emailVerified: Boolean(row.u_email_verified),
            username: row.u_username as string,
          },
          projectRole: roleFrom(row.m_role),
        }),
      )
    },

    async ownerViews(userId, artifactIds) {
      const views = new Map<string, OwnerView>()
      if (artifactIds.length === 0) return views
      const { rows } = await sql<Row>`SELECT ${artifactColumns}, m.role AS m_role
        FROM artifacts a JOIN workspaces w ON w.id = a.workspace_id JOIN projects p ON p.id = a.project_id
        LEFT JOIN memberships m ON m.workspace_id = a.workspace_id AND m.user_id = ${userId}::text
        WHERE a.id = ANY(${[...artifactIds]}::text[])`.execute(db)
      for (const row of rows) {
        const artifact = artifactFrom(row)
        if (artifact) views.set(artifact.id, { artifact, role: roleFrom(row.m_role) })
      }
      return views
    },

    async fanOut(webhookId, from, to, deliveries) {
      // The deliveries only when this process moved the cursor (another one may have, meanwhile).
      await db.transaction().execute(async (trx) => {
        const { rows } = await sql`UPDATE webhooks SET cursor = ${to}::bigint
          WHERE id = ${webhookId}::text AND cursor = ${from}::bigint AND status = 'active' RETURNING id`.execute(trx)
        const inserted = insertDeliveries(webhookId, deliveries)
        if (rows.length === 1 && inserted !== null) await inserted.execute(trx)
      })
    },

    async disable(webhookId, reason, at, noteId) {
      const words = `The webhook was disabled: ${reason}. Nothing more is delivered.`
      const note = JSON.stringify([{ at: at.toISOString(), statusCode: null, durationMs: 0, error: words }])
      await sql`WITH off AS (UPDATE webhooks SET status = 'disabled', status_reason = ${reason}::text
          WHERE id = ${webhookId}::text AND status = 'active' RETURNING id),
        stopped AS (UPDATE webhook_deliveries SET status = 'stopped', due_at = NULL
          WHERE webhook_id IN (SELECT id FROM off) AND status = 'pending' RETURNING id)
        INSERT INTO webhook_deliveries (id, webhook_id, position, kind, payload, status, due_at, attempts, created_at)
        SELECT ${noteId}::text, id, NULL, 'webhook.disabled', ${JSON.stringify({ type: 'webhook.disabled', reason })}::jsonb, 'stopped',
          NULL, ${note}::jsonb, ${at}::timestamptz FROM off`.execute(db)
    },

    async claimDue(at, leaseUntil, limit) {
      const { rows } = await sql<Row>`WITH due AS (
          SELECT d.id FROM webhook_deliveries d
          WHERE d.status = 'pending' AND d.due_at <= ${at}::timestamptz
          ORDER BY d.due_at LIMIT ${limit}::int FOR UPDATE SKIP LOCKED)
        UPDATE webhook_deliveries d SET due_at = ${leaseUntil}::timestamptz FROM due, webhooks h
        WHERE d.id = due.id AND h.id = d.webhook_id
        RETURNING ${deliveryColumns}, h.url AS h_url, h.rotation AS h_rotation, h.status AS h_status`.execute(db)
      return rows.map(
        (row): ClaimedDelivery => ({ delivery: deliveryFrom(row), url: row.h_url as string, rotation: Number(row.h_rotation) }),
      )
    },

    async recordAttempt(deliveryId, attempt, next) {
      await sql`UPDATE webhook_deliveries SET attempts = attempts || ${JSON.stringify([attempt])}::jsonb, status = ${next.status}::text,
          due_at = ${next.dueAt}::timestamptz, delivered_at = coalesce(${next.deliveredAt}::timestamptz, delivered_at)
        WHERE id = ${deliveryId}::text`.execute(db)
    },

    signingKey: (make) => serverKeys.keyFor('webhook_signing', make),
  }
}
