import { artifactTypes, fieldLimits } from '@quire/core/contract'
import { html, type SafeHtml } from '@quire/render'
import { layout, type Visitor } from '../layout.ts'
import { csrfInput, errorSummary, type FieldErrors, fieldError, invalidAttributes } from '../owner/parts.ts'
import { type AccessForm, accessFields } from '../owner/settings.ts'
import { PREVIEW_ID } from '../preview.ts'
import { webRoutes } from '../web-routes.ts'
import { type Choice, inputField, selectField, textareaField } from './fields.ts'
import { type SlugCheck, slugField } from './slug-field.ts'

/** The fields as `createArtifact`'s schema bounds them. */
const limits = {
  title: fieldLimits('createArtifact', '/body/title'),
  slug: fieldLimits('createArtifact', '/body/slug'),
  description: fieldLimits('createArtifact', '/body/description'),
  changelog: fieldLimits('createArtifact', '/body/changelog'),
}

/** How each type is named in the type list. */
export const typeNames: Readonly<Record<(typeof artifactTypes)[number], string>> = {
  md: 'Markdown',
  txt: 'Plain text',
  html: 'HTML',
  json: 'JSON',
  yaml: 'YAML',
  csv: 'CSV',
  mermaid: 'Mermaid diagram',
  svg: 'SVG image',
}

/** A project the person may publish into: `OWNER/PROJECT`, and whether they may set access there. */
export interface ProjectChoice extends Choice {
  readonly canSetAccess: boolean
}

/** The form's fields, as typed. `type` is '' for "from the file". */
export interface NewArtifactValues {
  readonly project: string
  readonly title: string
  readonly slug: string
  readonly type: string
  readonly description: string
  readonly content: string
  readonly changelog: string
  readonly access: AccessForm
}

export interface NewArtifactView {
  readonly visitor: Visitor
  readonly csrfToken: string
  /** Submitting the same form twice (a reload, a double click) creates one artifact. */
  readonly idempotencyKey: string
  /** The projects the person may create artifacts in. */
  readonly projects: readonly ProjectChoice[]
  readonly values: NewArtifactValues
  /** The most bytes of UTF-8 a version may hold. */
  readonly contentBytes: number
  /** The file extensions an upload may have (`.md`…). */
  readonly extensions: readonly string[]
  /** The name of the file whose text now fills the content box, after an upload came back. */
  readonly uploaded: string | null
  readonly errors: FieldErrors
  readonly problem: string | null
  readonly check: SlugCheck | null
  /** The rendered dry run, after Preview. */
  readonly preview: SafeHtml | null
}

const labels = {
  project: 'Project',
  title: 'Title',
  slug: 'Slug',
  type: 'Type',
  description: 'Description',
  content: 'Content',
  file: 'File',
  changelog: 'Changelog',
  access: 'Access',
  publicView: 'Public',
  publicEdit: 'Public editing',
  viewerEmails: 'Viewers',
}

/** `1048576` → `1 MiB`. */
function sizeWords(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`
  return `${bytes.toLocaleString('en')} bytes`
}

/**
 * The content: typed or pasted into the box, or a file chosen instead (which wins when both are
 * given). A file's text comes back in the box when the form does, so nothing is chosen twice.
 */
function contentFields(view: NewArtifactView): SafeHtml {
  const { errors } = view
  return html`<fieldset class="content-fields">
  <legend>Content</legend>
  <div class="field">
    <label for="content">Paste or type the document</label>
    <p class="hint" id="content-hint">${
      view.uploaded
        ? html`The text of <strong>${view.uploaded}</strong> is below; edit it here or choose another file.`
        : 'The whole source of version 1.'
    } At most ${sizeWords(view.contentBytes)} of UTF-8 text.</p>
    ${fieldError(errors, 'content')}
    <textarea id="content" name="content" rows="16" spellcheck="false"${invalidAttributes(errors, 'content', 'content-hint')}>
${view.values.content}</textarea>
  </div>
  <div class="field">
    <label for="file">Or upload a file <span class="optional">(optional)</span></label>
    <p class="hint" id="file-hint">A text file (${view.extensions.join(', ')}); its extension sets the type and its name the slug, and it replaces the text above.</p>
    ${fieldError(errors, 'file')}
    <input id="file" name="file" type="file" accept="${view.extensions.join(',')},text/*"${invalidAttributes(errors, 'file', 'file-hint')}>
  </div>
</fieldset>`
}

/**
 * Access on create, offered only in the chosen project when the person may set it there (as the
 * API decides): elsewhere the artifact starts private, and the page says so and who can share it.
 */
function accessSection(view: NewArtifactView): SafeHtml {
  const chosen = view.projects.find((p) => p.value === view.values.project)
  if (!chosen?.canSetAccess)
    return html`<div class="notice access-note">
  <p>In this project your role does not set access: the artifact starts private, open to the workspace’s members. An owner or admin can share it from its settings.</p>
  ${fieldError(view.errors, 'access')}
</div>`
  return html`<fieldset class="access-fields">
  <legend>Who can open it</legend>
  <p class="hint">Private unless you say otherwise: the workspace’s members can always open it. You can change this later in its settings.</p>
  ${fieldError(view.errors, 'access')}
  ${accessFields(view.values.access, view.errors, false)}
</fieldset>`
}

/** `/new`: an artifact and its first version, from pasted text or an uploaded file, with a preview before publishing. */
export function newArtifactPage(view: NewArtifactView): string {
  const { values, errors } = view
  const typeChoices: Choice[] = [
    { value: '', label: 'From the file’s extension (Markdown for typed text)' },
    ...artifactTypes.map((type) => ({ value: type, label: typeNames[type] })),
  ]
  const head = html`<meta name="robots" content="noindex">`
  if (view.projects.length === 0)
    return layout(
      { title: 'New artifact', visitor: view.visitor, head },
      html`<div class="owner-page publish-page">
  <header class="artifact-head"><h1>New artifact</h1></header>
  <div class="notice" role="status">
    <p>An artifact lives in a project, and you have none you can publish into yet.</p>
    <p><a class="button" href="${webRoutes.newProject.path()}">Create a project first</a></p>
  </div>
</div>`,
    )
  return layout(
    { title: 'New artifact', visitor: view.visitor, head },
    html`<div class="owner-page publish-page">
  <header class="artifact-head">
    <h1>New artifact</h1>
    <p class="lede">Publish a document as version 1. Every later change adds a version; none is ever lost.</p>
  </header>
  ${errorSummary(errors, view.problem, labels, 'Nothing was published')}
  ${view.preview}
  <form class="owner-form" method="post" action="${webRoutes.newArtifact.path()}" enctype="multipart/form-data" novalidate>
    ${csrfInput(view.csrfToken)}
    <input type="hidden" name="idempotency_key" value="${view.idempotencyKey}">
    ${selectField({
      name: 'project',
      label: 'Project',
      hint: html`Where it lives: its address is <code>/owner/project/slug</code>. <a href="${webRoutes.newProject.path()}">New project</a>`,
      choices: view.projects,
      value: values.project,
      errors,
    })}
    ${inputField({ name: 'title', label: 'Title', hint: 'What people see. Left empty for an uploaded Markdown file, its first heading.', value: values.title, errors, required: true, maxLength: limits.title.maxLength })}
    ${slugField({
      value: values.slug,
      error: errors.slug,
      hint: 'Its name in the address. Left empty, it is made from the title (or the file’s name).',
      maxLength: limits.slug.maxLength,
      check: view.check,
    })}
    ${selectField({ name: 'type', label: 'Type', hint: 'Markdown is rendered; the other types are shown as text.', choices: typeChoices, value: values.type, errors })}
    ${textareaField({ name: 'description', label: 'Description', hint: 'A sentence on what it is, shown in lists.', value: values.description, errors, rows: 2, maxLength: limits.description.maxLength })}
    ${contentFields(view)}
    ${accessSection(view)}
    ${inputField({ name: 'changelog', label: 'Changelog', hint: 'A note on version 1, shown in the history.', value: values.changelog, errors, maxLength: limits.changelog.maxLength })}
    <div class="actions">
      <button type="submit" name="intent" value="publish">Publish</button>
      <button type="submit" class="secondary" name="intent" value="preview" formaction="${webRoutes.newArtifact.path()}#${PREVIEW_ID}">Preview</button>
      <a class="button secondary" href="${webRoutes.home.path()}">Cancel</a>
    </div>
  </form>
</div>`,
  )
}
