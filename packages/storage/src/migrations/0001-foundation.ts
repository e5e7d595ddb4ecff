import { type Kysely, sql } from 'kysely'

/**
 * Users, workspaces, projects, artifacts with immutable versions over content stored once per
 * SHA-256, bearer credentials by hash, the audit log and idempotency records.
 */
const statements = [
  `CREATE TABLE workspaces (
    id text PRIMARY KEY,
    slug text NOT NULL UNIQUE,
    kind text NOT NULL CHECK (kind IN ('personal', 'team')),
    name text NOT NULL,
    plan text NOT NULL DEFAULT 'free' CHECK (plan IN ('free', 'pro', 'team')),
    created_at timestamptz NOT NULL
  )`,
  `CREATE TABLE users (
    id text PRIMARY KEY,
    email text NOT NULL UNIQUE CHECK (email = lower(email)),
    email_verified boolean NOT NULL DEFAULT false,
    personal_workspace_id text REFERENCES workspaces (id),
    created_at timestamptz NOT NULL
  )`,
  `CREATE TABLE memberships (
    workspace_id text NOT NULL REFERENCES workspaces (id),
    user_id text NOT NULL REFERENCES users (id),
    role text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
    created_at timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, user_id)
  )`,
  `CREATE INDEX memberships_by_user ON memberships (user_id)`,
  `CREATE TABLE projects (
    id text PRIMARY KEY,
    workspace_id text NOT NULL REFERENCES workspaces (id),
    slug text NOT NULL,
    title text NOT NULL,
    description text NOT NULL DEFAULT '',
    icon text NOT NULL,
    created_at timestamptz NOT NULL,
    created_by_kind text NOT NULL,
    created_by_id text NOT NULL,
    created_by_label text NOT NULL,
    UNIQUE (workspace_id, slug)
  )`,
  `CREATE TABLE contents (
    sha256 text PRIMARY KEY,
    body text NOT NULL,
    size integer NOT NULL,
    created_at timestamptz NOT NULL
  )`,
  `CREATE TABLE artifacts (
    id text PRIMARY KEY,
    workspace_id text NOT NULL REFERENCES workspaces (id),
    project_id text NOT NULL REFERENCES projects (id),
    slug text NOT NULL,
    type text NOT NULL,
    title text NOT NULL,
    description text NOT NULL DEFAULT '',
    public_view boolean NOT NULL DEFAULT false,
    public_edit boolean NOT NULL DEFAULT false,
    viewer_emails text[] NOT NULL DEFAULT '{}',
    latest_version integer NOT NULL CHECK (latest_version >= 1),
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    deleted_at timestamptz,
    created_by_kind text NOT NULL,
    created_by_id text NOT NULL,
    created_by_label text NOT NULL
  )`,
  `CREATE UNIQUE INDEX artifacts_live_slug ON artifacts (project_id, slug) WHERE deleted_at IS NULL`,
  `CREATE INDEX artifacts_by_workspace ON artifacts (workspace_id, id DESC) WHERE deleted_at IS NULL`,
  `CREATE TABLE versions (
    artifact_id text NOT NULL REFERENCES artifacts (id),
    number integer NOT NULL CHECK (number >= 1),
    content_sha256 text NOT NULL REFERENCES contents (sha256),
    size integer NOT NULL,
    changelog text NOT NULL DEFAULT '',
    restored_from integer,
    created_at timestamptz NOT NULL,
    created_by_kind text NOT NULL,
    created_by_id text NOT NULL,
    created_by_label text NOT NULL,
    PRIMARY KEY (artifact_id, number)
  )`,
  `CREATE TABLE credentials (
    id text PRIMARY KEY,
    kind text NOT NULL CHECK (kind IN ('session', 'api_key', 'oauth', 'agent', 'share_link')),
    secret_hash text NOT NULL UNIQUE,
    display_prefix text NOT NULL,
    name text NOT NULL DEFAULT '',
    user_id text REFERENCES users (id),
    agent_id text,
    artifact_id text REFERENCES artifacts (id),
    role text CHECK (role IN ('viewer', 'editor')),
    scopes text[] NOT NULL DEFAULT '{}',
    audience text,
    expires_at timestamptz,
    revoked_at timestamptz,
    last_used_at timestamptz,
    created_at timestamptz NOT NULL
  )`,
  `CREATE INDEX credentials_by_user ON credentials (user_id, kind, id DESC)`,
  `CREATE INDEX credentials_by_artifact ON credentials (artifact_id, id DESC) WHERE artifact_id IS NOT NULL`,
  `CREATE TABLE audit_events (
    id text PRIMARY KEY,
    at timestamptz NOT NULL,
    action text NOT NULL,
    actor_kind text NOT NULL,
    actor_id text NOT NULL,
    actor_label text NOT NULL,
    via_surface text NOT NULL,
    via_credential text,
    via_credential_id text,
    workspace_id text,
    artifact_id text,
    data jsonb NOT NULL DEFAULT '{}'
  )`,
  `CREATE INDEX audit_by_artifact ON audit_events (artifact_id, id DESC) WHERE artifact_id IS NOT NULL`,
  `CREATE INDEX audit_by_workspace ON audit_events (workspace_id, id DESC)`,
  `CREATE INDEX audit_by_time ON audit_events (at)`,
  `CREATE TABLE idempotency_keys (
    scope text NOT NULL,
    key text NOT NULL,
    request_hash text NOT NULL,
    status integer NOT NULL,
    response jsonb NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (scope, key)
  )`,
]

export async function up(db: Kysely<unknown>): Promise<void> {
  // One statement per query: PGlite runs parameterised (extended-protocol) queries only.
  for (const statement of statements) await sql.raw(statement).execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP TABLE idempotency_keys, audit_events, credentials, versions, artifacts, contents, projects, memberships, users, workspaces
  `.execute(db)
}
