import { type Kysely, sql } from 'kysely'

/**
 * Users, workspaces, projects, artifacts with immutable versions over content stored once per
 * SHA-256, bearer credentials by hash, the audit log and idempotency records.
 *
 * Artifacts leave room on their pages (fillfactor 70) so that moving the head is a HOT update
 * that touches no index. Every text column uses the "C" collation: identifiers, slugs and hashes are compared and
 * ordered byte-wise (which is also the order of our time-sortable ids), and B-tree lookups skip
 * locale-aware comparison, which is measurably slower on the hot read path.
 */
const statements = [
  `CREATE TABLE workspaces (
    id text COLLATE "C" PRIMARY KEY,
    slug text COLLATE "C" NOT NULL UNIQUE,
    kind text COLLATE "C" NOT NULL CHECK (kind IN ('personal', 'team')),
    name text COLLATE "C" NOT NULL,
    plan text COLLATE "C" NOT NULL DEFAULT 'free' CHECK (plan IN ('free', 'pro', 'team')),
    created_at timestamptz NOT NULL,
    UNIQUE (id, slug)
  )`,
  `CREATE TABLE users (
    id text COLLATE "C" PRIMARY KEY,
    email text COLLATE "C" NOT NULL UNIQUE CHECK (email = lower(email)),
    email_verified boolean NOT NULL DEFAULT false,
    personal_workspace_id text COLLATE "C" NOT NULL,
    username text COLLATE "C" NOT NULL UNIQUE,
    created_at timestamptz NOT NULL,
    -- The username IS the personal workspace's slug: renaming the workspace renames the user.
    FOREIGN KEY (personal_workspace_id, username) REFERENCES workspaces (id, slug) ON UPDATE CASCADE
  )`,
  `CREATE TABLE memberships (
    workspace_id text COLLATE "C" NOT NULL REFERENCES workspaces (id),
    user_id text COLLATE "C" NOT NULL REFERENCES users (id),
    role text COLLATE "C" NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
    created_at timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, user_id)
  )`,
  `CREATE INDEX memberships_by_user ON memberships (user_id)`,
  `CREATE TABLE projects (
    id text COLLATE "C" PRIMARY KEY,
    workspace_id text COLLATE "C" NOT NULL REFERENCES workspaces (id),
    slug text COLLATE "C" NOT NULL,
    title text COLLATE "C" NOT NULL,
    description text COLLATE "C" NOT NULL DEFAULT '',
    icon text COLLATE "C" NOT NULL,
    created_at timestamptz NOT NULL,
    created_by_kind text COLLATE "C" NOT NULL,
    created_by_id text COLLATE "C" NOT NULL,
    created_by_label text COLLATE "C" NOT NULL,
    UNIQUE (workspace_id, slug)
  )`,
  `CREATE TABLE contents (
    sha256 text COLLATE "C" PRIMARY KEY,
    body text COLLATE "C" NOT NULL,
    size integer NOT NULL,
    created_at timestamptz NOT NULL
  )`,
  `CREATE TABLE artifacts (
    id text COLLATE "C" PRIMARY KEY,
    workspace_id text COLLATE "C" NOT NULL REFERENCES workspaces (id),
    project_id text COLLATE "C" NOT NULL REFERENCES projects (id),
    slug text COLLATE "C" NOT NULL,
    type text COLLATE "C" NOT NULL,
    title text COLLATE "C" NOT NULL,
    description text COLLATE "C" NOT NULL DEFAULT '',
    public_view boolean NOT NULL DEFAULT false,
    public_edit boolean NOT NULL DEFAULT false,
    viewer_emails text[] COLLATE "C" NOT NULL DEFAULT '{}',
    latest_version integer NOT NULL CHECK (latest_version >= 1),
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    deleted_at timestamptz,
    created_by_kind text COLLATE "C" NOT NULL,
    created_by_id text COLLATE "C" NOT NULL,
    created_by_label text COLLATE "C" NOT NULL
  ) WITH (fillfactor = 70)`,
  `CREATE UNIQUE INDEX artifacts_live_slug ON artifacts (project_id, slug) WHERE deleted_at IS NULL`,
  `CREATE INDEX artifacts_by_workspace ON artifacts (workspace_id, id DESC) WHERE deleted_at IS NULL`,
  `CREATE TABLE versions (
    artifact_id text COLLATE "C" NOT NULL,
    number integer NOT NULL CHECK (number >= 1),
    content_sha256 text COLLATE "C" NOT NULL,
    size integer NOT NULL,
    changelog text COLLATE "C" NOT NULL DEFAULT '',
    restored_from integer,
    created_at timestamptz NOT NULL,
    created_by_kind text COLLATE "C" NOT NULL,
    created_by_id text COLLATE "C" NOT NULL,
    created_by_label text COLLATE "C" NOT NULL,
    PRIMARY KEY (artifact_id, number)
    -- No foreign keys here, on purpose: a version is only ever written by the statement that
    -- moves its artifact's head and stores its content (or by a restore of stored content), and
    -- neither artifacts nor contents rows are ever deleted. The checks cost ~15% of an append.
  )`,
  `CREATE TABLE credentials (
    id text COLLATE "C" PRIMARY KEY,
    kind text COLLATE "C" NOT NULL CHECK (kind IN ('session', 'api_key', 'oauth', 'agent', 'share_link')),
    secret_hash text COLLATE "C" NOT NULL UNIQUE,
    display_prefix text COLLATE "C" NOT NULL,
    name text COLLATE "C" NOT NULL DEFAULT '',
    user_id text COLLATE "C" REFERENCES users (id),
    agent_id text COLLATE "C",
    artifact_id text COLLATE "C" REFERENCES artifacts (id),
    role text COLLATE "C" CHECK (role IN ('viewer', 'editor')),
    scopes text[] COLLATE "C" NOT NULL DEFAULT '{}',
    audience text COLLATE "C",
    expires_at timestamptz,
    revoked_at timestamptz,
    last_used_at timestamptz,
    created_at timestamptz NOT NULL
  )`,
  `CREATE INDEX credentials_by_user ON credentials (user_id, kind, id DESC)`,
  `CREATE INDEX credentials_by_artifact ON credentials (artifact_id, id DESC) WHERE artifact_id IS NOT NULL`,
  `CREATE TABLE audit_events (
    id text COLLATE "C" PRIMARY KEY,
    at timestamptz NOT NULL,
    action text COLLATE "C" NOT NULL,
    actor_kind text COLLATE "C" NOT NULL,
    actor_id text COLLATE "C" NOT NULL,
    actor_label text COLLATE "C" NOT NULL,
    via_surface text COLLATE "C" NOT NULL,
    via_credential text COLLATE "C",
    via_credential_id text COLLATE "C",
    workspace_id text COLLATE "C",
    artifact_id text COLLATE "C",
    data jsonb NOT NULL DEFAULT '{}'
  )`,
  `CREATE INDEX audit_by_artifact ON audit_events (artifact_id, id DESC) WHERE artifact_id IS NOT NULL`,
  `CREATE INDEX audit_by_workspace ON audit_events (workspace_id, id DESC)`,
  `CREATE TABLE idempotency_keys (
    scope text COLLATE "C" NOT NULL,
    key text COLLATE "C" NOT NULL,
    request_hash text COLLATE "C" NOT NULL,
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
