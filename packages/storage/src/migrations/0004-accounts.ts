import { type Kysely, sql } from 'kysely'

/**
 * Accounts: workspace invitations, and what audit retention needs.
 *
 * - An invitation is pending while it is neither accepted, revoked nor superseded; at most one is
 *   pending per workspace and email (a partial unique index). Whether it has expired cannot be
 *   part of that predicate (it depends on the clock), so an expired invitation would keep its slot
 *   forever. A new invitation therefore marks the expired one `superseded_by` itself, in the
 *   statement that inserts it: the old row keeps its timestamps and still reads as expired (no
 *   revocation that nobody made), and the link says which invitation took its place.
 * - `audit_by_time` lets the retention pruner find the events older than the shortest retention
 *   without reading the whole trail.
 * - `projects_by_workspace`: a workspace's projects are listed newest first, by keyset.
 */
const statements = [
  `CREATE TABLE workspace_invitations (
    id text COLLATE "C" PRIMARY KEY,
    workspace_id text COLLATE "C" NOT NULL REFERENCES workspaces (id),
    email text COLLATE "C" NOT NULL CHECK (email = lower(email)),
    role text COLLATE "C" NOT NULL CHECK (role IN ('member', 'admin')),
    created_at timestamptz NOT NULL,
    created_by_kind text COLLATE "C" NOT NULL,
    created_by_id text COLLATE "C" NOT NULL,
    created_by_label text COLLATE "C" NOT NULL,
    expires_at timestamptz NOT NULL,
    accepted_at timestamptz,
    accepted_by text COLLATE "C" REFERENCES users (id),
    revoked_at timestamptz,
    superseded_by text COLLATE "C" REFERENCES workspace_invitations (id),
    CHECK ((accepted_at IS NULL) = (accepted_by IS NULL)),
    CHECK (accepted_at IS NULL OR revoked_at IS NULL)
  )`,
  `CREATE UNIQUE INDEX workspace_invitations_pending ON workspace_invitations (workspace_id, email)
    WHERE accepted_at IS NULL AND revoked_at IS NULL AND superseded_by IS NULL`,
  `CREATE INDEX workspace_invitations_by_workspace ON workspace_invitations (workspace_id, id DESC)`,
  `CREATE INDEX workspace_invitations_by_email ON workspace_invitations (email, id DESC)`,
  `CREATE INDEX audit_by_time ON audit_events (at)`,
  `CREATE INDEX projects_by_workspace ON projects (workspace_id, id DESC)`,
]

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const statement of ['DROP INDEX projects_by_workspace', 'DROP INDEX audit_by_time', 'DROP TABLE workspace_invitations'])
    await sql.raw(statement).execute(db)
}
