import { fieldLimits } from '@quire/core/contract'
import { html } from '@quire/render'
import { layout, type Visitor } from '../layout.ts'
import { csrfInput, errorSummary, type FieldErrors } from '../owner/parts.ts'
import { ownerPath, webRoutes } from '../web-routes.ts'
import { type Choice, inputField, selectField, textareaField } from './fields.ts'
import { type SlugCheck, slugField } from './slug-field.ts'

/** The fields as `createProject`'s schema bounds them. */
const limits = {
  title: fieldLimits('createProject', '/body/title'),
  slug: fieldLimits('createProject', '/body/slug'),
  icon: fieldLimits('createProject', '/body/icon'),
  description: fieldLimits('createProject', '/body/description'),
}

/** The form's fields, as typed. */
export interface NewProjectValues {
  readonly owner: string
  readonly title: string
  readonly slug: string
  readonly icon: string
  readonly description: string
}

export interface NewProjectView {
  readonly visitor: Visitor
  readonly csrfToken: string
  /** Submitting the same form twice (a reload, a double click) creates one project. */
  readonly idempotencyKey: string
  /** The namespaces the person may create a project in (their own, workspaces where their role allows). */
  readonly owners: readonly Choice[]
  readonly values: NewProjectValues
  readonly errors: FieldErrors
  readonly problem: string | null
  readonly check: SlugCheck | null
}

const labels = { owner: 'Owner', title: 'Title', slug: 'Slug', icon: 'Icon', description: 'Description' }

/** `/new/project`: a project in one of the person's namespaces. */
export function newProjectPage(view: NewProjectView): string {
  const { values, errors } = view
  return layout(
    { title: 'New project', visitor: view.visitor, head: html`<meta name="robots" content="noindex">` },
    html`<div class="owner-page publish-page">
  <header class="artifact-head">
    <h1>New project</h1>
    <p class="lede">A project groups artifacts under one address, <code>/owner/project</code>. Everyone in its workspace can see it.</p>
  </header>
  ${errorSummary(errors, view.problem, labels, 'The project was not created')}
  <form class="owner-form" method="post" action="${webRoutes.newProject.path()}" novalidate>
    ${csrfInput(view.csrfToken)}
    <input type="hidden" name="idempotency_key" value="${view.idempotencyKey}">
    ${selectField({
      name: 'owner',
      label: 'Owner',
      hint: html`Your own namespace or a team workspace where your role lets you create projects. <a href="${webRoutes.workspaces.path()}">Workspaces</a>`,
      choices: view.owners,
      value: values.owner,
      errors,
    })}
    ${inputField({ name: 'title', label: 'Title', hint: 'What people see, e.g. “Status reports”.', value: values.title, errors, required: true, maxLength: limits.title.maxLength })}
    ${slugField({
      value: values.slug,
      error: errors.slug,
      hint: 'Its name in the address: lowercase letters, digits and inner hyphens. Left empty, it is made from the title.',
      maxLength: limits.slug.maxLength,
      check: view.check,
    })}
    ${inputField({ name: 'icon', label: 'Icon', hint: 'A short symbol shown beside the title, such as an emoji.', value: values.icon, errors, required: true, maxLength: limits.icon.maxLength })}
    ${textareaField({ name: 'description', label: 'Description', hint: 'A sentence or two on what belongs here.', value: values.description, errors, rows: 3, maxLength: limits.description.maxLength })}
    <div class="actions">
      <button type="submit" name="intent" value="create">Create project</button>
      <a class="button secondary" href="${values.owner ? ownerPath(values.owner) : webRoutes.home.path()}">Cancel</a>
    </div>
  </form>
</div>`,
  )
}
