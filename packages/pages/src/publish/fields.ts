import { html, type SafeHtml } from '@quire/render'
import { type FieldErrors, fieldError, invalidAttributes } from '../owner/parts.ts'

/** The fields of the create forms besides plain text inputs: a choice and a longer text, labelled, hinted, with their errors. */

export interface Choice {
  readonly value: string
  readonly label: string
}

/** A labelled `<select>` whose chosen option is `value`. */
export function selectField(o: {
  readonly name: string
  readonly label: string
  readonly hint: string | SafeHtml
  readonly choices: readonly Choice[]
  readonly value: string
  readonly errors: FieldErrors
}): SafeHtml {
  return html`<div class="field">
  <label for="${o.name}">${o.label}</label>
  <p class="hint" id="${o.name}-hint">${o.hint}</p>
  ${fieldError(o.errors, o.name)}
  <select id="${o.name}" name="${o.name}"${invalidAttributes(o.errors, o.name, `${o.name}-hint`)}>
    ${o.choices.map((c) => html`<option value="${c.value}"${c.value === o.value ? html` selected` : null}>${c.label}</option>`)}
  </select>
</div>`
}

/** A labelled single-line input. */
export function inputField(o: {
  readonly name: string
  readonly label: string
  readonly hint: string | SafeHtml
  readonly value: string
  readonly errors: FieldErrors
  readonly required?: boolean
  readonly maxLength?: number | undefined
  readonly verbatim?: boolean
}): SafeHtml {
  return html`<div class="field">
  <label for="${o.name}">${o.label}${o.required ? null : html` <span class="optional">(optional)</span>`}</label>
  <p class="hint" id="${o.name}-hint">${o.hint}</p>
  ${fieldError(o.errors, o.name)}
  <input id="${o.name}" name="${o.name}" type="text" value="${o.value}"${o.required ? html` required` : null}${
    o.maxLength ? html` maxlength="${o.maxLength}"` : null
  }${o.verbatim ? html` spellcheck="false" autocapitalize="none" autocomplete="off"` : null}${invalidAttributes(o.errors, o.name, `${o.name}-hint`)}>
</div>`
}

/** A labelled `<textarea>`. */
export function textareaField(o: {
  readonly name: string
  readonly label: string
  readonly hint: string | SafeHtml
  readonly value: string
  readonly errors: FieldErrors
  readonly rows: number
  readonly maxLength?: number | undefined
  readonly code?: boolean
}): SafeHtml {
  return html`<div class="field">
  <label for="${o.name}">${o.label} <span class="optional">(optional)</span></label>
  <p class="hint" id="${o.name}-hint">${o.hint}</p>
  ${fieldError(o.errors, o.name)}
  <textarea id="${o.name}" name="${o.name}" rows="${o.rows}"${o.maxLength ? html` maxlength="${o.maxLength}"` : null}${
    o.code ? html` spellcheck="false" class="code"` : null
  }${invalidAttributes(o.errors, o.name, `${o.name}-hint`)}>
${o.value}</textarea>
</div>`
}
