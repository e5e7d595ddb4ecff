import type { Failure } from '@quire/core'
import type { Artifact, VersionDryRun } from '@quire/core/contract'
import { httpStatusOf } from '@quire/http-edge'
import { artifactParams, type EditView, editPage, type Newline, webRoutes } from '@quire/pages'
import type { Runtime } from '@quire/runtime'
import { sendFailure } from '@quire/web-http'
import type { FastifyReply } from 'fastify'
import { operate, readContent } from '../operate.ts'
import { permitted } from './artifact-permissions.ts'
import { refuseAction } from './artifact-refusals.ts'
import type { PathRequest } from './artifact-request.ts'
import { documentPolicy, renderDocument } from './document-pages.ts'
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

/** What the new-version form sent: the text with the document's own newlines, the changelog, the base version, the button. */
interface EditForm {
  readonly content: string
  readonly changelog: string
  readonly newline: Newline
  /** Null when the form did not say (or said something that is no version number). */
  readonly expected: number | null
  readonly preview: boolean
}

function editFormOf(request: PathRequest): EditForm {
  const field = formOf(request)
  const newline: Newline = field('newline') === 'crlf' ? 'crlf' : 'lf'
  return {
    content: restoreNewlines(field('content') ?? '', newline),
    changelog: field('changelog') ?? '',
    newline,
    expected: versionNumber(field('expectedLatestVersion')),
    preview: field('intent') === 'preview',
  }
}

/**
 * What a preview shows: the text rendered as its artifact page will render it (uncached: the
 * documents cache keeps saved content by hash), and the dry run's diff from the latest version.
 */
function previewOf(artifact: Artifact, content: string, dry: VersionDryRun): NonNullable<EditView['preview']> {
  const rendered = renderDocument(artifact.type, content).body
  if (dry.diff === undefined) return { rendered, diff: { withheld: dry.diffWithheld?.detail ?? 'The changes are not shown.' } }
  const diff = { diff: dry.diff, additions: dry.additions ?? 0, deletions: dry.deletions ?? 0 }
  return { rendered, diff: { diff, from: dry.fromVersion, to: dry.wouldCreate.versionNumber } }
}

/**
 * The form again, or a refusal page, for a write `appendVersion` refused: a conflict shows what
 * was saved meanwhile, a limit or a field the message beside it. Save and Preview answer alike,
 * since a preview is the same write run dry and refused for the same reasons.
 */
async function refusedEdit(
  runtime: Runtime,
  request: PathRequest,
  reply: FastifyReply,
  artifact: Artifact,
  failure: Failure,
  expected: number,
  again: (status: number, parts: Partial<EditView>) => FastifyReply,
): Promise<FastifyReply> {
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

/**
 * `POST …/edit`. Save appends the version (`appendVersion`) and goes to the artifact's page;
 * Preview runs the same write with `dryRun` (every check, nothing written: no version, no audit
 * event) and shows the form again with the text rendered and its diff from the latest. Either
 * way, what the write refuses comes back as the form with what went wrong.
 */
export async function saveEdit(runtime: Runtime, request: PathRequest, reply: FastifyReply): Promise<FastifyReply> {
  const allowed = await permitted(runtime, request, reply, 'artifact.update')
  if (allowed === null) return reply
  const { artifact } = allowed.permissions
  const { content, changelog, newline, expected, preview } = editFormOf(request)
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
    query: preview ? { dryRun: true } : {},
    body: { content, changelog, expectedLatestVersion: expected },
  })
  if (!result.ok) return refusedEdit(runtime, request, reply, artifact, result.error, expected, again)
  if (!preview) return reply.redirect(webRoutes.artifact.path(artifactParams(artifact), { notice: 'saved' }), 303)
  // The binding answers `dryRun` with its dry-run body; anything else would be a write.
  if (result.value.dryRun !== true) throw new Error('appendVersion answered a dry run with a write')
  const dry = result.value.value as unknown as VersionDryRun
  // The previewed document may show the https images it links, as its artifact page does.
  reply.header('content-security-policy', documentPolicy)
  return again(200, { preview: previewOf(artifact, content, dry) })
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
