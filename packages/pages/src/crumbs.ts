import type { Artifact } from '@quire/core/contract'
import { html, type SafeHtml } from '@quire/render'
import { artifactPath, ownerPath, projectPath } from './web-routes.ts'

/** The crumbs over every page of an artifact: owner / project / the artifact itself. */
export function artifactCrumbs(artifact: Artifact): SafeHtml {
  const project = projectPath({ ownerUsername: artifact.ownerUsername, slug: artifact.projectSlug })
  return html`<p class="crumbs"><a href="${ownerPath(artifact.ownerUsername)}">${artifact.ownerUsername}</a> / <a href="${project}">${artifact.projectSlug}</a> / <a href="${artifactPath(artifact)}">${artifact.title}</a></p>`
}
