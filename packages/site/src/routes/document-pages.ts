import type { ContentRead } from '@quire/core'
import type { Artifact } from '@quire/core/contract'
import { type ArtifactView, artifactPage } from '@quire/pages'
import { renderArtifact } from '@quire/render'
import { contentSecurityPolicy } from '@quire/web-http'
import type { FastifyReply } from 'fastify'
import { LRUCache } from 'lru-cache'
import { type PageCaching, pageCaching } from './page-caching.ts'
import { type EncodedPage, encodedEtag, encodedSize, encodePage, preferredEncoding } from './page-encoding.ts'

/** A rendered version: the same content and type always render the same, so it is kept by hash. */
interface Rendered {
  readonly body: ArtifactView['body']
  readonly summary: string
}

/**
 * A document as its page shows it: rendered for its type, with the summary its page describes it
 * by. Uncached: the pages below keep what they render by the hash of saved content; a preview of
 * unsaved text calls this directly, so nothing it renders is kept.
 */
export function renderDocument(type: Artifact['type'], content: string): Rendered {
  const output = renderArtifact({ type, content })
  return { body: output.html, summary: output.description ?? '' }
}

/** The policy of a page that shows a document: it may show the https images the document links. */
export const documentPolicy = contentSecurityPolicy({ remoteImages: true })

/**
 * The document page of a version read, given what the page around it says, cached by `caching`
 * (null: the caller said already that nothing may keep it, a secret URL's page). A 304 when the
 * browser's copy is current.
 */
export type DocumentPages = (
  reply: FastifyReply,
  read: ContentRead,
  view: Omit<ArtifactView, 'body' | 'summary' | 'versionNumber' | 'pinned' | 'size' | 'createdAt'>,
  caching: PageCaching | null,
) => FastifyReply | Promise<FastifyReply>

/**
 * Sends artifact pages, rendering each version once per process: rendered documents are kept by
 * content hash and type, bounded by their size (`maxBytes` of markup at most). The page allows
 * the https images a document links.
 */
export function documentPages(maxBytes: number): DocumentPages {
  const cache = new LRUCache<string, Rendered>({ maxSize: maxBytes, sizeCalculation: (r) => Math.max(1, r.body.text.length * 2) })
  const policy = documentPolicy
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
  const build = (read: ContentRead, view: Parameters<DocumentPages>[2]): string => {
    const { body, summary } = rendered(view.artifact.type, read.sha256, read.content.content)
    return artifactPage({
      ...view,
      versionNumber: read.versionNumber,
      pinned: read.pinned,
      size: read.content.size,
      createdAt: read.content.createdAt,
      body,
      summary,
    })
  }
  const keep = (key: string, read: ContentRead, view: Parameters<DocumentPages>[2]): Promise<EncodedPage> => {
    let page = pending.get(key)
    if (page === undefined) {
      page = encodePage(Buffer.from(build(read, view)))
        .then((encoded) => {
          pages.set(key, encoded)
          return encoded
        })
        .finally(() => pending.delete(key))
      pending.set(key, page)
    }
    return page
  }
  return async (reply, read, view, caching) => {
    const { artifact } = view
    if (caching === null || view.visitor !== null || view.shareLink || view.ownerActions || view.notice) {
      if (caching !== null && pageCaching(reply, caching)) return reply.code(304).send()
      return reply.type('text/html; charset=utf-8').header('content-security-policy', policy).send(build(read, view))
    }
    // One page, three representations: each its own ETag, and caches told the answer depends on
    // Accept-Encoding.
    const encoding = preferredEncoding(reply.request.headers['accept-encoding'])
    if (pageCaching(reply, { ...caching, etag: encodedEtag(caching.etag, encoding), variesByEncoding: true })) return reply.code(304).send()
    // The artifact's updatedAt moves with every change of what the page shows of it (a new
    // version, new access settings).
    const key = `${artifact.id}\n${artifact.updatedAt}\n${read.versionNumber}\n${read.pinned}\n${read.sha256}`
    const page = pages.get(key) ?? (await keep(key, read, view))
    reply.type('text/html; charset=utf-8').header('content-security-policy', policy)
    if (encoding === null) return reply.send(page.identity)
    return reply.header('content-encoding', encoding).send(page[encoding])
  }
}
