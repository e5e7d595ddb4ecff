import { html, type SafeHtml } from '@quire/render'

/** What checking a slug answered: free (with the address it would have), or why not and what is free instead. */
export interface SlugCheck {
  readonly slug: string
  readonly available: boolean
  readonly reason?: 'taken' | 'invalid' | 'reserved'
  /** Free alternatives, best first (for a taken or reserved slug). */
  readonly suggestions: readonly string[]
  /** The path it would have, when free. */
  readonly path: string | null
}

export interface SlugFieldOptions {
  readonly value: string
  readonly error: string | undefined
  /** What the slug is for and what it accepts. */
  readonly hint: string
  readonly maxLength: number | undefined
  readonly check: SlugCheck | null
}

const reasons = {
  taken: 'is taken',
  reserved: 'is reserved for Quire’s own pages',
  invalid: 'is not a valid slug (lowercase letters, digits and inner hyphens)',
} as const

/** The answer of a check: free, or taken with each free alternative as a button that takes it. */
function checkResult(check: SlugCheck): SafeHtml {
  if (check.available)
    return html`<p class="slug-result free"><span aria-hidden="true">✓</span> <code>${check.slug}</code> is free${
      check.path ? html`: the address will be <code>${check.path}</code>` : null
    }.</p>`
  return html`<p class="slug-result refused"><code>${check.slug}</code> ${reasons[check.reason ?? 'taken']}.${
    check.suggestions.length > 0 ? ' Free instead:' : null
  }</p>
  ${
    check.suggestions.length > 0
      ? html`<ul class="slug-alternatives" aria-label="Free slugs">${check.suggestions.map(
          (name) =>
            html`<li><button type="submit" class="secondary compact" name="useSlug" value="${name}" formnovalidate>Use <code>${name}</code></button></li>`,
        )}</ul>`
      : null
  }`
}

/**
 * The slug of something new: proposed from the title when left empty, and checked without script
 * by a submit button (`intent=check`) that answers the form again with whether the slug is free
 * and, when not, free alternatives to take with one click. It is the form's first submit button,
 * so Enter in a field checks rather than creates: pressing Enter never writes.
 */
export function slugField(o: SlugFieldOptions): SafeHtml {
  const described = ['slug-hint', o.error ? 'slug-error' : null, o.check ? 'slug-check' : null].filter(Boolean).join(' ')
  return html`<div class="field slug-field${o.error ? ' invalid' : ''}">
  <label for="slug">Slug <span class="optional">(optional)</span></label>
  <p class="hint" id="slug-hint">${o.hint}</p>
  ${o.error ? html`<p class="field-error" id="slug-error"><span class="sr-only">Error: </span>${o.error}</p>` : null}
  <div class="slug-row">
    <input id="slug" name="slug" type="text" value="${o.value}" spellcheck="false" autocapitalize="none" autocomplete="off"${
      o.maxLength ? html` maxlength="${o.maxLength}"` : null
    } aria-describedby="${described}"${o.error ? html` aria-invalid="true"` : null}>
    <button type="submit" class="secondary" name="intent" value="check" formnovalidate>Check</button>
  </div>
  <div class="slug-check" id="slug-check" role="status">${o.check ? checkResult(o.check) : null}</div>
</div>`
}
