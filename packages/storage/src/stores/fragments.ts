import { sql } from 'kysely'
import { credentialColumnList } from './credential-projection.ts'

/**
 * SQL fragments shared by the one-round-trip reads: the caller's credential (by secret hash)
 * with its user, and prefixed column lists that `rows.ts` maps back to records.
 */
export const credentialColumns = sql.raw(credentialColumnList)

export function credentialJoins(secretHash: string | null) {
  return sql`LEFT JOIN credentials c ON c.secret_hash = ${secretHash}::text
  LEFT JOIN users u ON u.id = c.user_id`
}

export const artifactColumns = sql`a.id AS a_id, a.workspace_id AS a_workspace_id, w.slug AS a_owner_slug, a.project_id AS a_project_id,
  p.slug AS a_project_slug, a.slug AS a_slug, a.type AS a_type, a.title AS a_title, a.description AS a_description,
  a.public_view AS a_public_view, a.public_edit AS a_public_edit, a.viewer_emails AS a_viewer_emails,
  a.latest_version AS a_latest_version, a.created_at AS a_created_at, a.updated_at AS a_updated_at, a.deleted_at AS a_deleted_at,
  a.created_by_kind AS a_created_by_kind, a.created_by_id AS a_created_by_id, a.created_by_label AS a_created_by_label`

export const versionColumns = sql`v.artifact_id AS v_artifact_id, v.number AS v_number, v.content_sha256 AS v_content_sha256,
  v.size AS v_size, v.changelog AS v_changelog, v.restored_from AS v_restored_from, v.created_at AS v_created_at,
  v.created_by_kind AS v_created_by_kind, v.created_by_id AS v_created_by_id, v.created_by_label AS v_created_by_label`

export const projectColumns = sql`p.id AS p_id, p.workspace_id AS p_workspace_id, w.slug AS p_owner_slug, p.slug AS p_slug,
  p.title AS p_title, p.description AS p_description, p.icon AS p_icon, p.created_at AS p_created_at,
  p.created_by_kind AS p_created_by_kind, p.created_by_id AS p_created_by_id, p.created_by_label AS p_created_by_label`

export const workspaceColumns = sql`w.id AS w_id, w.slug AS w_slug, w.kind AS w_kind, w.name AS w_name`
