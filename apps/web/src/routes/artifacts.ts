import { createHash } from 'node:crypto'
import { type ContentRead, getArtifact, getContent } from '@quire/core'
import type { Artifact } from '@quire/core/contract'
import type { Runtime } from '@quire/server'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { webCaller } from '../web-caller.ts'
import {
  cacheHeaders,
  type DocumentPages,
  matches,
  type PathRequest,
  refuseArtifact,
  refuseVersion,
  sendRawContent,
  versionOf,
  visitorOf,
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
    const visitor = read.pinned ? null : visitorOf(request)
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
