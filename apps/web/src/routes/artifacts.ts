import { createHash } from 'node:crypto'
import { type ContentRead, type Failure, getArtifact, getContent } from '@quire/core'
import type { Artifact } from '@quire/core/contract'
import type { Runtime } from '@quire/server'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { LRUCache } from 'lru-cache'
import { artifactPage } from '../pages/artifact.ts'
import type { SafeHtml } from '../pages/html.ts'
import { sendFailure } from '../plugins/problem.ts'
import { contentSecurityPolicy } from '../plugins/security-headers.ts'
import { renderArtifact } from '../render/index.ts'
import { webCaller } from '../web-caller.ts'

interface ArtifactPathParams {
  readonly owner: string
  readonly project: string
  readonly slug: string
}

const YEAR_SECONDS = 31_536_000

/** A rendered version: the same content and type always render the same, so it is kept by hash. */
interface Rendered {
  readonly body: SafeHtml
  readonly summary: string
}

/**
 * Rendered versions by content hash and type, bounded by their size: a hot document is rendered
 * once per process, and the cache never holds more than `maxBytes` of markup.
 */
function renderCache(maxBytes: number) {
  const cache = new LRUCache<string, Rendered>({ maxSize: maxBytes, sizeCalculation: (r) => Math.max(1, r.body.text.length * 2) })
  return (type: Artifact['type'], sha256: string, content: string): Rendered => {
    const key = `${type}:${sha256}`
    const hit = cache.get(key)
    if (hit) return hit
    const rendered = renderArtifact({ type, content })
    const entry = { body: rendered.html, summary: rendered.description ?? '' }
    cache.set(key, entry)
    return entry
  }
}

/** `?version=N`: a positive whole number, or absent (the latest); anything else is refused. */
function versionOf(query: unknown): number | undefined | null {
  const raw = (query as { version?: unknown } | undefined)?.version
  if (raw === undefined) return undefined
  return typeof raw === 'string' && /^[1-9]\d{0,9}$/.test(raw) && Number(raw) <= 2_147_483_647 ? Number(raw) : null
}

/** Whether the request's `If-None-Match` names this ETag (weak comparison, as RFC 9110 asks for GET). */
function matches(request: FastifyRequest, etag: string): boolean {
  const header = request.headers['if-none-match']
  if (!header) return false
  const bare = etag.replace(/^W\//, '')
  return header === '*' || header.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === bare)
}

/** A page or raw read that failed, as a page for a person (a problem for a script). */
function refuse(request: FastifyRequest, reply: FastifyReply, failure: Failure): FastifyReply {
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

/** The artifact named by the path and the version asked for, as the signed-in person (or anonymous) may read them. */
async function load(
  runtime: Runtime,
  request: FastifyRequest<{ Params: ArtifactPathParams }>,
  reply: FastifyReply,
): Promise<{ artifact: Artifact; read: ContentRead } | null> {
  const version = versionOf(request.query)
  if (version === null) {
    sendFailure(request, reply, {
      code: 'validation_failed',
      title: 'No such version',
      message: '`version` must be a version number (1, 2, …).',
    })
    return null
  }
  const caller = webCaller(request)
  const { owner, project, slug } = request.params
  const artifact = await getArtifact(runtime.deps, caller, { owner, projectSlug: project, slug })
  if (!artifact.ok) {
    refuse(request, reply, artifact.error)
    return null
  }
  const read = await getContent(runtime.deps, caller, { artifactId: artifact.value.id, version })
  if (!read.ok) {
    refuse(request, reply, read.error)
    return null
  }
  return { artifact: artifact.value, read: read.value }
}

/**
 * Caching of a version's page or raw content. A pinned version never changes: a strong ETag (its
 * content hash), kept a year, `public` only when anyone may read the artifact. The latest
 * revalidates every time (`no-cache`) with an ETag that changes with what the page shows.
 */
function cacheHeaders(reply: FastifyReply, read: ContentRead, etag: string): void {
  const scope = read.publicView ? 'public' : 'private'
  reply.header('etag', etag)
  reply.header('cache-control', read.pinned ? `${scope}, max-age=${YEAR_SECONDS}, immutable` : `${scope}, no-cache`)
  if (!read.publicView) reply.header('vary', 'Cookie')
}

/** `/:owner/:project/:slug` (the artifact's page) and `…/raw` (its content as plain text). */
export function registerArtifactRoutes(app: FastifyInstance, options: { runtime: Runtime; webUrl: string }): void {
  const { runtime, webUrl } = options
  const rendered = renderCache(64 * 1024 * 1024)
  const documentPolicy = contentSecurityPolicy({ remoteImages: true })

  app.get<{ Params: ArtifactPathParams }>('/:owner/:project/:slug', async (request, reply) => {
    const loaded = await load(runtime, request, reply)
    if (loaded === null) return reply
    const { artifact, read } = loaded
    // A pinned page is the same for every reader (no name in its header), so it can be cached;
    // the latest shows who is signed in, and its ETag says which version for whom.
    const visitor = read.pinned || !request.session ? null : { email: request.session.user.email, username: request.session.user.username }
    const etag = read.pinned
      ? `"${read.sha256}"`
      : `W/"${createHash('sha256')
          .update(`${read.sha256}\n${artifact.updatedAt}\n${artifact.title}\n${artifact.description}\n${visitor?.email ?? ''}`)
          .digest('base64url')
          .slice(0, 27)}"`
    cacheHeaders(reply, read, etag)
    if (matches(request, etag)) return reply.code(304).send()
    const { body, summary } = rendered(artifact.type, read.sha256, read.content.content)
    return reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', documentPolicy)
      .send(
        artifactPage({
          artifact,
          versionNumber: read.versionNumber,
          pinned: read.pinned,
          size: read.content.size,
          createdAt: read.content.createdAt,
          body,
          summary,
          webUrl,
          visitor,
        }),
      )
  })

  app.get<{ Params: ArtifactPathParams }>('/:owner/:project/:slug/raw', async (request, reply) => {
    const loaded = await load(runtime, request, reply)
    if (loaded === null) return reply
    const { read } = loaded
    cacheHeaders(reply, read, `"${read.sha256}"`)
    if (matches(request, `"${read.sha256}"`)) return reply.code(304).send()
    // Text, never a document of this origin: whatever the artifact's type, nothing in it runs.
    return reply
      .type('text/plain; charset=utf-8')
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', "default-src 'none'; sandbox")
      .send(read.content.content)
  })
}
