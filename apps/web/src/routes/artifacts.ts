import { createHash } from 'node:crypto'
import { type ContentRead, getArtifact, getContent } from '@quire/core'
import type { Artifact } from '@quire/core/contract'
import type { Runtime } from '@quire/server'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { webCaller } from '../web-caller.ts'
import {
  type DocumentPages,
  matches,
  type PathRequest,
  refuseArtifact,
  refuseVersion,
  sendRawContent,
  versionOf,
  YEAR_SECONDS,
} from './artifact-http.ts'

/** The artifact named by the path and the version asked for, as the signed-in person (or anonymous) may read them. */
async function load(
  runtime: Runtime,
  request: PathRequest,
  reply: FastifyReply,
): Promise<{ artifact: Artifact; read: ContentRead } | null> {
  const version = versionOf(request.query)
  if (version === null) {
    refuseVersion(request, reply)
    return null
  }
  const caller = webCaller(request)
  const { owner, project, slug } = request.params
  const artifact = await getArtifact(runtime.deps, caller, { owner, projectSlug: project, slug })
  if (!artifact.ok) {
    refuseArtifact(request, reply, artifact.error)
    return null
  }
  const read = await getContent(runtime.deps, caller, { artifactId: artifact.value.id, version })
  if (!read.ok) {
    refuseArtifact(request, reply, read.error)
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
export function registerArtifactRoutes(
  app: FastifyInstance,
  options: { runtime: Runtime; webUrl: string; documents: DocumentPages },
): void {
  const { runtime, webUrl, documents } = options

  app.get<{ Params: PathRequest['params'] }>('/:owner/:project/:slug', async (request, reply) => {
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
    return documents(reply, read, { artifact, webUrl, visitor })
  })

  app.get<{ Params: PathRequest['params'] }>('/:owner/:project/:slug/raw', async (request, reply) => {
    const loaded = await load(runtime, request, reply)
    if (loaded === null) return reply
    const etag = `"${loaded.read.sha256}"`
    cacheHeaders(reply, loaded.read, etag)
    if (matches(request, etag)) return reply.code(304).send()
    return sendRawContent(reply, loaded.read)
  })
}
