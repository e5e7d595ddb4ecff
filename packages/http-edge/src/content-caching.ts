import type { FastifyReply } from 'fastify'

/**
 * The one rule for caching an artifact's content, on every surface that serves it: the API's
 * content reads and the web app's pages, raw text, history and diffs (docs/decisions.md, "Caching
 * content"). The bytes of a pinned version never change, but who may read them does: an owner
 * makes an artifact private, deletes it, revokes a link, or the reader signs out. So no copy is
 * used without asking us for longer than an access change may take to show:
 *
 * - a secret URL (a share link): nothing may store it (`no-store`);
 * - an answer for one reader (a private artifact, or a page naming who is signed in): the
 *   browser may keep it but must ask each time (`private, no-cache`, with the ETag a 304 answers);
 *   after sign-out or an access change, asking gets the refusal;
 * - an answer anyone may read: shared caches too, at most `ACCESS_CHANGE_SECONDS` without asking
 *   when it never changes (a pinned version), else revalidated each time.
 *
 * Every refusal (404 after an access change included) is `no-store`: see the two apps' failure
 * senders.
 */

/** How long a public, never-changing answer is served from a cache (a browser's or a CDN's) after an access change. */
export const ACCESS_CHANGE_SECONDS = 60

/** What a content answer is, as far as caches are concerned. */
export type CachedContent =
  | {
      /** The URL itself is the credential (a share link): nothing may keep the answer, so it has no validator either. */
      readonly secretUrl: true
    }
  | {
      readonly secretUrl: false
      /** The validator the client sends back in `If-None-Match`. */
      readonly etag: string
      /** Its bytes can never change: a pinned version, a diff between two named versions. */
      readonly pinned: boolean
      /** Anyone may read the artifact. */
      readonly publicView: boolean
      /** The answer names who asked (a signed-in page header, a session's CSRF token): for that reader only. */
      readonly personal: boolean
      /** The request header that says who asked (the API's bearer token, the web app's session cookie). */
      readonly credential: 'Authorization' | 'Cookie'
    }

/** The `Cache-Control` of a content answer, by the rule above. */
export function cacheControlOf(content: CachedContent): string {
  if (content.secretUrl) return 'no-store'
  if (!content.publicView || content.personal) return 'private, no-cache'
  return content.pinned ? `public, max-age=${ACCESS_CHANGE_SECONDS}, must-revalidate` : 'public, no-cache'
}

/** True when `If-None-Match` lists this entity tag (or is `*`); weak comparison, as RFC 9110 asks for GET. */
export function etagMatches(ifNoneMatch: string | string[] | undefined, etag: string): boolean {
  if (typeof ifNoneMatch !== 'string') return false
  const bare = etag.replace(/^W\//, '')
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim()
    return t === '*' || t.replace(/^W\//, '') === bare
  })
}

/**
 * Sets the validators and caching headers of a content answer, and says whether the client's copy
 * is current (the caller then answers 304 without a body). Only an answer that is the same for
 * every reader (public, pinned, naming no one) does without `Vary` on the credential header.
 */
export function applyContentCaching(reply: FastifyReply, content: CachedContent): boolean {
  reply.header('cache-control', cacheControlOf(content))
  if (content.secretUrl) return false
  reply.header('etag', content.etag)
  if (!(content.publicView && content.pinned && !content.personal)) reply.header('vary', content.credential)
  return etagMatches(reply.request.headers['if-none-match'], content.etag)
}
