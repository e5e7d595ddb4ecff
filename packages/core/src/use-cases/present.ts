import type { Artifact } from '../contract/schemas/artifact.ts'
import type { Project } from '../contract/schemas/project.ts'
import type { Version } from '../contract/schemas/version.ts'
import type { ArtifactRecord, ProjectRecord, VersionRecord } from '../ports/records.ts'

function joinUrl(base: string, ...segments: string[]): string {
  return `${base.replace(/\/+$/, '')}/${segments.map(encodeURIComponent).join('/')}`
}

export function artifactUrl(webUrl: string, owner: string, project: string, slug: string): string {
  return joinUrl(webUrl, owner, project, slug)
}

/** The public representation of an artifact. */
export function presentArtifact(record: ArtifactRecord, webUrl: string): Artifact {
  return {
    id: record.id,
    ownerUsername: record.ownerSlug,
    projectSlug: record.projectSlug,
    slug: record.slug,
    type: record.type,
    title: record.title,
    description: record.description,
    access: { publicView: record.publicView, publicEdit: record.publicEdit },
    latestVersion: record.latestVersion,
    url: artifactUrl(webUrl, record.ownerSlug, record.projectSlug, record.slug),
    createdAt: record.createdAt.toISOString(),
    updatedAt: record.updatedAt.toISOString(),
    createdBy: record.createdBy,
  }
}

export function presentVersion(record: VersionRecord): Version {
  return {
    artifactId: record.artifactId,
    versionNumber: record.number,
    sha256: record.sha256,
    size: record.size,
    changelog: record.changelog,
    restoredFrom: record.restoredFrom,
    createdAt: record.createdAt.toISOString(),
    createdBy: record.createdBy,
  }
}

export function presentProject(record: ProjectRecord, webUrl: string): Project {
  return {
    id: record.id,
    workspaceId: record.workspaceId,
    ownerUsername: record.ownerSlug,
    slug: record.slug,
    title: record.title,
    description: record.description,
    icon: record.icon,
    url: joinUrl(webUrl, record.ownerSlug, record.slug),
    createdAt: record.createdAt.toISOString(),
    createdBy: record.createdBy,
  }
}
