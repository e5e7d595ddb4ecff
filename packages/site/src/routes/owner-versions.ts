import type { Failure } from '@quire/core'
import type { Artifact } from '@quire/core/contract'
import { httpStatusOf } from '@quire/http-edge'
import { artifactParams, type EditView, editPage, type Newline, webRoutes } from '@quire/pages'
import type { Runtime } from '@quire/runtime'
import { sendFailure } from '@quire/web-http'
import type { FastifyReply } from 'fastify'
import { operate, readContent } from '../operate.ts'
import { permitted } from './artifact-permissions.ts'
import { refuseAction } from './artifact-refusals.ts'
import type { PathRequest } from './artifact-request.ts'
import { fieldErrorsOf, formOf } from './form-fields.ts'
import { sendFormPage } from './private-page.ts'
import { versionNumber } from './version-query.ts'

/**
 * A textarea's text as the document had it: browsers send a textarea's line breaks as CRLF
 * whatever they were given, so the form carries which the document used and the text is put back.
 */
function restoreNewlines(text: string, newline: Newline): string {
  const lf = text.replace(/\r\n?/g, '\n')
  return newline === 'crlf' ? lf.replace(/\n/g, '\r\n') : lf
}

/** The newline a document uses: CRLF when its lines end so, else LF. */
function newlineOf(content: string): Newline {
  return content.includes('\r\n') ? 'crlf' : 'lf'
}

/** `GET …/edit`: the form, filled with the latest content. */
export async function showEdit(runtime: Runtime, request: PathRequest, reply: FastifyReply): Promise<FastifyReply> {
  const allowed = await permitted(runtime, request, reply, 'artifact.update')
  if (allowed === null) return reply
  const { artifact } = allowed.permissions
  const latest = await readContent(runtime, request, artifact.id, undefined)
  if (!latest.ok) return refuseAction(request, reply, latest.error)
  const content = latest.value.content.content
  return sendFormPage(
    reply,
    200,
    editPage({
      artifact,
      ...allowed.person,
      content,
      changelog: '',
      expectedLatestVersion: latest.value.versionNumber,
      newline: newlineOf(content),
      errors: {},
      problem: null,
      conflict: null,
    }),
  )
}

/**
 * The form again after a conflict: the person's text and changelog as they were, what was saved
 * meanwhile (the diff from the version they started from to the latest), and the latest as the
 * new base, so saving again goes through.
 */
async function conflictView(
  runtime: Runtime,
  request: PathRequest,
  artifact: Artifact,
  failure: Failure,
  started: number,
): Promise<Pick<EditView, 'conflict' | 'expectedLatestVersion' | 'problem'>> {
  const latest = typeof failure.meta?.latestVersion === 'number' ? failure.meta.latestVersion : artifact.latestVersion
  if (started >= latest) return { conflict: null, expectedLatestVersion: latest, problem: failure.message }
  const diff = await operate(runtime, request, 'diffVersions', {
    params: { artifactId: artifact.id },
    query: { from: started, to: latest },
    body: undefined,
  })
  if (!diff.ok) return { conflict: null, expectedLatestVersion: latest, problem: failure.message }
  return { conflict: { startedFrom: started, diff: diff.value.value }, expectedLatestVersion: latest, problem: null }
}

/** `POST …/edit`: appends the version (`appendVersion`), or shows the form again with what went wrong. */
export async function saveEdit(runtime: Runtime, request: PathRequest, reply: FastifyReply): Promise<FastifyReply> {
  const allowed = await permitted(runtime, request, reply, 'artifact.update')
  if (allowed === null) return reply
  const { artifact } = allowed.permissions
  const field = formOf(request)
  const newline: Newline = field('newline') === 'crlf' ? 'crlf' : 'lf'
  const content = restoreNewlines(field('content') ?? '', newline)
  const changelog = field('changelog') ?? ''
  const expected = versionNumber(field('expectedLatestVersion'))
  const again = (status: number, parts: Partial<EditView>) =>
    sendFormPage(
      reply,
      status,
      editPage({
        artifact,
        ...allowed.person,
        content,
        changelog,
        expectedLatestVersion: expected ?? artifact.latestVersion,
        newline,
        errors: {},
        problem: null,
        conflict: null,
        ...parts,
      }),
    )
  if (expected === null)
    return again(400, {
      problem: `The form did not say which version it was based on. Check your text against version ${artifact.latestVersion} (now shown as the base) and save again.`,
    })
  const result = await operate(runtime, request, 'appendVersion', {
    params: { artifactId: artifact.id },
    query: {},
    body: { content, changelog, expectedLatestVersion: expected },
  })
  if (result.ok) return reply.redirect(webRoutes.artifact.path(artifactParams(artifact), { notice: 'saved' }), 303)
  const failure = result.error
  const status = httpStatusOf(failure.code)
  switch (failure.code) {
    case 'version_conflict':
      return again(status, await conflictView(runtime, request, artifact, failure, expected))
    case 'payload_too_large':
      return again(status, { errors: { content: failure.message } })
    case 'validation_failed':
    case 'precondition_required': {
      const errors = fieldErrorsOf(failure)
      return again(status, { errors, problem: Object.keys(errors).length > 0 ? null : failure.message })
    }
    default:
      return refuseAction(request, reply, failure)
  }
}

/** `POST …/restore`: version N's content as a new head (`restoreVersion`), conditional on the latest the page showed. */
export async function restore(runtime: Runtime, request: PathRequest, reply: FastifyReply): Promise<FastifyReply> {
  const allowed = await permitted(runtime, request, reply, 'artifact.update')
  if (allowed === null) return reply
  const { artifact } = allowed.permissions
  const field = formOf(request)
  const version = versionNumber(field('version'))
  const expected = versionNumber(field('expectedLatestVersion'))
  const changelog = field('changelog')?.trim() ?? ''
  if (version === null || expected === null)
    return sendFailure(request, reply, {
      code: 'validation_failed',
      title: 'Nothing was restored',
      message: 'The form must name the version to restore and the latest version it was made from. Open the history and try again.',
    })
  const result = await operate(runtime, request, 'restoreVersion', {
    params: { artifactId: artifact.id, versionNumber: version },
    query: {},
    body: { expectedLatestVersion: expected, ...(changelog ? { changelog } : {}) },
  })
  if (result.ok) return reply.redirect(webRoutes.artifact.path(artifactParams(artifact), { notice: 'restored' }), 303)
  const failure = result.error
  if (failure.code === 'version_conflict')
    return sendFailure(request, reply, {
      code: failure.code,
      title: 'Nothing was restored',
      message: `Someone saved a version after you opened the history: the artifact is now at version ${String(failure.meta?.latestVersion ?? '?')}. Open the history again and choose the version to restore.`,
    })
  if (failure.code === 'validation_failed')
    return sendFailure(request, reply, { code: failure.code, title: 'Nothing was restored', message: failure.message })
  return refuseAction(request, reply, failure)
}

/** The body a new-version form may send: the document URL-encoded (up to three bytes per byte of content), with the API's margin. */
export function editBodyLimit(runtime: Runtime): number {
  return Math.max(runtime.deps.config.limits.contentBytes * 8, 1024 * 1024)
}
