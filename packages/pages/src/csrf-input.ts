import { html, type SafeHtml } from '@quire/render'

/** The form field that carries a session's CSRF token (the sessions hook reads it, or the `X-CSRF-Token` header). */
export const csrfField = '_csrf'

/** The hidden field every form of a signed-in page sends back (the sessions hook checks it). */
export function csrfInput(token: string): SafeHtml {
  return html`<input type="hidden" name="${csrfField}" value="${token}">`
}
