import type { Artifact } from '@quire/core/contract'
import { html, type SafeHtml } from '@quire/render'

/**
 * Where an artifact's pages are: the path of its page, the paths of its owner's pages and forms,
 * and the crumbs that lead to it. Every page and route that links to an artifact builds the link here.
 */

/** The path of an artifact's page, from its names. */
export function artifactPath(artifact: Pick<Artifact, 'ownerUsername' | 'projectSlug' | 'slug'>): string {
  return `/${encodeURIComponent(artifact.ownerUsername)}/${encodeURIComponent(artifact.projectSlug)}/${encodeURIComponent(artifact.slug)}`
}

/** The paths of an artifact's owner pages and forms. */
export function ownerPaths(artifact: Pick<Artifact, 'ownerUsername' | 'projectSlug' | 'slug'>) {
  const base = artifactPath(artifact)
  return {
    artifact: base,
    history: `${base}/history`,
    edit: `${base}/edit`,
    restore: `${base}/restore`,
    delete: `${base}/delete`,
    settings: `${base}/settings`,
    audit: `${base}/audit`,
    access: `${base}/settings/access`,
    shareLinks: `${base}/settings/share-links`,
    revoke: (shareLinkId: string) => `${base}/settings/share-links/${encodeURIComponent(shareLinkId)}/revoke`,
  }
}

/** The crumbs over every page of an artifact: owner / project / the artifact itself. */
export function artifactCrumbs(artifact: Artifact): SafeHtml {
  const owner = `/${encodeURIComponent(artifact.ownerUsername)}`
  return html`<p class="crumbs"><a href="${owner}">${artifact.ownerUsername}</a> / <a href="${owner}/${encodeURIComponent(artifact.projectSlug)}">${artifact.projectSlug}</a> / <a href="${artifactPath(artifact)}">${artifact.title}</a></p>`
}
