import { createHash } from 'node:crypto'
import type { ArtifactPermissions, ContentRead } from '@quire/core'
import type { Artifact } from '@quire/core/contract'
import { noticeOf, ownerActionsKey, ownerActionsOf, webRoutes } from '@quire/pages'
import type { Runtime } from '@quire/runtime'
import { visitorOf } from '@quire/web-http'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { readContent } from '../operate.ts'
import { loadPermissions } from './artifact-permissions.ts'
import { refuseArtifact } from './artifact-refusals.ts'
import type { PathRequest } from './artifact-request.ts'
import type { DocumentPages } from './document-pages.ts'
import { pageCaching } from './page-caching.ts'
import { sendRawContent } from './raw-content.ts'
import { documentViewOf, refuseVersion, refuseView, versionOf } from './version-query.ts'

/**
 * The artifact named by the path and the version asked for, as the signed-in person (or anonymous)
 * may read them, and what else the policy lets them do with it (the owner's controls).
 */
async function load(
  runtime: Runtime,
  request: PathRequest,
  reply: FastifyReply,
): Promise<{ artifact: Artifact; read: ContentRead; may: ArtifactPermissions['may'] } | null> {
  const version = versionOf(request.query)
  if (version === null) {
    refuseVersion(request, reply)
    return null
  }
  const permitted = await loadPermissions(runtime, request, reply)
  if (permitted === null) return null
  const { artifact, may } = permitted
  const read = await readContent(runtime, request, artifact.id, version)
  if (!read.ok) {
    refuseArtifact(request, reply, read.error)
    return null
  }
  return { artifact, read: read.value, may }
}

/** `/:owner/:project/:slug` (the artifact's page) and `…/raw` (its content as plain text). */
export function registerArtifactRoutes(
  app: FastifyInstance,
  options: { runtime: Runtime; webUrl: string; documents: DocumentPages },
): void {
  const { runtime, webUrl, documents } = options

  app.get<{ Params: PathRequest['params'] }>(webRoutes.artifact.pattern, async (request, reply) => {
    const tab = documentViewOf(request.query)
    if (tab === null) return refuseView(request, reply)
    const loaded = await load(runtime, request, reply)
    if (loaded === null) return reply
    const { artifact, read } = loaded
    // A pinned page is the same for every reader (no name in its header, no owner's controls), so
    // it can be cached; the latest shows who is signed in and what they may do, and its ETag says
    // which version for whom (the CSRF token of the header's sign-out form names the session).
    const visitor = read.pinned ? null : visitorOf(request)
    const ownerActions = read.pinned ? null : ownerActionsOf(loaded.may)
    const notice = read.pinned ? null : noticeOf(request.query)
    const etag = read.pinned
      ? `"${read.sha256}"`
      : `W/"${createHash('sha256')
          .update(
            `${read.sha256}\n${artifact.updatedAt}\n${artifact.title}\n${artifact.description}\n${visitor?.csrfToken ?? ''}\n${ownerActionsKey(ownerActions)}\n${notice ?? ''}`,
          )
          .digest('base64url')
          .slice(0, 27)}"`
    const personal = visitor !== null || ownerActions !== null
    const caching = { etag, pinned: read.pinned, publicView: read.publicView, personal }
    return documents(reply, read, { artifact, webUrl, visitor, ownerActions, notice, tab }, caching)
  })

  app.get<{ Params: PathRequest['params'] }>(webRoutes.artifactRaw.pattern, async (request, reply) => {
    const loaded = await load(runtime, request, reply)
    if (loaded === null) return reply
    const { read } = loaded
    if (pageCaching(reply, { etag: `"${read.sha256}"`, pinned: read.pinned, publicView: read.publicView, personal: false }))
      return reply.code(304).send()
    return sendRawContent(reply, read)
  })
}
