import { html, type SafeHtml } from '@quire/render'
import { csrfInput } from '../csrf-input.ts'

/** What a form shows again after a refusal: the typed values, and what is wrong with each field or the whole. */
export interface FormState {
  readonly values: Readonly<Record<string, string>>
  readonly errors: Readonly<Record<string, string>>
  /** A refusal that is about no one field. */
  readonly formError: string | null
}

/** The hidden fields every form of a session posts: its CSRF token, and for a create form the key that makes a resubmission replay. */
export function hiddenFields(csrfToken: string, idempotencyKey?: string): SafeHtml {
  return html`${csrfInput(csrfToken)}${
    idempotencyKey ? html`<input type="hidden" name="idempotency_key" value="${idempotencyKey}">` : null
  }`
}

export interface TextFieldOptions {
  readonly id: string
  readonly name: string
  readonly label: string
  readonly type?: 'text' | 'email' | 'date'
  readonly value?: string
  readonly error?: string | undefined
  /** A sentence under the label: what the field is for, what it accepts. */
  readonly hint?: string | SafeHtml
  readonly required?: boolean
  readonly maxLength?: number
  readonly autocomplete?: string
  /** Names and slugs: no spell checking, no capital at the start on phones. */
  readonly verbatim?: boolean
}

/**
 * A labelled input with its hint and its error, both tied to it (`aria-describedby`), and marked
 * invalid when there is an error, so a screen reader says what is wrong on entering the field.
 */
export function textField(o: TextFieldOptions): SafeHtml {
  const hintId = o.hint ? `${o.id}-hint` : null
  const errorId = o.error ? `${o.id}-error` : null
  const described = [hintId, errorId].filter((id) => id !== null).join(' ')
  return html`<div class="field${o.error ? ' invalid' : ''}">
  <label for="${o.id}">${o.label}</label>
  ${o.hint ? html`<p class="field-hint" id="${hintId}">${o.hint}</p>` : null}
  <input id="${o.id}" name="${o.name}" type="${o.type ?? 'text'}" value="${o.value ?? ''}"${o.required ? html` required` : null}${
    o.maxLength ? html` maxlength="${o.maxLength}"` : null
  }${o.autocomplete ? html` autocomplete="${o.autocomplete}"` : null}${
    o.verbatim ? html` spellcheck="false" autocapitalize="none"` : null
  }${described ? html` aria-describedby="${described}"` : null}${o.error ? html` aria-invalid="true"` : null}>
  ${o.error ? html`<p class="field-error" id="${errorId}">${o.error}</p>` : null}
</div>`
}

/** A refusal about the whole form, announced when the page shows it. */
export function formError(message: string | null): SafeHtml | null {
  return message ? html`<p class="form-error" role="alert">${message}</p>` : null
}
