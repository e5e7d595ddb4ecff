import { type Kysely, sql } from 'kysely'

/**
 * Agent registrations (the auth.md layer) and audit events on someone's behalf.
 *
 * - `agent_registrations`: one row per `agt_…`. Its secrets (claim token, user code, the live
 *   assertion's `jti`) are kept only as SHA-256 hex. A user code is unique among the codes still
 *   held (a partial unique index): a code ends (NULL) when it is confirmed or replaced, and a
 *   collision with one that merely expired is a redraw, not a wrong match.
 * - The checks hold the states together: claimed by and at are set together, a code and its
 *   expiry too, and a claim token is redeemed only once claimed.
 * - An agent's tokens are rows of `credentials` (kind `agent`, `agent_id` its registration), now
 *   a foreign key; confirming a claim and revoking an agent revoke them all, by that index.
 * - `audit_events.actor_for_*`: the person a claimed agent acted for (`ActorRef.onBehalfOf`),
 *   null on every other event.
 */
const statements = [
  `CREATE TABLE agent_registrations (
    id text COLLATE "C" PRIMARY KEY,
    type text COLLATE "C" NOT NULL CHECK (type IN ('service_auth', 'anonymous')),
    login_hint text COLLATE "C" CHECK (login_hint = lower(login_hint)),
    pre_claim_scopes text[] COLLATE "C" NOT NULL DEFAULT '{}',
    post_claim_scopes text[] COLLATE "C" NOT NULL,
    claim_token_hash text COLLATE "C" NOT NULL UNIQUE,
    claim_expires_at timestamptz NOT NULL,
    user_code_hash text COLLATE "C",
    user_code_expires_at timestamptz,
    assertion_id_hash text COLLATE "C",
    poll_interval_seconds integer NOT NULL CHECK (poll_interval_seconds > 0),
    last_polled_at timestamptz,
    claimed_by text COLLATE "C" REFERENCES users (id),
    claimed_at timestamptz,
    redeemed_at timestamptz,
    revoked_at timestamptz,
    created_at timestamptz NOT NULL,
    CHECK ((claimed_by IS NULL) = (claimed_at IS NULL)),
    CHECK ((user_code_hash IS NULL) = (user_code_expires_at IS NULL)),
    CHECK (redeemed_at IS NULL OR claimed_at IS NOT NULL)
  )`,
  `CREATE UNIQUE INDEX agent_registrations_user_code ON agent_registrations (user_code_hash) WHERE user_code_hash IS NOT NULL`,
  `CREATE INDEX agent_registrations_by_claimer ON agent_registrations (claimed_by, id DESC) WHERE claimed_by IS NOT NULL`,
  `ALTER TABLE credentials ADD CONSTRAINT credentials_agent_id_fkey FOREIGN KEY (agent_id) REFERENCES agent_registrations (id)`,
  `CREATE INDEX credentials_by_agent ON credentials (agent_id) WHERE agent_id IS NOT NULL`,
  `ALTER TABLE audit_events ADD COLUMN actor_for_id text COLLATE "C", ADD COLUMN actor_for_label text COLLATE "C"`,
]

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const statement of [
    'ALTER TABLE audit_events DROP COLUMN actor_for_id, DROP COLUMN actor_for_label',
    'DROP INDEX credentials_by_agent',
    'ALTER TABLE credentials DROP CONSTRAINT credentials_agent_id_fkey',
    'DROP TABLE agent_registrations',
  ])
    await sql.raw(statement).execute(db)
}
