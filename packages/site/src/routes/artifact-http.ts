import { createHash } from 'node:crypto'
import type { ContentRead, Failure } from '@quire/core'
import type { Artifact } from '@quire/core/contract'
import { applyContentCaching } from '@quire/http-edge'
import { type ArtifactView, artifactPage } from '@quire/pages'
import { renderArtifact } from '@quire/render'
import { contentSecurityPolicy, sendFailure } from '@quire/web-http'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { LRUCache } from 'lru-cache'

/**
 * What the artifact's pages share (the document, its raw text, history and diffs, a share link):
 * reading the query, conditional requests, the refusals, and the document page itself.
 */

export interface ArtifactPathParams {
  readonly owner: string
  readonly project: string
  readonly slug: string
}

export type PathRequest = FastifyRequest<{ Params: ArtifactPathParams }>

/** A version number as the query gives it: a positive whole number within the contract's range, else null. */
export function versionNumber(raw: unknown): number | null {
  return typeof raw === 'string' && /^[1-9]\d{0,9}$/.test(raw) && Number(raw) <= 2_147_483_647 ? Number(raw) : null
}

/** `?version=N`: a version number, absent (the latest), or refused (null). */
export function versionOf(query: unknown): number | undefined | null {
  const raw = (query as { version?: unknown } | undefined)?.version
  return raw === undefined ? undefined : versionNumber(raw)
}

/** Refuses a `?version=` that is not a version number, with a 400 page. */
export function refuseVersion(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendFailure(request, reply, {
    code: 'validation_failed',
    title: 'No such version',
    message: '`version` must be a version number (1, 2, …).',
  })
}

/** A weak ETag of what a revalidated page shows: a 304 saves sending it again. */
export function weakEtag(text: string): string {
  return `W/"${createHash('sha256').update(text).digest('base64url').slice(0, 27)}"`
}

/**
 * Caching of an artifact's page, text, history or diff, by the one rule every surface follows
 * (`applyContentCaching` of @quire/http-edge): what it shows, whether it can ever change (`pinned`),
 * whether anyone may read it, and whether it names the signed-in person (`personal`). True when
 * the browser's copy is current: answer 304.
 */
export function pageCaching(
  reply: FastifyReply,
  page: { readonly etag: string; readonly pinned: boolean; readonly publicView: boolean; readonly personal: boolean },
): boolean {
  return applyContentCaching(reply, { ...page, secretUrl: false, credential: 'Cookie' })
}

/** A read of an artifact that failed, as a page for a person (a problem for a script). */
export function refuseArtifact(request: FastifyRequest, reply: FastifyReply, failure: Failure): FastifyReply {
  if (failure.code === 'not_found')
    return sendFailure(request, reply, {
      code: 'not_found',
      title: 'Not found',
      message: request.session
        ? 'There is no artifact here, or it is not shared with you.'
        : 'There is no artifact here, or it is private: sign in with an account it is shared with.',
    })
  return sendFailure(request, reply, { code: failure.code, title: 'This artifact cannot be shown', message: failure.message })
}

/** Sends a version's content as text, never a document of this origin: whatever its type, nothing in it runs. */
export function sendRawContent(reply: FastifyReply, read: ContentRead): FastifyReply {
  return reply
    .type('text/plain; charset=utf-8')
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', "default-src 'none'; sandbox")
    .send(read.content.content)
}

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
