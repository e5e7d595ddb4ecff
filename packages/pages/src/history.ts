import type { Artifact, Version } from '@quire/core/contract'
import { html, type SafeHtml } from '@quire/render'
import { artifactCrumbs } from './crumbs.ts'
import { layout, type Visitor } from './layout.ts'
import { type OwnerActions, ownerActionLinks, restoreForm } from './owner/actions.ts'
import { artifactParams, artifactPath, webRoutes } from './web-routes.ts'

export interface HistoryView {
  readonly artifact: Artifact
  /** This page of versions, newest first. */
  readonly versions: readonly Version[]
  /** The cursor of the next (older) page, or null on the last one. */
  readonly nextCursor: string | null
  /** Whether this page was reached with a cursor (so there is a newer page to go back to). */
  readonly paged: boolean
  readonly visitor: Visitor | null
  /** The signed-in person's controls, and the CSRF token their restore forms send; null for anyone else. */
  readonly owner?: { readonly actions: OwnerActions; readonly csrfToken: string } | null
}

/** Who acted, in words a reader knows (the contract's kinds are identifiers). */
export const actorKinds: Record<Version['createdBy']['kind'], string> = {
  user: 'person',
  agent: 'agent',
  share_link: 'share link',
  operator: 'operator',
  system: 'system',
}

/** Sizes as a reader compares them: bytes, then KiB and MiB with one decimal. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`
}

/** A timestamp as a `<time>`: machine-readable in the attribute, a short UTC date and time to read. */
export function timeTag(iso: string): SafeHtml {
  return html`<time datetime="${iso}">${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC</time>`
}

/**
 * The credential kind a version was written with, when the version data carries one: today's
 * contract records only the actor, so this shows nothing until the store keeps the credential.
 */
function credentialKindOf(version: Version): string | null {
  const kind = (version as Version & { credentialKind?: unknown }).credentialKind
  return typeof kind === 'string' && kind !== '' ? kind : null
}

/**
 * A plain GET form to compare any two versions: number fields rather than lists, so it stays
 * small however many versions there are, and works without JavaScript. No `max`: a cached diff
 * page must not stop anyone from naming a version written after it was sent.
 */
export function compareForm(artifact: Artifact, from: number, to: number): SafeHtml {
  return html`<form class="compare" method="get" action="${webRoutes.diff.path(artifactParams(artifact))}">
  <fieldset>
    <legend>Compare two versions</legend>
    <div class="compare-fields">
      <label for="compare-from">From version <input id="compare-from" name="from" type="number" inputmode="numeric" min="1" value="${from}" required></label>
      <label for="compare-to">To version <input id="compare-to" name="to" type="number" inputmode="numeric" min="1" value="${to}" required></label>
      <button type="submit" class="secondary">Compare</button>
    </div>
  </fieldset>
</form>`
}

/** One version in the list: its number and links, its note, who wrote it, how big, when; and, for an editor, restoring it. */
function versionItem(artifact: Artifact, version: Version, owner: HistoryView['owner']): SafeHtml {
  const params = artifactParams(artifact)
  const n = version.versionNumber
  const credential = credentialKindOf(version)
  return html`<li class="version" id="v${n}">
  <div class="version-head">
    <h2 class="version-title">Version ${n}</h2>
    ${n === artifact.latestVersion ? html`<span class="badge latest">Latest</span>` : null}
    ${version.restoredFrom !== null ? html`<span class="badge restored">Restored from <a href="${webRoutes.artifact.path(params, { version: version.restoredFrom })}">version ${version.restoredFrom}</a></span>` : null}
  </div>
  ${version.changelog ? html`<p class="changelog">${version.changelog}</p>` : html`<p class="changelog none">No changelog</p>`}
  <p class="meta">
    <span class="author">by <strong>${version.createdBy.label}</strong> <span class="kind">(${actorKinds[version.createdBy.kind]}${credential ? html`, ${credential}` : null})</span></span>
    <span>${formatBytes(version.size)}</span>
    <span>${timeTag(version.createdAt)}</span>
  </p>
  <p class="version-links">
    <a href="${webRoutes.artifact.path(params, { version: n })}">View version ${n}</a>
    ${n > 1 ? html`<a href="${webRoutes.diff.path(params, { from: n - 1, to: n })}">Changes from version ${n - 1}</a>` : html`<span class="muted">First version</span>`}
  </p>
  ${owner?.actions.edit && n !== artifact.latestVersion ? restoreForm(artifact, version, owner.csrfToken) : null}
</li>`
}

/** Links to the newest page and to the next, older one. */
function pager(artifact: Artifact, view: HistoryView): SafeHtml | null {
  if (!view.paged && view.nextCursor === null) return null
  const params = artifactParams(artifact)
  return html`<nav class="pager" aria-label="Pages of versions">
  ${view.paged ? html`<a href="${webRoutes.history.path(params)}">← Newest versions</a>` : html`<span></span>`}
  ${view.nextCursor ? html`<a href="${webRoutes.history.path(params, { cursor: view.nextCursor })}" rel="next">Older versions →</a>` : null}
</nav>`
}

/** An artifact's history: every version, newest first, and a form to compare any two. */
export function historyPage(view: HistoryView): string {
  const { artifact } = view
  const latest = artifact.latestVersion
  return layout(
    { title: `History of ${artifact.title}`, visitor: view.visitor, head: html`<meta name="robots" content="noindex">` },
    html`<div class="history">
  <header class="artifact-head">
    ${artifactCrumbs(artifact)}
    <h1>History</h1>
    <p class="meta"><span>${latest} ${latest === 1 ? 'version' : 'versions'}</span><span>Latest <a href="${artifactPath(artifact)}">version ${latest}</a></span></p>
    ${view.owner ? html`<nav class="artifact-actions" aria-label="This artifact">${ownerActionLinks(artifact, view.owner.actions)}</nav>` : null}
  </header>
  ${latest > 1 ? compareForm(artifact, latest - 1, latest) : null}
  <ol class="versions" aria-label="Versions, newest first">
${view.versions.map((version) => versionItem(artifact, version, view.owner))}
  </ol>
  ${pager(artifact, view)}
</div>`,
  )
}
