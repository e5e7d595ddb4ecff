import type { Artifact } from '@quire/core/contract'
import { html, type SafeHtml } from './html.ts'
import { layout, type Visitor } from './layout.ts'

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
}

const typeNames: Record<Artifact['type'], string> = {
  md: 'Markdown',
  txt: 'Text',
  html: 'HTML (shown as source)',
  json: 'JSON',
  yaml: 'YAML',
  csv: 'CSV',
  mermaid: 'Mermaid (shown as source)',
  svg: 'SVG (shown as source)',
}

/** The path of an artifact's page, from its names. */
export function artifactPath(artifact: Pick<Artifact, 'ownerUsername' | 'projectSlug' | 'slug'>): string {
  return `/${encodeURIComponent(artifact.ownerUsername)}/${encodeURIComponent(artifact.projectSlug)}/${encodeURIComponent(artifact.slug)}`
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

/** An artifact's page: its names, which version this is, the rendered document. */
export function artifactPage(view: ArtifactView): string {
  const { artifact } = view
  const path = artifactPath(artifact)
  const versionQuery = view.pinned ? `?version=${view.versionNumber}` : ''
  const notLatest = view.pinned && view.versionNumber !== artifact.latestVersion
  return layout(
    { title: artifact.title, visitor: view.visitor, head: publicHead(view) },
    html`<article class="artifact">
  <header class="artifact-head">
    <p class="crumbs"><a href="/${encodeURIComponent(artifact.ownerUsername)}">${artifact.ownerUsername}</a> / <a href="/${encodeURIComponent(artifact.ownerUsername)}/${encodeURIComponent(artifact.projectSlug)}">${artifact.projectSlug}</a></p>
    <h1>${artifact.title}</h1>
    ${artifact.description ? html`<p class="lede">${artifact.description}</p>` : null}
    <p class="meta">
      <span>Version ${view.versionNumber} of ${artifact.latestVersion}</span>
      <span>${typeNames[artifact.type]}</span>
      <span>${formatBytes(view.size)}</span>
      <span><time datetime="${view.createdAt}">${view.createdAt.slice(0, 10)}</time></span>
      ${artifact.access.publicView ? html`<span class="badge">Public</span>` : html`<span class="badge private">Private</span>`}
    </p>
    <nav class="artifact-actions" aria-label="This artifact">
      <a href="${path}/raw${versionQuery}">Raw</a>
    </nav>
  </header>
  ${
    notLatest
      ? html`<p class="notice" role="note">You are reading version ${view.versionNumber}, not the latest. <a href="${path}">Read the latest (version ${artifact.latestVersion})</a>.</p>`
      : null
  }
  <div class="document document-${artifact.type}">
${view.body}
  </div>
</article>`,
  )
}
