import { type Failure, slugify } from '@quire/core'
import { httpStatusOf } from '@quire/http-edge'
import { type NewProjectValues, newProjectPage, projectPath, type SlugCheck, webRoutes } from '@quire/pages'
import type { Runtime } from '@quire/runtime'
import { visitorFrom, type WebSession } from '@quire/web-http'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { operate } from '../../operate.ts'
import { isFormRefusal, refuse, refusedForm } from '../account/refusals.ts'
import { field, idempotencyKeyOf, newFormKey, single } from '../account/request-values.ts'
import { sendPage, signedIn } from '../account/signed-in.ts'
import { lengthRule, publishingPlaces, refusedSlug, slugRule } from './places.ts'

/** The icon a new project starts with. */
const DEFAULT_ICON = '✎'

const rules = {
  owner: { path: '/body/ownerUsername', rule: 'Choose where the project lives.' },
  title: lengthRule('createProject', 'title', 'it a title'),
  slug: { path: '/body/slug', rule: slugRule },
  icon: lengthRule('createProject', 'icon', 'it an icon'),
  description: lengthRule('createProject', 'description', 'a description'),
}

/** What the form shows besides its values. */
interface Answer {
  readonly status: number
  readonly errors: Readonly<Record<string, string>>
  readonly problem: string | null
  readonly check: SlugCheck | null
}

const fresh: Answer = { status: 200, errors: {}, problem: null, check: null }

/** The form, with the owners the person may create projects under. */
async function showForm(
  runtime: Runtime,
  request: FastifyRequest,
  reply: FastifyReply,
  session: WebSession,
  values: NewProjectValues,
  answer: Answer,
) {
  const places = await publishingPlaces(runtime, request)
  if (!places.ok) return refuse(request, reply, places.error)
  const owners = places.value
    .filter((place) => place.may['project.create'])
    .map(({ workspace }) => ({
      value: workspace.slug,
      label: workspace.kind === 'personal' ? `${workspace.slug} (you)` : `${workspace.name} (${workspace.slug})`,
    }))
  const owner = owners.some((o) => o.value === values.owner) ? values.owner : (owners[0]?.value ?? '')
  const page = newProjectPage({
    visitor: visitorFrom(session),
    csrfToken: session.csrfToken,
    idempotencyKey: idempotencyKeyOf(request.body) ?? newFormKey(),
    owners,
    values: { ...values, owner },
    ...answer,
  })
  return sendPage(reply, page, answer.status)
}

/** Whether the slug is free under the owner, with free alternatives when not (`checkProjectSlug`). */
async function checkSlug(runtime: Runtime, request: FastifyRequest, owner: string, slug: string): Promise<SlugCheck | Failure> {
  const checked = await operate(runtime, request, 'checkProjectSlug', { params: { owner, slug }, query: undefined, body: undefined })
  if (!checked.ok) return checked.error
  const { available, reason, suggestions } = checked.value.value
  return {
    slug,
    available,
    ...(reason ? { reason } : {}),
    suggestions: suggestions ?? [],
    path: available ? projectPath({ ownerUsername: checked.value.value.ownerUsername, slug }) : null,
  }
}

/** The form's values from the post: an alternative taken with its button replaces the slug; an empty slug is made from the title. */
function valuesOf(body: unknown): { values: NewProjectValues; intent: 'check' | 'create' } {
  const chosen = single(body, 'useSlug')
  const typed = (chosen ?? field(body, 'slug')).trim()
  const title = field(body, 'title')
  const values = {
    owner: field(body, 'owner'),
    title,
    slug: typed === '' ? slugify(title) : typed,
    icon: field(body, 'icon').trim(),
    description: field(body, 'description'),
  }
  return { values, intent: chosen || field(body, 'intent') === 'check' ? 'check' : 'create' }
}

/** `GET /new/project` and `POST /new/project`: check the slug, or create the project (`createProject`) and open its page. */
export const newProjectRoutes = {
  async show(runtime: Runtime, request: FastifyRequest, reply: FastifyReply) {
    const session = signedIn(request, reply)
    if (!session) return reply
    const owner = single(request.query, 'owner') ?? session.user.username
    return showForm(runtime, request, reply, session, { owner, title: '', slug: '', icon: DEFAULT_ICON, description: '' }, fresh)
  },

  async post(runtime: Runtime, request: FastifyRequest, reply: FastifyReply) {
    const session = signedIn(request, reply, webRoutes.newProject.path())
    if (!session) return reply
    const { values, intent } = valuesOf(request.body)
    if (values.slug === '')
      return showForm(runtime, request, reply, session, values, {
        ...fresh,
        status: intent === 'check' ? 200 : 400,
        errors: { slug: 'Type a title or a slug first: the slug is made from the title.' },
      })
    if (intent === 'check') {
      const check = await checkSlug(runtime, request, values.owner, values.slug)
      if ('code' in check)
        return showForm(runtime, request, reply, session, values, { ...fresh, status: httpStatusOf(check.code), problem: check.message })
      return showForm(runtime, request, reply, session, values, { ...fresh, check })
    }
    const { owner, title, slug, icon, description } = values
    const created = await operate(
      runtime,
      request,
      'createProject',
      { params: undefined, query: undefined, body: { ownerUsername: owner, title, slug, icon, ...(description ? { description } : {}) } },
      { idempotencyKey: idempotencyKeyOf(request.body) },
    )
    if (created.ok) {
      const project = created.value.value
      return reply.redirect(
        webRoutes.project.path({ owner: project.ownerUsername, project: project.slug }, { notice: 'project-created' }),
        303,
      )
    }
    const failure = created.error
    if (!isFormRefusal(failure) && failure.code !== 'forbidden' && failure.code !== 'not_found') return refuse(request, reply, failure)
    const form = refusedForm(failure, { ...values }, rules, { slug_taken: 'slug', forbidden: 'owner', not_found: 'owner' })
    // A taken or reserved slug comes back with what is free instead: the refusal's own
    // suggestions (made with the title), else the availability check's.
    const check = form.errors.slug
      ? (refusedSlug(failure, values.slug) ?? (await checkSlug(runtime, request, values.owner, values.slug)))
      : null
    return showForm(runtime, request, reply, session, values, {
      status: httpStatusOf(failure.code),
      errors: form.errors,
      problem: form.formError,
      check: check && !('code' in check) && !check.available ? check : null,
    })
  },
}
