import type { SearchHit } from '@quire/core/contract'
import { html, type SafeHtml } from '@quire/render'
import { accessBadges } from '../access-badges.ts'
import { changedWhen } from '../home/when.ts'
import { artifactParams, projectPath, webRoutes } from '../web-routes.ts'
import { markedText, snippetList, snippetText } from './snippets.ts'

/** Where a hit leads: the artifact's page, or the version that matched when it is not the latest. */
export function hitPath(hit: Pick<SearchHit, 'artifact' | 'version'>): string {
  const { artifact, version } = hit
  return webRoutes.artifact.path(artifactParams(artifact), { version: version === artifact.latestVersion ? undefined : version })
}

/**
 * The hit's title as its link shows it: with the matches marked when a snippet of the title is the
 * whole title (that snippet is then not repeated below), else as it is.
 */
function titleOf(hit: SearchHit): { title: SafeHtml | string; rest: SearchHit['snippets'] } {
  const whole = hit.snippets.find((s) => s.field === 'title' && snippetText(s) === hit.artifact.title)
  if (whole === undefined) return { title: hit.artifact.title, rest: hit.snippets }
  return { title: markedText(whole.segments), rest: hit.snippets.filter((s) => s !== whole) }
}

/**
 * One row per hit, best first: type, title (the link, matches marked), where it lives
 * (`OWNER / PROJECT / SLUG`, the project a link), the version that matched when it is an older
 * one, who may read it and when it last changed, then the passages that matched.
 */
export function hitList(hits: readonly SearchHit[], now: Date): SafeHtml {
  return html`<ol class="listing search-hits">
${hits.map((hit) => {
  const a = hit.artifact
  const { title, rest } = titleOf(hit)
  const older = hit.version !== a.latestVersion
  return html`<li>
  <span class="type-tag" title="Type">${a.type}</span>
  <div class="listing-main">
    <a class="listing-title" href="${hitPath(hit)}">${title}</a>
    <p class="listing-meta"><span class="search-path"><a class="listing-project" href="${projectPath({ ownerUsername: a.ownerUsername, slug: a.projectSlug })}">${a.ownerUsername} / ${a.projectSlug}</a> / ${a.slug}</span>${
      older ? html`<span class="badge search-version">Version ${hit.version} of ${a.latestVersion}</span>` : null
    }${accessBadges(a)}<span>Changed ${changedWhen(a.updatedAt, now)}</span></p>
    ${snippetList(rest)}
  </div>
</li>
`
})}</ol>`
}
