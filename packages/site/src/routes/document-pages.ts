import { type ContentRead, type PreviewLinks, rendersOnContentOrigin } from '@quire/core'
import type { Artifact } from '@quire/core/contract'
import { type ArtifactView, artifactPage, type DocumentView, diagramFigure, renderedBody, webRoutes } from '@quire/pages'
import { diagramMarkers, renderArtifact, SafeHtml } from '@quire/render'
import { PREVIEW_WINDOW_SECONDS } from '@quire/runtime'
import { contentSecurityPolicy } from '@quire/web-http'
import type { FastifyReply } from 'fastify'
import { LRUCache } from 'lru-cache'
import { type PageCaching, pageCaching } from './page-caching.ts'
import { type EncodedPage, encodedEtag, encodedSize, encodePage, preferredEncoding } from './page-encoding.ts'

/** A rendered version: the same content and type always render the same, so it is kept by hash. */
interface Rendered {
  readonly body: ArtifactView['body']
  readonly summary: string
  /** A Markdown document's Mermaid fences (0: none). */
  readonly diagrams: number
}

/**
 * A document as its page shows it: rendered for its type, with the summary its page describes it
 * by. Uncached: the pages below keep what they render by the hash of saved content; a preview of
 * unsaved text calls this directly, so nothing it renders is kept.
 */
export function renderDocument(type: Artifact['type'], content: string): Rendered {
  const output = renderArtifact({ type, content })
  return { body: output.html, summary: output.description ?? '', diagrams: output.diagrams ?? 0 }
}

/** The policy of a page that shows a document: it may show the https images the document links. */
export const documentPolicy = contentSecurityPolicy({ remoteImages: true })

/** What a page shows of a version: its body as drawn or as source, and what the page around it needs to know. */
interface Shown {
  readonly body: SafeHtml
  readonly display: ArtifactView['display']
  /** It holds frames of rendered documents: the page loads the script that fits them. */
  readonly framed: boolean
}

/**
 * The document page of a version read, given what the page around it says, cached by `caching`
 * (null: the caller said already that nothing may keep it, a secret URL's page). A 304 when the
 * browser's copy is current.
 */
export type DocumentPages = (
  reply: FastifyReply,
  read: ContentRead,
  view: Omit<ArtifactView, 'body' | 'summary' | 'versionNumber' | 'pinned' | 'size' | 'createdAt' | 'display' | 'framed'> & {
    /** The tab asked for (`?view=source`): an HTML, SVG or Mermaid version drawn, or its source. */
    readonly tab: DocumentView
  },
  caching: PageCaching | null,
) => FastifyReply | Promise<FastifyReply>

export interface DocumentPagesOptions {
  /** Markup kept in memory at most, rendered documents and whole pages together. */
  readonly maxBytes: number
  /** The content origin's capabilities; null: none is configured, HTML, SVG and Mermaid are shown as source. */
  readonly previews: PreviewLinks | null
  /** The web app's origin: the frame-fitting script's address in the policy. */
  readonly webUrl: string
  readonly now: () => Date
}

/**
 * Sends artifact pages, rendering each version once per process: rendered documents are kept by
 * content hash and type, bounded by their size (`maxBytes` of markup at most). The page allows
 * the https images a document links. An HTML, SVG or Mermaid version (and a Markdown document's
 * diagrams) is drawn from the content origin through capabilities minted for this reader, which
 * live for a window of minutes: such a page names its window in its ETag and cache key.
 */
export function documentPages(options: DocumentPagesOptions): DocumentPages {
  const { maxBytes, previews, now } = options
  const cache = new LRUCache<string, Rendered>({ maxSize: maxBytes, sizeCalculation: (r) => Math.max(1, r.body.text.length * 2) })
  const plainPolicy = documentPolicy
  const framedPolicy = previews
    ? contentSecurityPolicy({
        remoteImages: true,
        content: { origin: previews.origin, script: `${options.webUrl}${webRoutes.framesScript.path()}` },
      })
    : documentPolicy
  /** Whether a page of this version holds capabilities (so it changes with the window). */
  const drawn = (type: Artifact['type'], tab: DocumentView, entry: Rendered) =>
    previews !== null && ((rendersOnContentOrigin(type) && tab === 'rendered') || entry.diagrams > 0)
  const shown = async (artifact: Artifact, read: ContentRead, entry: Rendered, tab: DocumentView, at: Date): Promise<Shown> => {
    const { type } = artifact
    const plain: Shown = { body: entry.body, display: null, framed: false }
    if (previews === null) return plain
    const target = { artifactId: artifact.id, versionNumber: read.versionNumber }
    if (type === 'html' || type === 'svg' || type === 'mermaid') {
      if (tab === 'source') return { ...plain, display: { view: 'source' } }
      const link = await previews.mint(target, at)
      return { body: renderedBody(type, link.url, artifact.title), display: { view: 'rendered' }, framed: type !== 'svg' }
    }
    if (entry.diagrams === 0) return plain
    const links = await Promise.all(Array.from({ length: entry.diagrams }, (_, diagram) => previews.mint({ ...target, diagram }, at)))
    const body = entry.body.text.replace(diagramMarkers, (whole, index: string, source: string) => {
      const link = links[Number(index)]
      return link ? diagramFigure(link.url, Number(index), new SafeHtml(source)).text : whole
    })
    return { body: new SafeHtml(body), display: null, framed: true }
  }
  const rendered = (type: Artifact['type'], sha256: string, content: string): Rendered => {
    const key = `${type}:${sha256}`
    const hit = cache.get(key)
    if (hit) return hit
    const entry = renderDocument(type, content)
    cache.set(key, entry)
    return entry
  }
  // Whole pages that are the same for every reader (nobody named in the header, no controls, no
  // notice, no share link), by what they show, kept encoded and compressed: a pinned version is
  // sent as bytes without being built, encoded or compressed again. Compressing only these pages
  // also keeps compression away from every page that holds a secret (a CSRF token, a share link).
  const pages = new LRUCache<string, EncodedPage>({ maxSize: maxBytes / 4, sizeCalculation: (page) => Math.max(1, encodedSize(page)) })
  // Pages being compressed: requests that arrive meanwhile wait for the same one.
  const pending = new Map<string, Promise<EncodedPage>>()
  const build = async (read: ContentRead, view: Parameters<DocumentPages>[2], entry: Rendered, at: Date): Promise<string> => {
    const { tab, ...rest } = view
    const { body, display, framed } = await shown(view.artifact, read, entry, tab, at)
    return artifactPage({
      ...rest,
      versionNumber: read.versionNumber,
      pinned: read.pinned,
      size: read.content.size,
      createdAt: read.content.createdAt,
      body,
      display,
      framed,
      summary: entry.summary,
    })
  }
  const keep = (key: string, read: ContentRead, view: Parameters<DocumentPages>[2], entry: Rendered, at: Date): Promise<EncodedPage> => {
    let page = pending.get(key)
    if (page === undefined) {
      page = build(read, view, entry, at)
        .then((markup) => encodePage(Buffer.from(markup)))
        .then((encoded) => {
          pages.set(key, encoded)
          return encoded
        })
        .finally(() => pending.delete(key))
      pending.set(key, page)
    }
    return page
  }
  return async (reply, read, view, asked) => {
    const { artifact, tab } = view
    const entry = rendered(artifact.type, read.sha256, read.content.content)
    const at = now()
    // A page holding capabilities is another page in every window: its ETag says which.
    const windowed = drawn(artifact.type, tab, entry)
    const window = windowed ? `.${Math.floor(at.getTime() / 1000 / PREVIEW_WINDOW_SECONDS)}` : ''
    const caching = asked && { ...asked, etag: asked.etag.replace(/"$/, `${tab === 'source' ? '.source' : ''}${window}"`) }
    // Said before any 304 too: a browser takes a 304's headers into the page it kept, so the
    // page's own policy (its frames, its script) must come with the 304 as with the page.
    reply.header('content-security-policy', windowed ? framedPolicy : plainPolicy)
    if (caching === null || view.visitor !== null || view.shareLink || view.ownerActions || view.notice) {
      if (caching !== null && pageCaching(reply, caching)) return reply.code(304).send()
      return reply.type('text/html; charset=utf-8').send(await build(read, view, entry, at))
    }
    // One page, three representations: each its own ETag, and caches told the answer depends on
    // Accept-Encoding.
    const encoding = preferredEncoding(reply.request.headers['accept-encoding'])
    if (pageCaching(reply, { ...caching, etag: encodedEtag(caching.etag, encoding), variesByEncoding: true })) return reply.code(304).send()
    // The artifact's updatedAt moves with every change of what the page shows of it (a new
    // version, new access settings).
    const key = `${artifact.id}\n${artifact.updatedAt}\n${read.versionNumber}\n${read.pinned}\n${read.sha256}\n${tab}${window}`
    const page = pages.get(key) ?? (await keep(key, read, view, entry, at))
    reply.type('text/html; charset=utf-8')
    if (encoding === null) return reply.send(page.identity)
    return reply.header('content-encoding', encoding).send(page[encoding])
  }
}
