import { type Kysely, sql } from 'kysely'

/**
 * Live changes (issue 33): one ordered source of the changes a reader follows.
 *
 * - `change_events`: a thin row (ids, kind, version, actor, time) for each audit event of the kinds
 *   a reader of an artifact cares about, written by a trigger on `audit_events`, so in the very
 *   transaction of the change (the audit write is already there: every change has one).
 * - `position` is the event id followers resume from. It is given after commit, in commit order,
 *   by `sequenceChanges` (stores/change-events.ts) under one advisory lock: a sequence taken inside
 *   the writing transaction would let a later number commit first, and a follower resuming after it
 *   would miss the earlier one for good.
 * - The trigger says `NOTIFY quire_changes` (sent at commit): each process's change feed wakes,
 *   numbers what is new and hands it to its followers. A feed also polls, so a lost notification
 *   (a connection cut, a pooler) delays an event but never drops it.
 */
const kinds = [
  'artifact.created',
  'artifact.version_created',
  'artifact.restored',
  'artifact.deleted',
  'artifact.access_changed',
  'share_link.created',
  'share_link.revoked',
]

const statements = [
  `CREATE TABLE change_events (
    id text COLLATE "C" NOT NULL,
    position bigint,
    at timestamptz NOT NULL,
    kind text COLLATE "C" NOT NULL,
    artifact_id text COLLATE "C" NOT NULL,
    project_id text COLLATE "C" NOT NULL,
    workspace_id text COLLATE "C" NOT NULL,
    version_number integer,
    actor_kind text COLLATE "C" NOT NULL,
    actor_id text COLLATE "C" NOT NULL,
    actor_label text COLLATE "C" NOT NULL
  )`,
  // The write adds one index entry (the unnumbered one); the numbering adds the others. Each id is
  // the audit event's (one change per event, by the trigger) and each position is given once, under
  // the numbering lock: no unique index is needed to keep them so.
  `CREATE INDEX change_events_unnumbered ON change_events (at, id) WHERE position IS NULL`,
  `CREATE INDEX change_events_by_position ON change_events (position) WHERE position IS NOT NULL`,
  `CREATE INDEX change_events_by_artifact ON change_events (artifact_id, position) WHERE position IS NOT NULL`,
  `CREATE INDEX change_events_by_project ON change_events (project_id, position) WHERE position IS NOT NULL`,
  `CREATE INDEX change_events_by_workspace ON change_events (workspace_id, position) WHERE position IS NOT NULL`,
  `CREATE FUNCTION quire_change_event() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO change_events (id, at, kind, artifact_id, project_id, workspace_id, version_number, actor_kind, actor_id, actor_label)
      SELECT NEW.id, NEW.at, NEW.action, a.id, a.project_id, a.workspace_id,
        CASE WHEN NEW.data ? 'versionNumber' THEN (NEW.data->>'versionNumber')::integer END,
        NEW.actor_kind, NEW.actor_id, NEW.actor_label
      FROM artifacts a WHERE a.id = NEW.artifact_id;
    PERFORM pg_notify('quire_changes', '');
    RETURN NULL;
  END
  $$`,
  `CREATE TRIGGER audit_events_change AFTER INSERT ON audit_events
    FOR EACH ROW WHEN (NEW.artifact_id IS NOT NULL AND NEW.action IN (${kinds.map((k) => `'${k}'`).join(', ')}))
    EXECUTE FUNCTION quire_change_event()`,
]

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const statement of [
    'DROP TRIGGER audit_events_change ON audit_events',
    'DROP FUNCTION quire_change_event()',
    'DROP TABLE change_events',
  ])
    await sql.raw(statement).execute(db)
}
