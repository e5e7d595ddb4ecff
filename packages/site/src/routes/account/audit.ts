import { type AuditAction, auditActions, type Outcome, type Result, workspaceActions } from '@quire/core'
import type { AuditEvent, PageOf } from '@quire/core/contract'
import { type AuditFilter, type AuditSubject, auditPage, webRoutes } from '@quire/pages'
import type { Runtime } from '@quire/runtime'
import { sendFailure, visitorFrom } from '@quire/web-http'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { operate } from '../../operate.ts'
import type { ArtifactPathParams } from '../artifact-request.ts'
import { refuse } from './refusals.ts'
import { cursorOf, single } from './request-values.ts'
import { sendPage, signedIn } from './signed-in.ts'
import { workspaceOrRefuse } from './workspaces.ts'

/** Events on one page unless `?limit=` asks for another size (1–100, as the operations allow). */
const AUDIT_PAGE_SIZE = 50

/** The events an artifact's trail holds: the artifact's own and its share links'. */
const artifactActions = workspaceActions.filter((a) => a.startsWith('artifact.') || a.startsWith('share_link.'))

/** One page of a trail from its operation: a page size, where it starts, and one kind of event or all. */
type AuditSource = (query: { limit: number; cursor?: string; action?: AuditAction }) => Promise<Result<Outcome<PageOf<AuditEvent>>>>

/** What the query asks for: the filter and where the page starts. */
interface AuditRequest extends AuditFilter {
  readonly cursor: string | undefined
}

/** Reads `action`, `limit` and `cursor`; null once refused with a 400 (nothing here is shown back). */
function auditRequest(request: FastifyRequest, reply: FastifyReply, actions: readonly string[]): AuditRequest | null {
  const action = single(request.query, 'action')
  const limit = single(request.query, 'limit')
  if (action === null || (action !== undefined && action !== '' && !actions.includes(action))) {
    sendFailure(request, reply, { code: 'validation_failed', title: 'No such action', message: 'Choose an action from the list.' })
    return null
  }
  if (limit === null || (limit !== undefined && limit !== '' && !/^[1-9]\d{0,2}$/.test(limit))) {
    sendFailure(request, reply, {
      code: 'validation_failed',
      title: 'Not a page size',
      message: '`limit` must be a whole number from 1 to 100.',
    })
    return null
  }
  const cursor = cursorOf(request, reply)
  if (cursor === null) return null
  return { action: action || null, limit: limit ? Number(limit) : null, cursor }
}

/** Reads the trail and sends the page; a refusal of the operation (not allowed, not found) is its failure page. */
async function showTrail(
  request: FastifyRequest,
  reply: FastifyReply,
  trail: {
    readonly actions: readonly string[]
    readonly source: AuditSource
    /** What the page is about, once the operation has admitted the person. */
    readonly subject: () => Promise<AuditSubject | null>
  },
): Promise<FastifyReply> {
  const session = signedIn(request, reply)
  if (!session) return reply
  const asked = auditRequest(request, reply, trail.actions)
  if (asked === null) return reply
  const window = await trail.source({
    limit: asked.limit ?? AUDIT_PAGE_SIZE,
    ...(asked.cursor === undefined ? {} : { cursor: asked.cursor }),
    ...(asked.action === null ? {} : { action: asked.action as AuditAction }),
  })
  if (!window.ok) return refuse(request, reply, window.error)
  const subject = await trail.subject()
  if (subject === null) return reply
  const page = auditPage({
    subject,
    actions: trail.actions,
    filter: { action: asked.action, limit: asked.limit },
    events: window.value.value.items,
    nextCursor: window.value.value.nextCursor,
    paged: asked.cursor !== undefined,
    visitor: visitorFrom(session),
  })
  return sendPage(reply, page)
}

/** The audit trails of the account, of a workspace and of an artifact: one page template, three operations. */
export function registerAuditRoutes(app: FastifyInstance, runtime: Runtime): void {
  app.get(webRoutes.accountAudit.pattern, (request, reply) =>
    showTrail(request, reply, {
      actions: auditActions,
      source: (query) => operate(runtime, request, 'listAuditEvents', { params: undefined, query, body: undefined }),
      subject: async () => ({ kind: 'account' }),
    }),
  )

  app.get<{ Params: { workspaceId: string } }>(webRoutes.workspaceAudit.pattern, (request, reply) => {
    const { workspaceId } = request.params
    return showTrail(request, reply, {
      actions: workspaceActions,
      source: (query) => operate(runtime, request, 'listWorkspaceAuditEvents', { params: { workspaceId }, query, body: undefined }),
      subject: async () => {
        const workspace = await workspaceOrRefuse(runtime, request, reply, workspaceId)
        return workspace && { kind: 'workspace', workspace }
      },
    })
  })

  app.get<{ Params: ArtifactPathParams }>(webRoutes.artifactAudit.pattern, async (request, reply) => {
    if (!signedIn(request, reply)) return reply
    const { owner, project, slug } = request.params
    // The artifact by its path first: one the person may not see is the 404 a missing one is.
    const artifact = await operate(runtime, request, 'resolveArtifactPath', {
      params: { owner, projectSlug: project, slug },
      query: undefined,
      body: undefined,
    })
    if (!artifact.ok) return refuse(request, reply, artifact.error)
    const found = artifact.value.value
    return showTrail(request, reply, {
      actions: artifactActions,
      source: (query) =>
        operate(runtime, request, 'listAuditEvents', { params: undefined, query: { ...query, artifactId: found.id }, body: undefined }),
      subject: async () => ({ kind: 'artifact', artifact: found }),
    })
  })
}
