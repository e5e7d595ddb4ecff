import { createHash } from 'node:crypto'
import { applyContentCaching } from '@quire/http-edge'
import type { FastifyReply } from 'fastify'

/** A weak ETag of what a revalidated page shows: a 304 saves sending it again. */
export function weakEtag(text: string): string {
  return `W/"${createHash('sha256').update(text).digest('base64url').slice(0, 27)}"`
}

/** What the one caching rule needs to know of a page. */
export interface PageCaching {
  readonly etag: string
  readonly pinned: boolean
  readonly publicView: boolean
  readonly personal: boolean
  /** The page is sent compressed as the request's Accept-Encoding allows (`Vary: Accept-Encoding`). */
  readonly variesByEncoding?: boolean
}

/**
 * Caching of an artifact's page, text, history or diff, by the one rule every surface follows
 * (`applyContentCaching` of @quire/http-edge): what it shows, whether it can ever change (`pinned`),
 * whether anyone may read it, and whether it names the signed-in person (`personal`). True when
 * the browser's copy is current: answer 304.
 */
export function pageCaching(reply: FastifyReply, page: PageCaching): boolean {
  const { variesByEncoding, ...content } = page
  const current = applyContentCaching(reply, { ...content, secretUrl: false, credential: 'Cookie' })
  if (variesByEncoding) {
    const vary = reply.getHeader('vary')
    reply.header('vary', typeof vary === 'string' && vary !== '' ? `${vary}, Accept-Encoding` : 'Accept-Encoding')
  }
  return current
}
