import type { ActorRef, ArtifactRecord, ArtifactType, ProjectRecord, Role, VersionRecord, WorkspaceRecord } from '@quire/core'

/**
 * Column prefixes used in joined reads: `a_` artifact, `v_` version, `p_` project, `w_` workspace
 * (credentials: see credential-projection.ts).
 */
export type Row = Record<string, unknown>

const str = (v: unknown): string => v as string
export const date = (v: unknown): Date => (v instanceof Date ? v : new Date(v as string))
export const maybeDate = (v: unknown): Date | null => (v === null || v === undefined ? null : date(v))

export function actor(row: Row, prefix: string): ActorRef {
  return {
    kind: row[`${prefix}created_by_kind`] as ActorRef['kind'],
    id: str(row[`${prefix}created_by_id`]),
    label: str(row[`${prefix}created_by_label`]),
  }
}

export function artifactFrom(row: Row, p = 'a_'): ArtifactRecord | null {
  if (row[`${p}id`] === null || row[`${p}id`] === undefined) return null
  return {
    id: str(row[`${p}id`]),
    workspaceId: str(row[`${p}workspace_id`]),
    ownerSlug: str(row[`${p}owner_slug`]),
    projectId: str(row[`${p}project_id`]),
    projectSlug: str(row[`${p}project_slug`]),
    slug: str(row[`${p}slug`]),
    type: row[`${p}type`] as ArtifactType,
    title: str(row[`${p}title`]),
    description: str(row[`${p}description`]),
    publicView: Boolean(row[`${p}public_view`]),
    publicEdit: Boolean(row[`${p}public_edit`]),
    viewerEmails: (row[`${p}viewer_emails`] as string[] | null) ?? [],
    latestVersion: Number(row[`${p}latest_version`]),
    createdAt: date(row[`${p}created_at`]),
    updatedAt: date(row[`${p}updated_at`]),
    deletedAt: maybeDate(row[`${p}deleted_at`]),
    createdBy: actor(row, p),
  }
}

export function versionFrom(row: Row, p = 'v_'): VersionRecord | null {
  if (row[`${p}number`] === null || row[`${p}number`] === undefined) return null
  return {
    artifactId: str(row[`${p}artifact_id`]),
    number: Number(row[`${p}number`]),
    sha256: str(row[`${p}content_sha256`]),
    size: Number(row[`${p}size`]),
    changelog: str(row[`${p}changelog`]),
    restoredFrom: row[`${p}restored_from`] === null ? null : Number(row[`${p}restored_from`]),
    createdAt: date(row[`${p}created_at`]),
    createdBy: actor(row, p),
  }
}

export function projectFrom(row: Row, p = 'p_'): ProjectRecord | null {
  if (row[`${p}id`] === null || row[`${p}id`] === undefined) return null
  return {
    id: str(row[`${p}id`]),
    workspaceId: str(row[`${p}workspace_id`]),
    ownerSlug: str(row[`${p}owner_slug`]),
    slug: str(row[`${p}slug`]),
    title: str(row[`${p}title`]),
    description: str(row[`${p}description`]),
    icon: str(row[`${p}icon`]),
    createdAt: date(row[`${p}created_at`]),
    createdBy: actor(row, p),
  }
}

export function workspaceFrom(row: Row, p = 'w_'): WorkspaceRecord | null {
  if (row[`${p}id`] === null || row[`${p}id`] === undefined) return null
  return {
    id: str(row[`${p}id`]),
    slug: str(row[`${p}slug`]),
    kind: row[`${p}kind`] as WorkspaceRecord['kind'],
    name: str(row[`${p}name`]),
  }
}

export function roleFrom(value: unknown): Role | null {
  return value === 'owner' || value === 'admin' || value === 'member' ? value : null
}
