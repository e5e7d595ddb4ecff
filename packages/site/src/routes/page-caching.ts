import { createHash } from 'node:crypto'
import { applyContentCaching } from '@quire/http-edge'
import type { FastifyReply } from 'fastify'

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
