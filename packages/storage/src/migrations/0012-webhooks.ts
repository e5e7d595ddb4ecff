import { type Kysely, sql } from 'kysely'

/**
 * Webhooks (issue 33, point 3): a person's subscription to an artifact's or a project's changes,
 * delivered to a URL, signed as Standard Webhooks says.
 *
 * - `webhooks`: the subscription. Its secret is never stored: it is derived from a server key
 *   (`server_keys`, or WEBHOOK_SIGNING_KEY), the webhook's id and `rotation`. `cursor` is the last
 *   change (`change_events.position`) turned into deliveries.
 * - `webhook_deliveries`: one message (a change, or the ping sent on creation) to one webhook,
 *   with its state and when it is next due; `attempts` is its log (time, status, duration, error).
 * - `server_keys`: keys the server makes once and keeps (the webhook signing key when none is set).
 */
const statements = [
  `CREATE TABLE server_keys (
    name text COLLATE "C" PRIMARY KEY,
    secret text COLLATE "C" NOT NULL,
    created_at timestamptz NOT NULL
  )`,
  `CREATE TABLE webhooks (
    id text COLLATE "C" PRIMARY KEY,
    user_id text COLLATE "C" NOT NULL REFERENCES users (id),
    artifact_id text COLLATE "C",
    project_id text COLLATE "C",
    url text COLLATE "C" NOT NULL,
    kinds text[] COLLATE "C" NOT NULL,
    description text COLLATE "C" NOT NULL DEFAULT '',
    rotation integer NOT NULL DEFAULT 0,
    status text COLLATE "C" NOT NULL DEFAULT 'active',
    status_reason text COLLATE "C",
    cursor bigint NOT NULL,
    created_at timestamptz NOT NULL,
    deleted_at timestamptz,
    CHECK ((artifact_id IS NULL) <> (project_id IS NULL))
  )`,
  `CREATE INDEX webhooks_by_user ON webhooks (user_id, id DESC) WHERE deleted_at IS NULL`,
  `CREATE INDEX webhooks_active ON webhooks (cursor) WHERE status = 'active' AND deleted_at IS NULL`,
  `CREATE TABLE webhook_deliveries (
    id text COLLATE "C" PRIMARY KEY,
    webhook_id text COLLATE "C" NOT NULL REFERENCES webhooks (id),
    position bigint,
    kind text COLLATE "C" NOT NULL,
    payload jsonb NOT NULL,
    status text COLLATE "C" NOT NULL,
    due_at timestamptz,
    attempts jsonb NOT NULL DEFAULT '[]',
    created_at timestamptz NOT NULL,
    delivered_at timestamptz,
    UNIQUE (webhook_id, position)
  )`,
  `CREATE INDEX webhook_deliveries_due ON webhook_deliveries (due_at) WHERE status = 'pending'`,
  `CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, id DESC)`,
]

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const statement of ['DROP TABLE webhook_deliveries', 'DROP TABLE webhooks', 'DROP TABLE server_keys'])
    await sql.raw(statement).execute(db)
}
