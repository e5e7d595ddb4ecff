import type { ContentRead } from '@quire/core'
import type { Artifact } from '@quire/core/contract'
import { type ArtifactView, artifactPage } from '@quire/pages'
import { renderArtifact } from '@quire/render'
import { contentSecurityPolicy } from '@quire/web-http'
import type { FastifyReply } from 'fastify'
import { LRUCache } from 'lru-cache'

/** A rendered version: the same content and type always render the same, so it is kept by hash. */
interface Rendered {
  readonly body: ArtifactView['body']
  readonly summary: string
}

/** The document page of a version read, given what the page around it says. */
export type DocumentPages = (
  reply: FastifyReply,
  read: ContentRead,
  view: Omit<ArtifactView, 'body' | 'summary' | 'versionNumber' | 'pinned' | 'size' | 'createdAt'>,
) => FastifyReply

/**
 * Sends artifact pages, rendering each version once per process: rendered documents are kept by
 * content hash and type, bounded by their size (`maxBytes` of markup at most). The page allows
 * the https images a document links.
 */
export function documentPages(maxBytes: number): DocumentPages {
  const cache = new LRUCache<string, Rendered>({ maxSize: maxBytes, sizeCalculation: (r) => Math.max(1, r.body.text.length * 2) })
  const policy = contentSecurityPolicy({ remoteImages: true })
  const rendered = (type: Artifact['type'], sha256: string, content: string): Rendered => {
    const key = `${type}:${sha256}`
    const hit = cache.get(key)
    if (hit) return hit
    const output = renderArtifact({ type, content })
    const entry = { body: output.html, summary: output.description ?? '' }
    cache.set(key, entry)
    return entry
  }
  // Whole pages that are the same for every reader (nobody named in the header, no controls, no
  // notice, no share link), by what they show, kept encoded: a pinned version is sent as bytes
  // without being built or encoded again.
  const pages = new LRUCache<string, Buffer>({ maxSize: maxBytes / 4, sizeCalculation: (page) => Math.max(1, page.length) })
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
  return (reply, read, view) => {
    reply.type('text/html; charset=utf-8').header('content-security-policy', policy)
    const { artifact } = view
    if (view.visitor !== null || view.shareLink || view.ownerActions || view.notice) return reply.send(build(read, view))
    // The artifact's updatedAt moves with every change of what the page shows of it (a new
    // version, new access settings).
    const key = `${artifact.id}\n${artifact.updatedAt}\n${read.versionNumber}\n${read.pinned}\n${read.sha256}`
    let page = pages.get(key)
    if (page === undefined) {
      page = Buffer.from(build(read, view))
      pages.set(key, page)
    }
    return reply.send(page)
  }
}
