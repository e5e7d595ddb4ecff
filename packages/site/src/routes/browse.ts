import { browseNamespace, type ContentRead, type Failure, identify } from '@quire/core'
import type { Artifact } from '@quire/core/contract'
import { type AuthFailureLimiter, applyContentCaching } from '@quire/http-edge'
import { noticeOf, ownerPage, projectPage, webRoutes } from '@quire/pages'
import type { Runtime } from '@quire/runtime'
import { refuseMissedSecret, sendFailure, tokenCaller, visitorOf, webCaller, webDeps } from '@quire/web-http'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { operate, readContent } from '../operate.ts'
import type { DocumentPages } from './document-pages.ts'
import { sendRawContent } from './raw-content.ts'
import { documentViewOf, refuseVersion, refuseView, versionOf } from './version-query.ts'

/** How many rows a listing page shows. */
const PAGE_SIZE = 50
/** Share-link secrets are short; anything much longer is not one. */
const MAX_TOKEN_LENGTH = 256

/** `?cursor=`: an opaque string, or absent; the use-case checks it and refuses a forged one. */
function cursorOf(query: unknown): string | undefined {
  const raw = (query as { cursor?: unknown } | undefined)?.cursor
  return typeof raw === 'string' && raw.length > 0 ? raw : undefined
}

/**
 * A listing a use-case refused, as the page a person sees. Whether the namespace or project does
 * not exist or the viewer may not see it, the answer is the same 404 (existence never leaks);
 * only a malformed request (a forged cursor) says what was wrong.
 */
function refuseListing(request: FastifyRequest, reply: FastifyReply, failure: Failure | null): FastifyReply {
  if (failure !== null && (failure.code === 'validation_failed' || failure.code === 'invalid_cursor'))
    return sendFailure(request, reply, { code: failure.code, title: 'This page cannot be shown', message: failure.message })
  // The title of the app's own 404, so an owner that does not exist reads like any unknown page.
  return sendFailure(request, reply, {
    code: 'not_found',
    title: 'Page not found',
    message: request.session
      ? 'There is nothing here, or it is not shared with you.'
      : 'There is nothing here, or it is private: sign in with an account that belongs to it.',
  })
}

/** A share link that opens nothing (unknown, revoked, expired): the same 404 as a missing artifact. */
function refuseShareLink(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendFailure(request, reply, {
    code: 'not_found',
    title: 'Not found',
    message: 'There is no artifact here: the link may have been revoked or may have expired. Ask whoever sent it for a new one.',
  })
}

/**
 * Headers of everything under `/s/:token`: the URL is a secret, so nothing may store the answer
 * (the one caching rule's secret URL; refusals are never stored either) and no search engine may
 * list it. (No link followed from it carries it in a Referer: see `@quire/web-http`, secret-urls.ts.)
 */
function secretUrlHeaders(reply: FastifyReply): void {
  applyContentCaching(reply, { secretUrl: true })
  reply.header('x-robots-tag', 'noindex')
}

/** What a live share link opened: the artifact, the version read, the link's role and secret. */
interface Shared {
  readonly artifact: Artifact
  readonly read: ContentRead
  readonly role: 'viewer' | 'editor'
  readonly token: string
}

/**
 * The artifact a share link opens, with the link's role, and the version asked for. Anything but
 * a live share link (an API key pasted into the URL, a revoked or expired link) opens nothing.
 */
async function loadShared(
  runtime: Runtime,
  refusedSecrets: AuthFailureLimiter | null,
  request: FastifyRequest<{ Params: { token: string } }>,
  reply: FastifyReply,
): Promise<Shared | null> {
  const refused = (): null => {
    refuseShareLink(request, reply)
    return null
  }
  // A secret that matched nothing counts against the address (429 past its budget).
  const missed = async (failure: Failure): Promise<null> => {
    await refuseMissedSecret(refusedSecrets, request, failure, () => refuseShareLink(request, reply))
    return null
  }
  const { token } = request.params
  if (token.length === 0 || token.length > MAX_TOKEN_LENGTH) return missed({ code: 'invalid_token', message: 'Not a share link.' })
  const version = versionOf(request.query)
  if (version === null) {
    refuseVersion(request, reply)
    return null
  }
  const caller = tokenCaller(request, token)
  const principal = await identify(webDeps(runtime.deps, request), caller)
  if (!principal.ok && principal.error.code === 'invalid_token') return missed(principal.error)
  if (!principal.ok || principal.value.kind !== 'share_link') return refused()
  const params = { artifactId: principal.value.artifactId }
  const artifact = await operate(runtime, request, 'getArtifact', { params, query: undefined, body: undefined }, { as: caller })
  if (!artifact.ok) return refused()
  const read = await readContent(runtime, request, params.artifactId, version, { as: caller })
  if (!read.ok) {
    if (read.error.code !== 'not_found' || version === undefined) return refused()
    sendFailure(request, reply, { code: 'not_found', title: 'No such version', message: read.error.message })
    return null
  }
  return { artifact: artifact.value.value, read: read.value, role: principal.value.role, token }
}

/** `/:owner` (a namespace's projects), `/:owner/:project` (a project's artifacts), `/s/:token` (a share link). */
export function registerBrowseRoutes(
  app: FastifyInstance,
  options: {
    runtime: Runtime
    webUrl: string
    documents: DocumentPages
    /** Counts share links that match nothing per client address (null: not counted). */
    refusedSecrets: AuthFailureLimiter | null
  },
): void {
  const { runtime, webUrl, documents, refusedSecrets } = options

  app.get<{ Params: { token: string } }>(webRoutes.sharedArtifact.pattern, async (request, reply) => {
    secretUrlHeaders(reply)
    const tab = documentViewOf(request.query)
    if (tab === null) return refuseView(request, reply)
    const loaded = await loadShared(runtime, refusedSecrets, request, reply)
    if (loaded === null) return reply
    const { artifact, read, role, token } = loaded
    return documents(reply, read, { artifact, webUrl, visitor: visitorOf(request), shareLink: { token, role }, tab }, null)
  })

  app.get<{ Params: { token: string } }>(webRoutes.sharedRaw.pattern, async (request, reply) => {
    secretUrlHeaders(reply)
    const loaded = await loadShared(runtime, refusedSecrets, request, reply)
    if (loaded === null) return reply
    return sendRawContent(reply, loaded.read)
  })

  app.get<{ Params: { owner: string } }>(webRoutes.owner.pattern, async (request, reply) => {
    const cursor = cursorOf(request.query)
    const listing = await browseNamespace(webDeps(runtime.deps, request), webCaller(request), { owner: request.params.owner }, page(cursor))
    if (!listing.ok) return refuseListing(request, reply, listing.error)
    const { owner, artifacts } = listing.value
    // A member sees the namespace's projects (and its recent artifacts); anyone else its public artifacts.
    const projects = owner.member
      ? await operate(runtime, request, 'listWorkspaceProjects', {
          params: { workspaceId: owner.member.workspaceId },
          query: page(cursor),
          body: undefined,
        })
      : null
    if (projects && !projects.ok) return refuseListing(request, reply, projects.error)
    return sendListing(
      reply,
      ownerPage({ owner, projects: projects?.value.value ?? null, artifacts, cursor, visitor: visitorOf(request) }),
      owner.member === null,
    )
  })

  app.get<{ Params: { owner: string; project: string } }>(webRoutes.project.pattern, async (request, reply) => {
    const cursor = cursorOf(request.query)
    const { owner, project: projectSlug } = request.params
    const listing = await browseNamespace(webDeps(runtime.deps, request), webCaller(request), { owner, projectSlug }, page(cursor))
    if (!listing.ok) return refuseListing(request, reply, listing.error)
    const { project, artifacts } = listing.value
    if (project === null) return refuseListing(request, reply, null)
    return sendListing(
      reply,
      projectPage({ owner: listing.value.owner, project, artifacts, cursor, visitor: visitorOf(request), notice: noticeOf(request.query) }),
      listing.value.owner.member === null,
    )
  })
}

/** The query of one listing page. */
function page(cursor: string | undefined): { limit: number; cursor?: string } {
  return { limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) }
}

/**
 * A listing page. What a member sees depends on who asks, so no cache keeps it; a visitor's
 * listing of public artifacts is the same for every visitor, but a change of access must show at
 * once, so it is only revalidated.
 */
function sendListing(reply: FastifyReply, page: string, publicListing: boolean): FastifyReply {
  return reply
    .type('text/html; charset=utf-8')
    .header('cache-control', publicListing ? 'private, no-cache' : 'private, no-store')
    .send(page)
}
