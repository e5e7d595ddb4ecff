import { createHash } from 'node:crypto'
import type { Artifact, VersionDiff } from '@quire/core/contract'
import { artifactParams, diffPage, historyPage, ownerActionsOf, parseUnifiedDiff, webRoutes } from '@quire/pages'
import type { Runtime } from '@quire/runtime'
import { sendFailure, visitorOf } from '@quire/web-http'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { operate } from '../operate.ts'
import { loadPermissions } from './artifact-permissions.ts'
import { refuseArtifact } from './artifact-refusals.ts'
import type { ArtifactPathParams, PathRequest } from './artifact-request.ts'
import { pageCaching, weakEtag } from './page-caching.ts'
import { versionNumber } from './version-query.ts'

/** Versions on one page of history. */
const HISTORY_PAGE_SIZE = 50
/** Diff lines rendered at most: beyond this the page stays fast and links to the whole text. */
const DIFF_LINE_LIMIT = 5_000

/** The artifact named by the path, as the signed-in person (or anonymous) may read it; null once refused. */
async function loadArtifact(runtime: Runtime, request: PathRequest, reply: FastifyReply): Promise<Artifact | null> {
  const { owner, project, slug } = request.params
  const params = { owner, projectSlug: project, slug }
  const artifact = await operate(runtime, request, 'resolveArtifactPath', { params, query: undefined, body: undefined })
  if (artifact.ok) return artifact.value.value
  refuseArtifact(request, reply, artifact.error)
  return null
}

/**
 * Sends a page by the one caching rule (`pageCaching`) with a weak ETag of what it shows, or a 304
 * when the browser already has it.
 */
function sendPage(
  reply: FastifyReply,
  page: string,
  caching: { readonly pinned: boolean; readonly publicView: boolean; readonly personal: boolean },
  etag = weakEtag(page),
): FastifyReply {
  if (pageCaching(reply, { etag, ...caching })) return reply.code(304).send()
  return reply.type('text/html; charset=utf-8').send(page)
}

/** `GET …/history`: one page of versions, newest first. */
async function showHistory(runtime: Runtime, request: PathRequest, reply: FastifyReply): Promise<FastifyReply> {
  const cursor = (request.query as { cursor?: unknown } | undefined)?.cursor
  if (cursor !== undefined && typeof cursor !== 'string')
    return sendFailure(request, reply, {
      code: 'invalid_cursor',
      title: 'No such page',
      message: 'The cursor is not one this service issued.',
    })
  const permitted = await loadPermissions(runtime, request, reply)
  if (permitted === null) return reply
  const { artifact, may } = permitted
  const query = cursor === undefined ? { limit: HISTORY_PAGE_SIZE } : { limit: HISTORY_PAGE_SIZE, cursor }
  const listed = await operate(runtime, request, 'listVersions', { params: { artifactId: artifact.id }, query, body: undefined })
  if (!listed.ok) return refuseArtifact(request, reply, listed.error)
  const versions = listed.value.value
  // The owner's controls, from the policy's answers; their restore forms carry the session's CSRF token.
  const actions = request.session ? ownerActionsOf(may) : null
  const visitor = visitorOf(request)
  const page = historyPage({
    artifact,
    versions: versions.items,
    nextCursor: versions.nextCursor,
    paged: cursor !== undefined,
    visitor,
    owner: actions && request.session ? { actions, csrfToken: request.session.csrfToken } : null,
  })
  return sendPage(reply, page, { pinned: false, publicView: artifact.access.publicView, personal: visitor !== null })
}

/** The two versions a diff compares, from the query: both named (pinned), or defaulted from the latest. */
interface DiffRange {
  readonly from: number
  readonly to: number
  /** Both versions were named: the diff can never change. */
  readonly pinned: boolean
}

/**
 * Reads `from` and `to`: each a version number or absent (from = latest − 1, to = latest); null
 * once refused with a 400 page.
 */
function diffRange(request: FastifyRequest, reply: FastifyReply, artifact: Artifact): DiffRange | null {
  const query = (request.query ?? {}) as { from?: unknown; to?: unknown }
  const from = query.from === undefined ? Math.max(1, artifact.latestVersion - 1) : versionNumber(query.from)
  const to = query.to === undefined ? artifact.latestVersion : versionNumber(query.to)
  if (from === null || to === null) {
    sendFailure(request, reply, {
      code: 'validation_failed',
      title: 'No such version',
      message: '`from` and `to` must be version numbers (1, 2, …).',
    })
    return null
  }
  const missing = [from, to].find((n) => n > artifact.latestVersion)
  if (missing !== undefined) {
    sendFailure(request, reply, {
      code: 'not_found',
      title: 'No such version',
      message: `Version ${missing} does not exist (latest is ${artifact.latestVersion}).`,
    })
    return null
  }
  return { from, to, pinned: query.from !== undefined && query.to !== undefined }
}

/** The artifact and the diff the path and query ask for, through the API's bindings; null once refused. */
async function loadDiff(
  runtime: Runtime,
  request: PathRequest,
  reply: FastifyReply,
): Promise<{ artifact: Artifact; range: DiffRange; diff: VersionDiff } | null> {
  const artifact = await loadArtifact(runtime, request, reply)
  if (artifact === null) return null
  const range = diffRange(request, reply, artifact)
  if (range === null) return null
  const query = { from: range.from, to: range.to }
  const diff = await operate(runtime, request, 'diffVersions', { params: { artifactId: artifact.id }, query, body: undefined })
  if (!diff.ok) {
    refuseArtifact(request, reply, diff.error)
    return null
  }
  return { artifact, range, diff: diff.value.value }
}

/**
 * The strong ETag of a diff between two named versions: the artifact, both numbers and the diff
 * text, hashed. Versions never change, so neither does it.
 */
function diffEtag(diff: VersionDiff, suffix: string): string {
  const hash = createHash('sha256').update(`${diff.artifactId}\n${diff.fromVersion}\n${diff.toVersion}\n${suffix}\n${diff.diff}`)
  return `"${hash.digest('base64url').slice(0, 43)}"`
}

/** `GET …/diff`: the inline diff page. */
async function showDiff(runtime: Runtime, request: PathRequest, reply: FastifyReply): Promise<FastifyReply> {
  const loaded = await loadDiff(runtime, request, reply)
  if (loaded === null) return reply
  const { artifact, range, diff } = loaded
  const view = {
    artifact,
    diff,
    lineLimit: DIFF_LINE_LIMIT,
    patchHref: webRoutes.diffPatch.path(artifactParams(artifact), { from: diff.fromVersion, to: diff.toVersion }),
  }
  const { publicView } = artifact.access
  if (range.pinned) {
    // The same for every reader (no name in its header); its ETag is known before it is rendered.
    const etag = diffEtag(diff, 'page')
    if (pageCaching(reply, { etag, pinned: true, publicView, personal: false })) return reply.code(304).send()
    return reply
      .type('text/html; charset=utf-8')
      .send(diffPage({ ...view, parsed: parseUnifiedDiff(diff.diff, DIFF_LINE_LIMIT), visitor: null }))
  }
  const visitor = visitorOf(request)
  const page = diffPage({ ...view, parsed: parseUnifiedDiff(diff.diff, DIFF_LINE_LIMIT), visitor })
  return sendPage(reply, page, { pinned: false, publicView, personal: visitor !== null })
}

/** `GET …/diff.patch`: the whole unified diff as plain text, which nothing can run. */
async function showPatch(runtime: Runtime, request: PathRequest, reply: FastifyReply): Promise<FastifyReply> {
  const loaded = await loadDiff(runtime, request, reply)
  if (loaded === null) return reply
  const { artifact, range, diff } = loaded
  const caching = { etag: diffEtag(diff, 'patch'), pinned: range.pinned, publicView: artifact.access.publicView, personal: false }
  if (pageCaching(reply, caching)) return reply.code(304).send()
  return reply
    .type('text/plain; charset=utf-8')
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', "default-src 'none'; sandbox")
    .send(diff.diff)
}

/**
 * `/:owner/:project/:slug/history` (every version), `…/diff?from&to` (an inline diff of two) and
 * `…/diff.patch?from&to` (the same as unified diff text), through the API's bindings.
 */
export function registerHistoryRoutes(app: FastifyInstance, options: { runtime: Runtime }): void {
  const { runtime } = options
  app.get<{ Params: ArtifactPathParams }>(webRoutes.history.pattern, (request, reply) => showHistory(runtime, request, reply))
  app.get<{ Params: ArtifactPathParams }>(webRoutes.diff.pattern, (request, reply) => showDiff(runtime, request, reply))
  app.get<{ Params: ArtifactPathParams }>(webRoutes.diffPatch.pattern, (request, reply) => showPatch(runtime, request, reply))
}
