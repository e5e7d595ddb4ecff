import type { Artifact } from '@quire/core/contract'
import { html, type SafeHtml } from '@quire/render'
import { layout, type Visitor } from './layout.ts'
import { type OwnerActions, ownerActionLinks } from './owner/actions.ts'
import { type NoticeKey, noticeBanner } from './owner/notices.ts'
import { type RenderedDisplay, viewTabs } from './rendered.ts'
import { artifactParams, artifactPath, webRoutes } from './web-routes.ts'

export interface ArtifactView {
  readonly artifact: Artifact
  /** The version shown, and whether the URL named it (`?version=N`). */
  readonly versionNumber: number
  readonly pinned: boolean
  readonly size: number
  readonly createdAt: string
  /** The version's content, rendered and sanitised for its type. */
  readonly body: SafeHtml
  /** Plain text for the meta description (public artifacts only). */
  readonly summary: string
  /** The web app's origin, for absolute URLs in the head. */
  readonly webUrl: string
  /** Who is signed in; never set on a pinned page, which is the same for every reader. */
  readonly visitor: Visitor | null
  /** Set when the page is opened through a share link (`/s/:token`): links stay under the link. */
  readonly shareLink?: SharedVia | null
  /** The signed-in person's controls (edit, settings, delete), on the latest page only: a pinned one is the same for everyone. */
  readonly ownerActions?: OwnerActions | null
  /** What a form that led here did (`?notice=saved`). */
  readonly notice?: NoticeKey | null
  /** An HTML, SVG or Mermaid version drawn from the content origin: the tab shown and the two tabs' links; absent: shown as source only. */
  readonly display?: RenderedDisplay | null
  /** The page holds frames of rendered documents (a drawn HTML or Mermaid version, a Markdown document's diagrams): it loads the script that fits them. */
  readonly framed?: boolean
}

/** A share link the page was opened through: its secret (already in the URL) and its role. */
export interface SharedVia {
  readonly token: string
  readonly role: 'viewer' | 'editor'
}

const typeNames: Record<Artifact['type'], string> = {
  md: 'Markdown',
  txt: 'Text',
  html: 'HTML',
  json: 'JSON',
  yaml: 'YAML',
  csv: 'CSV',
  mermaid: 'Mermaid',
  svg: 'SVG',
}

/** The type as the page's facts name it: an HTML, SVG or Mermaid version that is not drawn (no content origin) says so. */
function typeName(type: Artifact['type'], display: RenderedDisplay | null | undefined): string {
  const drawable = type === 'html' || type === 'svg' || type === 'mermaid'
  return drawable && !display ? `${typeNames[type]} (shown as source)` : typeNames[type]
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`
}

/**
 * What a search engine or a chat's link preview may know: only for an artifact anyone may read.
 * A private artifact's title and content never reach anyone but its readers, and its page is only
 * sent to them; still, nothing of it goes into tags meant for other systems.
 */
function publicHead(view: ArtifactView): SafeHtml | null {
  const { artifact } = view
  if (!artifact.access.publicView) return html`<meta name="robots" content="noindex">`
  const canonical = `${view.webUrl}${artifactPath(artifact)}${view.pinned ? `?version=${view.versionNumber}` : ''}`
  const description = artifact.description || view.summary
  return html`<link rel="canonical" href="${canonical}">
<meta name="description" content="${description}">
<meta property="og:type" content="article">
<meta property="og:site_name" content="Quire">
<meta property="og:title" content="${artifact.title}">
<meta property="og:description" content="${description}">
<meta property="og:url" content="${canonical}">
<meta name="twitter:card" content="summary">
<meta name="twitter:title" content="${artifact.title}">
<meta name="twitter:description" content="${description}">`
}

/**
 * What a share-link reader needs to know: which role the link gives, and that the artifact's own
 * address (the one link that leaves the share link) needs a sign-in unless the artifact is public.
 */
function sharedNotice(artifact: Artifact, via: SharedVia): SafeHtml {
  const path = artifactPath(artifact)
  return html`<div class="notice shared" role="note">
  <p>You are reading this through a share link${via.role === 'editor' ? ' that lets you edit' : ''}. Anyone with this link can ${via.role === 'editor' ? 'read and edit' : 'read'} it; do not post it where others can see it.</p>
  ${
    artifact.access.publicView
      ? html`<p>Its public address is <a href="${path}">${path}</a>.</p>`
      : html`<p>Its own address, <a href="${path}">${path}</a>, needs sign-in with an account it is shared with.</p>`
  }
  ${
    via.role === 'editor'
      ? html`<p class="editor-note"><strong>Editor link.</strong> You may add new versions of this artifact through the API, the CLI or an agent, with this link's secret as the bearer token (<code>Authorization: Bearer &lt;secret&gt;</code>, <code>quire --token</code>).</p>`
      : null
  }
</div>`
}

/**
 * A rendered version in the frame that styles it for its type: the artifact page's document, and
 * the same in a preview (preview.ts), so a preview looks as the saved version will.
 */
export function documentBody(type: Artifact['type'], body: SafeHtml, drawn = false): SafeHtml {
  return html`<div class="document document-${type}${drawn ? ' document-rendered' : ''}">
${body}
  </div>`
}

/** An artifact's page: its names, which version this is, the rendered document. */
export function artifactPage(view: ArtifactView): string {
  const { artifact } = view
  const shared = view.shareLink ?? null
  // Through a share link every link to this artifact stays under the link, or access is lost.
  const params = artifactParams(artifact)
  const version = view.pinned ? view.versionNumber : undefined
  const latest = shared ? webRoutes.sharedArtifact.path({ token: shared.token }) : artifactPath(artifact)
  const raw = shared ? webRoutes.sharedRaw.path({ token: shared.token }, { version }) : webRoutes.artifactRaw.path(params, { version })
  const notLatest = view.pinned && view.versionNumber !== artifact.latestVersion
  const framesScript = view.framed ? html`<script src="${webRoutes.framesScript.path()}" defer></script>` : null
  return layout(
    { title: artifact.title, visitor: view.visitor, head: html`${publicHead(view)}${framesScript}` },
    html`<article class="artifact">
  <header class="artifact-head">
    ${
      shared
        ? html`<p class="crumbs">${artifact.ownerUsername} / ${artifact.projectSlug}</p>`
        : html`<p class="crumbs"><a href="${webRoutes.owner.path(params)}">${artifact.ownerUsername}</a> / <a href="${webRoutes.project.path(params)}">${artifact.projectSlug}</a></p>`
    }
    <h1>${artifact.title}</h1>
    ${artifact.description ? html`<p class="lede">${artifact.description}</p>` : null}
    <p class="meta">
      <span>Version ${view.versionNumber} of ${artifact.latestVersion}</span>
      <span>${typeName(artifact.type, view.display)}</span>
      <span>${formatBytes(view.size)}</span>
      <span><time datetime="${view.createdAt}">${view.createdAt.slice(0, 10)}</time></span>
      ${artifact.access.publicView ? html`<span class="badge">Public</span>` : html`<span class="badge private">Private</span>`}
    </p>
    <nav class="artifact-actions" aria-label="This artifact">
      <a href="${raw}">Raw</a>
      ${shared ? null : html`<a href="${webRoutes.history.path(params)}">History</a>`}
      ${shared ? null : ownerActionLinks(artifact, view.ownerActions)}
    </nav>
  </header>
  ${noticeBanner(view.notice)}
  ${shared ? sharedNotice(artifact, shared) : null}
  ${
    notLatest
      ? html`<p class="notice" role="note">You are reading version ${view.versionNumber}, not the latest. <a href="${latest}">Read the latest (version ${artifact.latestVersion})</a>.</p>`
      : null
  }
  ${
    view.display
      ? viewTabs(view.display.view, (tab) => {
          const query = { version, view: tab === 'source' ? 'source' : undefined }
          return shared ? webRoutes.sharedArtifact.path({ token: shared.token }, query) : webRoutes.artifact.path(params, query)
        })
      : null
  }
  ${documentBody(artifact.type, view.body, view.display?.view === 'rendered')}
</article>`,
  )
}
