import type { Failure } from '@quire/core'
import {
  type AccessForm,
  accessFormOf,
  artifactParams,
  createdLinkPage,
  deletePage,
  type LinkForm,
  type LinkLifetime,
  linkLifetimes,
  noticeOf,
  type SettingsView,
  settingsPage,
  webRoutes,
} from '@quire/pages'
import type { Runtime } from '@quire/runtime'
import { sendFailure } from '@quire/web-http'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { operate } from '../operate.ts'
import { type Permitted, permitted } from './artifact-permissions.ts'
import { refuseAction } from './artifact-refusals.ts'
import type { PathRequest } from './artifact-request.ts'
import { fieldErrorsOf, formOf } from './form-fields.ts'
import { sendFormPage } from './private-page.ts'

/** Share links on one page of the settings. */
const LINKS_PAGE_SIZE = 50

/** `GET …/delete`: the confirmation. */
export async function showDelete(runtime: Runtime, request: PathRequest, reply: FastifyReply): Promise<FastifyReply> {
  const allowed = await permitted(runtime, request, reply, 'artifact.delete')
  if (allowed === null) return reply
  return sendFormPage(reply, 200, deletePage({ artifact: allowed.permissions.artifact, ...allowed.person, confirm: '', errors: {} }))
}

/** `POST …/delete`: soft-deletes (`deleteArtifact`) once the slug was typed, then goes to the project. */
export async function deleteConfirmed(runtime: Runtime, request: PathRequest, reply: FastifyReply): Promise<FastifyReply> {
  const allowed = await permitted(runtime, request, reply, 'artifact.delete')
  if (allowed === null) return reply
  const { artifact } = allowed.permissions
  const confirm = formOf(request)('confirm') ?? ''
  if (confirm.trim() !== artifact.slug)
    return sendFormPage(
      reply,
      400,
      deletePage({
        artifact,
        ...allowed.person,
        confirm,
        errors: { confirm: `Type the slug exactly as shown (${artifact.slug}) to delete the artifact. Nothing was deleted.` },
      }),
    )
  const result = await operate(runtime, request, 'deleteArtifact', {
    params: { artifactId: artifact.id },
    query: undefined,
    body: undefined,
  })
  if (!result.ok) return refuseAction(request, reply, result.error)
  return reply.redirect(webRoutes.project.path(artifactParams(artifact), { notice: 'deleted' }), 303)
}

/** What the settings page shows besides what a form that came back puts in it. */
type SettingsParts = Partial<Omit<SettingsView, 'artifact' | 'visitor' | 'csrfToken' | 'links' | 'canChangeAccess'>>

/**
 * The settings page: the stored access settings (`getArtifactAccess`) and, for whoever may share,
 * one page of share links (`listShareLinks`), with what a form that came back puts in instead.
 */
async function sendSettings(
  runtime: Runtime,
  request: PathRequest,
  reply: FastifyReply,
  allowed: Permitted,
  status: number,
  parts: SettingsParts,
): Promise<FastifyReply> {
  const { artifact, may } = allowed.permissions
  const params = { artifactId: artifact.id }
  const access = await operate(runtime, request, 'getArtifactAccess', { params, query: undefined, body: undefined })
  if (!access.ok) return refuseAction(request, reply, access.error)
  let links: SettingsView['links'] = null
  if (may['artifact.share']) {
    const cursor = (request.query as { cursor?: unknown } | undefined)?.cursor
    const query = typeof cursor === 'string' ? { limit: LINKS_PAGE_SIZE, cursor } : { limit: LINKS_PAGE_SIZE }
    const listed = await operate(runtime, request, 'listShareLinks', { params, query, body: undefined })
    if (!listed.ok) {
      if (listed.error.code === 'validation_failed' || listed.error.code === 'invalid_cursor')
        return sendFailure(request, reply, { code: listed.error.code, title: 'No such page', message: listed.error.message })
      return refuseAction(request, reply, listed.error)
    }
    links = { ...listed.value.value, paged: 'cursor' in query }
  }
  const view: SettingsView = {
    artifact,
    ...allowed.person,
    notice: null,
    access: accessFormOf(access.value.value),
    canChangeAccess: may['artifact.access.write'],
    accessErrors: {},
    accessProblem: null,
    links,
    linkForm: { role: 'viewer', lifetime: 'never' },
    linkErrors: {},
    linkProblem: null,
    ...parts,
  }
  return sendFormPage(reply, status, settingsPage(view))
}

/** `GET …/settings`: access settings and share links. */
export async function showSettings(runtime: Runtime, request: PathRequest, reply: FastifyReply): Promise<FastifyReply> {
  const allowed = await permitted(runtime, request, reply, 'artifact.access.read')
  if (allowed === null) return reply
  return sendSettings(runtime, request, reply, allowed, 200, { notice: noticeOf(request.query) })
}

/** The allowlist as typed: one address a line, blank lines left out. */
function emailLines(text: string): string[] {
  return text
    .split(/\r\n?|\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '')
}

/**
 * Messages about one address name it, so the person finds the line: the operation's own rule says
 * so already, the schema's format check only says `must match format "email"`.
 */
function namingAddresses(failure: Failure, emails: readonly string[]): Failure {
  const errors = (failure.errors ?? []).map(({ path, message }) => {
    const index = /^\/body\/viewerEmails\/(\d+)$/.exec(path)?.[1]
    const value = index === undefined ? undefined : emails[Number(index)]
    if (value === undefined || message.includes(value)) return { path, message }
    return { path, message: `“${value}” ${message.includes('format') ? 'is not an email address' : message}` }
  })
  return { ...failure, errors }
}

/** `POST …/settings/access`: the switches and the allowlist (`updateArtifactAccess`). */
export async function saveAccess(runtime: Runtime, request: PathRequest, reply: FastifyReply): Promise<FastifyReply> {
  const allowed = await permitted(runtime, request, reply, 'artifact.access.write')
  if (allowed === null) return reply
  const field = formOf(request)
  // An unchecked box is not sent at all: absent means off.
  const typed: AccessForm = {
    publicView: field('publicView') === 'on',
    publicEdit: field('publicEdit') === 'on',
    viewerEmails: (field('viewerEmails') ?? '').replace(/\r\n?/g, '\n'),
  }
  const viewerEmails = emailLines(typed.viewerEmails)
  const result = await operate(runtime, request, 'updateArtifactAccess', {
    params: { artifactId: allowed.permissions.artifact.id },
    query: {},
    body: { publicView: typed.publicView, publicEdit: typed.publicEdit, viewerEmails },
  })
  if (result.ok)
    return reply.redirect(webRoutes.artifactSettings.path(artifactParams(allowed.permissions.artifact), { notice: 'access-saved' }), 303)
  if (result.error.code !== 'validation_failed') return refuseAction(request, reply, result.error)
  const errors = fieldErrorsOf(namingAddresses(result.error, viewerEmails))
  return sendSettings(runtime, request, reply, allowed, 400, {
    access: typed,
    accessErrors: errors,
    accessProblem: Object.keys(errors).length > 0 ? null : result.error.message,
  })
}

/** `POST …/settings/share-links`: a new link (`createShareLink`), its URL shown on the answer page only. */
export async function createLink(runtime: Runtime, request: PathRequest, reply: FastifyReply): Promise<FastifyReply> {
  const allowed = await permitted(runtime, request, reply, 'artifact.share')
  if (allowed === null) return reply
  const { artifact } = allowed.permissions
  const field = formOf(request)
  const role = field('role')
  const lifetime = field('expiresIn') ?? 'never'
  const form: LinkForm = {
    role: role === 'editor' ? 'editor' : 'viewer',
    lifetime: Object.hasOwn(linkLifetimes, lifetime) ? (lifetime as LinkLifetime) : 'never',
  }
  const typoed = {
    ...(role === 'viewer' || role === 'editor' ? {} : { role: 'Choose viewer or editor.' }),
    ...(Object.hasOwn(linkLifetimes, lifetime) ? {} : { expiresIn: 'Choose one of the offered lifetimes.' }),
  }
  if (Object.keys(typoed).length > 0) return sendSettings(runtime, request, reply, allowed, 400, { linkForm: form, linkErrors: typoed })
  const days = linkLifetimes[form.lifetime].days
  const expiresAt = days === null ? undefined : new Date(runtime.deps.clock.now().getTime() + days * 86_400_000).toISOString()
  const result = await operate(runtime, request, 'createShareLink', {
    params: { artifactId: artifact.id },
    query: undefined,
    body: { role: form.role, ...(expiresAt ? { expiresAt } : {}) },
  })
  if (!result.ok) {
    if (result.error.code !== 'validation_failed') return refuseAction(request, reply, result.error)
    const errors = fieldErrorsOf(result.error, (property) => (property === 'expiresAt' ? 'expiresIn' : property))
    return sendSettings(runtime, request, reply, allowed, 400, {
      linkForm: form,
      linkErrors: errors,
      linkProblem: Object.keys(errors).length > 0 ? null : result.error.message,
    })
  }
  const { url, ...link } = result.value.value
  if (url === null) return refuseAction(request, reply, { code: 'internal_error', message: 'The new link came back without its URL.' })
  // The secret is in this page only: never a URL to come back to, never kept by any cache.
  return sendFormPage(reply, 201, createdLinkPage({ artifact, ...allowed.person, link, url }))
}

/** `POST …/settings/share-links/:id/revoke`: stops a link at once (`revokeShareLink`). */
export async function revokeLink(
  runtime: Runtime,
  request: FastifyRequest<{ Params: PathRequest['params'] & { id: string } }>,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const allowed = await permitted(runtime, request, reply, 'artifact.share')
  if (allowed === null) return reply
  const result = await operate(runtime, request, 'revokeShareLink', {
    params: { shareLinkId: request.params.id },
    query: undefined,
    body: undefined,
  })
  if (result.ok)
    return reply.redirect(webRoutes.artifactSettings.path(artifactParams(allowed.permissions.artifact), { notice: 'link-revoked' }), 303)
  if (result.error.code === 'not_found' || result.error.code === 'validation_failed')
    return sendFailure(request, reply, {
      code: 'not_found',
      title: 'No such share link',
      message: 'There is no such share link on this artifact. Open the settings again to see its links.',
    })
  return refuseAction(request, reply, result.error)
}
