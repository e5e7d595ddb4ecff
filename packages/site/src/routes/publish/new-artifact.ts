import type { Failure } from '@quire/core'
import { fileExtensions } from '@quire/core'
import { httpStatusOf } from '@quire/http-edge'
import {
  artifactParams,
  artifactPath,
  type NewArtifactValues,
  newArtifactPage,
  type ProjectChoice,
  parseProjectRef,
  projectRef,
  type SlugCheck,
  webRoutes,
} from '@quire/pages'
import type { SafeHtml } from '@quire/render'
import type { Runtime } from '@quire/runtime'
import { visitorFrom, type WebSession } from '@quire/web-http'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { operate } from '../../operate.ts'
import { refuse, refusedForm } from '../account/refusals.ts'
import { idempotencyKeyOf, newFormKey, single } from '../account/request-values.ts'
import { sendPage, signedIn } from '../account/signed-in.ts'
import { documentPolicy } from '../document-pages.ts'
import { emailLines, fieldOfFailure, type PostedArtifact, postedArtifact } from './new-artifact-form.ts'
import { lengthRule, publishingPlaces, refusedSlug, slugRule } from './places.ts'
import { artifactPreview } from './preview.ts'
import { uploadOf } from './upload.ts'

/** The most projects the form offers (the person's first, newest first); others are reached from their own page's link. */
const PROJECT_LIMIT = 100

const rules = {
  title: lengthRule('createArtifact', 'title', 'it a title'),
  slug: { path: '/body/slug', rule: slugRule },
  type: { path: '/body/type', rule: 'Choose one of the types.' },
  description: lengthRule('createArtifact', 'description', 'a description'),
  content: { path: '/body/content', rule: 'The content must be text.' },
  changelog: lengthRule('createArtifact', 'changelog', 'a changelog'),
  viewerEmails: { path: '/body/access/viewerEmails', rule: 'List email addresses, one per line (at most 100).' },
}

/** What the form shows besides its values. */
interface Answer {
  readonly status: number
  readonly errors: Readonly<Record<string, string>>
  readonly problem: string | null
  readonly check: SlugCheck | null
  readonly preview: SafeHtml | null
  readonly uploaded: string | null
}

const fresh: Answer = { status: 200, errors: {}, problem: null, check: null, preview: null, uploaded: null }

/** The projects the person may create artifacts in, each saying whether they may set access there. */
async function projectChoices(runtime: Runtime, request: FastifyRequest): Promise<ProjectChoice[] | Failure> {
  const [places, projects] = await Promise.all([
    publishingPlaces(runtime, request),
    operate(runtime, request, 'listMyProjects', { params: undefined, query: { limit: PROJECT_LIMIT }, body: undefined }),
  ])
  if (!places.ok) return places.error
  if (!projects.ok) return projects.error
  const byWorkspace = new Map(places.value.map((place) => [place.workspace.id, place]))
  return projects.value.value.items.flatMap((project) => {
    const place = byWorkspace.get(project.workspaceId)
    if (!place?.may['artifact.create']) return []
    const value = projectRef(project)
    return [{ value, label: `${project.icon} ${project.title} (${value})`, canSetAccess: place.may['artifact.access.write'] }]
  })
}

async function showForm(
  runtime: Runtime,
  request: FastifyRequest,
  reply: FastifyReply,
  session: WebSession,
  values: NewArtifactValues,
  answer: Answer,
) {
  const projects = await projectChoices(runtime, request)
  if ('code' in projects) return refuse(request, reply, projects)
  const project = projects.some((p) => p.value === values.project) ? values.project : (projects[0]?.value ?? '')
  const page = newArtifactPage({
    visitor: visitorFrom(session),
    csrfToken: session.csrfToken,
    idempotencyKey: idempotencyKeyOf(request.body) ?? newFormKey(),
    projects,
    values: { ...values, project },
    contentBytes: runtime.deps.config.limits.contentBytes,
    extensions: fileExtensions,
    ...answer,
  })
  return sendPage(reply, page, answer.status)
}

/** Whether the slug is free in the project, with free alternatives when not (`previewArtifactUrl`). */
async function checkSlug(runtime: Runtime, request: FastifyRequest, values: NewArtifactValues): Promise<SlugCheck | Failure> {
  const project = parseProjectRef(values.project)
  if (project === null) return { code: 'validation_failed', message: 'Choose a project first.' }
  const params = { ...project, slug: values.slug }
  const checked = await operate(runtime, request, 'previewArtifactUrl', { params, query: undefined, body: undefined })
  if (!checked.ok) return checked.error
  const { available, reason, suggestions, ownerUsername, projectSlug } = checked.value.value
  return {
    slug: values.slug,
    available,
    ...(reason ? { reason } : {}),
    suggestions: suggestions ?? [],
    path: available ? artifactPath({ ownerUsername, projectSlug, slug: values.slug }) : null,
  }
}

/** `createArtifact`'s input from the form (its schema checks the rest). */
function createBody(values: NewArtifactValues) {
  const project = parseProjectRef(values.project)
  const viewerEmails = emailLines(values.access.viewerEmails)
  return {
    ownerUsername: project?.owner ?? '',
    projectSlug: project?.projectSlug ?? '',
    slug: values.slug,
    type: values.type as 'md',
    title: values.title,
    ...(values.description ? { description: values.description } : {}),
    content: values.content,
    changelog: values.changelog,
    access: {
      publicView: values.access.publicView,
      publicEdit: values.access.publicEdit,
      ...(viewerEmails.length > 0 ? { viewerEmails } : {}),
    },
  }
}

/** The form again after a refusal: the message beside the field it is about, and free slugs for a taken one. */
async function refused(runtime: Runtime, request: FastifyRequest, posted: PostedArtifact, failure: Failure): Promise<Answer> {
  const named = fieldOfFailure(failure, posted.values, posted.uploaded)
  const form = refusedForm(failure, {}, rules, named ? { [failure.code]: named } : {})
  const check = form.errors.slug ? (refusedSlug(failure, posted.values.slug) ?? (await checkSlug(runtime, request, posted.values))) : null
  return {
    ...fresh,
    status: httpStatusOf(failure.code),
    errors: form.errors,
    problem: form.formError,
    check: check && !('code' in check) && !check.available ? check : null,
    uploaded: posted.uploaded,
  }
}

/** `GET /new` and `POST /new`: check the slug, preview the dry run rendered, or publish (`createArtifact`) and open the artifact. */
export const newArtifactRoutes = {
  async show(runtime: Runtime, request: FastifyRequest, reply: FastifyReply) {
    const session = signedIn(request, reply)
    if (!session) return reply
    const values: NewArtifactValues = {
      project: single(request.query, 'project') ?? '',
      title: '',
      slug: '',
      type: '',
      description: '',
      content: '',
      changelog: '',
      access: { publicView: false, publicEdit: false, viewerEmails: '' },
    }
    return showForm(runtime, request, reply, session, values, fresh)
  },

  async post(runtime: Runtime, request: FastifyRequest, reply: FastifyReply) {
    const session = signedIn(request, reply, webRoutes.newArtifact.path())
    if (!session) return reply
    const posted = postedArtifact(request.body, uploadOf(request), runtime.deps.config.limits.contentBytes)
    const { values, intent, uploaded } = posted
    const again = (answer: Partial<Answer>) => showForm(runtime, request, reply, session, values, { ...fresh, uploaded, ...answer })
    if (Object.keys(posted.errors).length > 0)
      return again({ status: uploadOf(request)?.problem === 'too_large' ? 413 : 400, errors: posted.errors })
    if (values.slug === '')
      return again({
        status: intent === 'check' ? 200 : 400,
        errors: { slug: 'Type a title or a slug first: the slug is made from the title.' },
      })
    if (intent === 'check') {
      const check = await checkSlug(runtime, request, values)
      return 'code' in check ? again({ status: httpStatusOf(check.code), problem: check.message }) : again({ check })
    }
    const input = { params: undefined, body: createBody(values) }
    if (intent === 'preview') {
      const dryRun = await operate(runtime, request, 'createArtifact', { ...input, query: { dryRun: true } })
      if (!dryRun.ok) return again(await refused(runtime, request, posted, dryRun.error))
      // The preview shows the https images the document links, as its page will.
      reply.header('content-security-policy', documentPolicy)
      return again({ preview: artifactPreview(values) })
    }
    const created = await operate(
      runtime,
      request,
      'createArtifact',
      { ...input, query: {} },
      { idempotencyKey: idempotencyKeyOf(request.body) },
    )
    if (created.ok) return reply.redirect(webRoutes.artifact.path(artifactParams(created.value.value), { notice: 'published' }), 303)
    return again(await refused(runtime, request, posted, created.error))
  },
}
