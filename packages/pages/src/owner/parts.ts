import type { Artifact } from '@quire/core/contract'
import { html, type SafeHtml } from '@quire/render'
import { artifactCrumbs } from '../crumbs.ts'

export { csrfField, csrfInput } from '../csrf-input.ts'

/** What is wrong with a form, by field name (`content`, `viewerEmails`…), in words for a person. */
export type FieldErrors = Readonly<Record<string, string>>

/** Ties a field to its message, so a screen reader reads the message with the field. */
export function invalidAttributes(errors: FieldErrors, name: string, hint?: string): SafeHtml {
  const described = [hint, errors[name] ? `${name}-error` : undefined].filter(Boolean).join(' ')
  return html`${errors[name] ? html` aria-invalid="true"` : null}${described ? html` aria-describedby="${described}"` : null}`
}

/** The message next to a field, when it has one. */
export function fieldError(errors: FieldErrors, name: string): SafeHtml | null {
  const message = errors[name]
  return message ? html`<p class="field-error" id="${name}-error"><span class="sr-only">Error: </span>${message}</p>` : null
}

/**
 * What went wrong, at the top of a form that came back: each field's message links to the field,
 * and a problem that belongs to no field is said here alone.
 */
export function errorSummary(
  errors: FieldErrors,
  problem: string | null,
  labels: Readonly<Record<string, string>>,
  heading = 'Nothing was saved',
): SafeHtml | null {
  const fields = Object.entries(errors)
  if (fields.length === 0 && problem === null) return null
  return html`<div class="error-summary" role="alert">
  <h2>${heading}</h2>
  ${problem ? html`<p>${problem}</p>` : null}
  ${
    fields.length > 0
      ? html`<ul>${fields.map(([name, message]) => html`<li><a href="#${name}">${labels[name] ?? name}: ${message}</a></li>`)}</ul>`
      : null
  }
</div>`
}

/** The head of an owner's page: where the artifact lives, the page's heading, a line under it. */
export function ownerHead(artifact: Artifact, heading: string, lede: SafeHtml | string | null): SafeHtml {
  return html`<header class="artifact-head">
  ${artifactCrumbs(artifact)}
  <h1>${heading}</h1>
  ${lede === null ? null : html`<p class="lede">${lede}</p>`}
</header>`
}
