import { ok, type Result, unseen } from '@quire/core'
import type { Workspace } from '@quire/core/contract'
import { httpStatusOf } from '@quire/http-edge'
import {
  type FormState,
  managesWorkspace,
  myInvitationsPage,
  noticeKey,
  webRoutes,
  workspacePage,
  workspaceSettingsPath,
  workspacesPage,
} from '@quire/pages'
import type { Runtime } from '@quire/runtime'
import { visitorFrom } from '@quire/web-http'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { operate } from '../../operate.ts'
import { redirectWithNotice } from './notice-redirect.ts'
import { isFormRefusal, refuse, refusedForm } from './refusals.ts'
import { cursorOf, field, idempotencyKeyOf, newFormKey, pageQuery, single } from './request-values.ts'
import { sendPage, signedIn } from './signed-in.ts'

/** Rows of each list on these pages (the workspace page shows the first page of each of its lists). */
const PAGE_SIZE = 100
/** Pages of the person's workspaces looked through to find one by id. */
const WORKSPACE_PAGES = 20

type WorkspaceParams = { workspaceId: string }
type InvitationParams = { invitationId: string }

const workspaceRules = {
  name: { path: '/body/name', rule: 'Give the workspace a name of 1–100 characters.' },
  slug: { path: '/body/slug', rule: 'Use 1–64 lowercase letters, digits and inner hyphens (no hyphen first or last).' },
}

const invitationRules = {
  email: { path: '/body/email', rule: 'Enter an email address, like name@example.com.' },
  role: { path: '/body/role', rule: 'Choose member or admin.' },
}

/**
 * One of the person's workspaces by id, with their role in it, from the list they belong to
 * (there is no operation that reads one workspace); null when they do not belong to it.
 */
async function findWorkspace(runtime: Runtime, request: FastifyRequest, workspaceId: string): Promise<Result<Workspace | null>> {
  let cursor: string | undefined
  for (let i = 0; i < WORKSPACE_PAGES; i++) {
    const page = await operate(runtime, request, 'listWorkspaces', {
      params: undefined,
      query: pageQuery(PAGE_SIZE, cursor),
      body: undefined,
    })
    if (!page.ok) return page
    const found = page.value.value.items.find((w) => w.id === workspaceId)
    if (found) return ok(found)
    if (page.value.value.nextCursor === null) return ok(null)
    cursor = page.value.value.nextCursor
  }
  return ok(null)
}

/** A workspace the person belongs to, or null once refused with the same 404 a missing one gets. */
export async function workspaceOrRefuse(
  runtime: Runtime,
  request: FastifyRequest,
  reply: FastifyReply,
  workspaceId: string,
): Promise<Workspace | null> {
  const workspace = await findWorkspace(runtime, request, workspaceId)
  if (!workspace.ok) {
    refuse(request, reply, workspace.error)
    return null
  }
  if (workspace.value === null) {
    refuse(request, reply, { code: 'not_found', message: unseen.workspace })
    return null
  }
  return workspace.value
}

/** `/settings/workspaces`, with the create form as refused (or fresh). */
async function showWorkspaces(
  runtime: Runtime,
  request: FastifyRequest,
  reply: FastifyReply,
  refused: { form: FormState; status: number } | null,
) {
  const session = signedIn(request, reply, webRoutes.workspaces.path())
  if (!session) return reply
  const cursor = refused ? undefined : cursorOf(request, reply)
  if (cursor === null) return reply
  const workspaces = await operate(runtime, request, 'listWorkspaces', {
    params: undefined,
    query: pageQuery(PAGE_SIZE, cursor),
    body: undefined,
  })
  if (!workspaces.ok) return refuse(request, reply, workspaces.error)
  const page = workspacesPage({
    workspaces: workspaces.value.value,
    cursor,
    visitor: visitorFrom(session),
    csrfToken: session.csrfToken,
    notice: refused ? null : noticeKey(single(request.query, 'notice')),
    form: refused?.form ?? null,
    idempotencyKey: newFormKey(),
  })
  return sendPage(reply, page, refused?.status ?? 200)
}

/**
 * `/settings/workspaces/:workspaceId`: members first (the operation refuses anyone who is not
 * one, with the 404 a missing workspace gets), then the projects and, for owners and admins, the
 * invitations, with the invitation form as refused (or fresh).
 */
async function showWorkspace(
  runtime: Runtime,
  request: FastifyRequest<{ Params: WorkspaceParams }>,
  reply: FastifyReply,
  refused: { form: FormState; status: number } | null,
) {
  const { workspaceId } = request.params
  const session = signedIn(request, reply, workspaceSettingsPath(workspaceId))
  if (!session) return reply
  const first = { params: { workspaceId }, query: { limit: PAGE_SIZE }, body: undefined }
  const members = await operate(runtime, request, 'listWorkspaceMembers', first)
  if (!members.ok) return refuse(request, reply, members.error)
  const workspace = await workspaceOrRefuse(runtime, request, reply, workspaceId)
  if (workspace === null) return reply
  const [projects, invitations] = await Promise.all([
    operate(runtime, request, 'listWorkspaceProjects', first),
    managesWorkspace(workspace) ? operate(runtime, request, 'listInvitations', first) : null,
  ])
  if (!projects.ok) return refuse(request, reply, projects.error)
  if (invitations && !invitations.ok) return refuse(request, reply, invitations.error)
  const page = workspacePage({
    workspace,
    members: members.value.value,
    projects: projects.value.value,
    invitations: invitations ? invitations.value.value : null,
    visitor: visitorFrom(session),
    csrfToken: session.csrfToken,
    notice: refused ? null : noticeKey(single(request.query, 'notice')),
    form: refused?.form ?? null,
    idempotencyKey: newFormKey(),
  })
  return sendPage(reply, page, refused?.status ?? 200)
}

/** `/settings/invitations`: the invitations addressed to the person. */
async function showMyInvitations(runtime: Runtime, request: FastifyRequest, reply: FastifyReply) {
  const session = signedIn(request, reply, webRoutes.invitations.path())
  if (!session) return reply
  const cursor = cursorOf(request, reply)
  if (cursor === null) return reply
  const invitations = await operate(runtime, request, 'listMyInvitations', {
    params: undefined,
    query: pageQuery(PAGE_SIZE, cursor),
    body: undefined,
  })
  if (!invitations.ok) return refuse(request, reply, invitations.error)
  const page = myInvitationsPage({
    invitations: invitations.value.value,
    cursor,
    email: session.user.email,
    visitor: visitorFrom(session),
    csrfToken: session.csrfToken,
    notice: noticeKey(single(request.query, 'notice')),
  })
  return sendPage(reply, page)
}

/** Workspaces (list, create, one workspace's members, projects and invitations) and the invitations addressed to the person. */
export function registerWorkspaceRoutes(app: FastifyInstance, runtime: Runtime): void {
  app.get(webRoutes.workspaces.pattern, (request, reply) => showWorkspaces(runtime, request, reply, null))

  app.post(webRoutes.workspaces.pattern, async (request, reply) => {
    if (!signedIn(request, reply, webRoutes.workspaces.path())) return reply
    const values = { name: field(request.body, 'name'), slug: field(request.body, 'slug').trim() }
    const created = await operate(
      runtime,
      request,
      'createWorkspace',
      { params: undefined, query: undefined, body: values },
      { idempotencyKey: idempotencyKeyOf(request.body) },
    )
    if (created.ok)
      return redirectWithNotice(reply, webRoutes.workspace.path({ workspaceId: created.value.value.id }, { notice: 'workspace-created' }))
    if (!isFormRefusal(created.error)) return refuse(request, reply, created.error)
    const form = refusedForm(created.error, values, workspaceRules, { slug_taken: 'slug' })
    return showWorkspaces(runtime, request, reply, { form, status: httpStatusOf(created.error.code) })
  })

  app.get<{ Params: WorkspaceParams }>(webRoutes.workspace.pattern, (request, reply) => showWorkspace(runtime, request, reply, null))

  app.post<{ Params: WorkspaceParams }>(webRoutes.workspaceInvitations.pattern, async (request, reply) => {
    const { workspaceId } = request.params
    if (!signedIn(request, reply, workspaceSettingsPath(workspaceId))) return reply
    const values = { email: field(request.body, 'email').trim(), role: field(request.body, 'role') || 'member' }
    const created = await operate(
      runtime,
      request,
      'createInvitation',
      // The role as chosen: `operate` checks it against the operation's roles.
      { params: { workspaceId }, query: undefined, body: { email: values.email, role: values.role as 'member' } },
      { idempotencyKey: idempotencyKeyOf(request.body) },
    )
    if (created.ok)
      return redirectWithNotice(
        reply,
        webRoutes.workspace.path({ workspaceId: created.value.value.workspaceId }, { notice: 'invitation-created' }),
      )
    if (!isFormRefusal(created.error)) return refuse(request, reply, created.error)
    const form = refusedForm(created.error, values, invitationRules, { already_member: 'email', invitation_pending: 'email' })
    return showWorkspace(runtime, request, reply, { form, status: httpStatusOf(created.error.code) })
  })

  app.post<{ Params: WorkspaceParams & InvitationParams }>(webRoutes.workspaceInvitationRevoke.pattern, async (request, reply) => {
    if (!signedIn(request, reply, workspaceSettingsPath(request.params.workspaceId))) return reply
    const params = { invitationId: request.params.invitationId }
    const revoked = await operate(runtime, request, 'revokeInvitation', { params, query: undefined, body: undefined })
    if (!revoked.ok) return refuse(request, reply, revoked.error)
    return redirectWithNotice(
      reply,
      webRoutes.workspace.path({ workspaceId: revoked.value.value.workspaceId }, { notice: 'invitation-revoked' }),
    )
  })

  app.get(webRoutes.invitations.pattern, (request, reply) => showMyInvitations(runtime, request, reply))

  app.post<{ Params: InvitationParams }>(webRoutes.invitationAccept.pattern, async (request, reply) => {
    if (!signedIn(request, reply, webRoutes.invitations.path())) return reply
    const params = { invitationId: request.params.invitationId }
    const accepted = await operate(runtime, request, 'acceptInvitation', { params, query: undefined, body: undefined })
    if (!accepted.ok) return refuse(request, reply, accepted.error)
    return redirectWithNotice(
      reply,
      webRoutes.workspace.path({ workspaceId: accepted.value.value.workspaceId }, { notice: 'invitation-accepted' }),
    )
  })
}
