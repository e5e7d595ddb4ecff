import type { IncomingHttpHeaders } from 'node:http'
import { appendVersion, diffVersions, getContent, listVersions, ok, restoreVersion } from '@quire/core'
import { type Handler, idempotencyKey, reply, written } from '../handler.ts'

type VersionOps = 'appendVersion' | 'restoreVersion' | 'getContent' | 'listVersions' | 'diffVersions'

const YEAR = 31536000
/**
 * How long a shared cache (a CDN, a proxy) may serve a public pinned version without asking us
 * again. The bytes never change, but who may read them does: after the owner makes an artifact
 * private (or deletes it), a shared cache that stored it while public goes on serving it for at
 * most this long, then must revalidate (s-maxage implies proxy-revalidate) and gets the 404.
 * Browsers keep `max-age` (a year, immutable): a person's own cache holds only what they could
 * already read. A minute keeps that window short, while a hot version still costs each cache one
 * bodiless 304 per minute.
 */
const SHARED_CACHE_SECONDS = 60

/** True when `If-None-Match` lists this entity tag (or `*`); weak comparison, as RFC 9110 asks for GET. */
function matches(headers: IncomingHttpHeaders, etag: string): boolean {
  const header = headers['if-none-match']
  if (typeof header !== 'string') return false
  const bare = etag.replace(/^W\//, '')
  return header.split(',').some((tag) => {
    const t = tag.trim()
    return t === '*' || t.replace(/^W\//, '') === bare
  })
}

export const versionHandlers: { [K in VersionOps]: Handler<K> } = {
  appendVersion: async ({ params, body }, { deps, caller, headers }) =>
    written(await appendVersion(deps, caller, params.artifactId, body, idempotencyKey(headers))),
  restoreVersion: async ({ params, body }, { deps, caller, headers }) =>
    written(await restoreVersion(deps, caller, params.artifactId, params.versionNumber, body, idempotencyKey(headers))),
  getContent: async ({ params, query }, { deps, caller, headers }) => {
    const read = await getContent(deps, caller, { artifactId: params.artifactId, version: query.version })
    if (!read.ok) return read
    const { content, sha256, versionNumber, pinned, publicView } = read.value
    // A pinned version never changes: its SHA-256 is a strong validator and a browser may keep it
    // for a year; shared caches only briefly, as access may change. The head moves, so its tag
    // also names the version and it must be revalidated.
    const etag = pinned ? `"${sha256}"` : `"${sha256}.${versionNumber}"`
    const cacheControl = pinned
      ? publicView
        ? `public, max-age=${YEAR}, s-maxage=${SHARED_CACHE_SECONDS}, immutable`
        : `private, max-age=${YEAR}, immutable`
      : `${publicView ? 'public' : 'private'}, no-cache`
    const replyHeaders = { etag, 'cache-control': cacheControl, vary: 'Authorization' }
    if (matches(headers, etag)) return ok({ body: null, status: 304, headers: replyHeaders })
    return ok({ body: content, headers: replyHeaders })
  },
  listVersions: async ({ params, query }, { deps, caller }) => reply(await listVersions(deps, caller, params.artifactId, query)),
  diffVersions: async ({ params, query }, { deps, caller }) =>
    reply(await diffVersions(deps, caller, { artifactId: params.artifactId, from: query.from, to: query.to })),
}
