import { type Kysely, sql } from 'kysely'

/**
 * Share links and the audit trail.
 *
 * - A credential records who created it (share links are listed with their creator).
 * - Account-level audit reads find a user's own events by actor.
 * - Audit events are immutable: a trigger refuses every UPDATE, and every DELETE except inside a
 *   transaction that has declared itself the retention pruner (`SET LOCAL quire.audit_pruning = 'on'`).
 */
const statements = [
  `ALTER TABLE credentials ADD COLUMN created_by_kind text COLLATE "C"`,
  `ALTER TABLE credentials ADD COLUMN created_by_id text COLLATE "C"`,
  `ALTER TABLE credentials ADD COLUMN created_by_label text COLLATE "C"`,
  `CREATE INDEX audit_by_actor ON audit_events (actor_id, id DESC)`,
  `CREATE FUNCTION audit_events_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP = 'DELETE' AND current_setting('quire.audit_pruning', true) = 'on' THEN
      RETURN OLD;
    END IF;
    RAISE EXCEPTION 'audit events are immutable (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege';
  END
  $$`,
  `CREATE TRIGGER audit_events_immutable BEFORE UPDATE OR DELETE ON audit_events
    FOR EACH ROW EXECUTE FUNCTION audit_events_immutable()`,
  `CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events
    FOR EACH STATEMENT EXECUTE FUNCTION audit_events_immutable()`,
]

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const statement of [
    'DROP TRIGGER audit_events_no_truncate ON audit_events',
    'DROP TRIGGER audit_events_immutable ON audit_events',
    'DROP FUNCTION audit_events_immutable()',
    'DROP INDEX audit_by_actor',
    'ALTER TABLE credentials DROP COLUMN created_by_kind, DROP COLUMN created_by_id, DROP COLUMN created_by_label',
  ])
    await sql.raw(statement).execute(db)
}
