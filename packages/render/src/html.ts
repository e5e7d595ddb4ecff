/** Markup that is already safe to send: built by `html`, never from a raw string. */
export class SafeHtml {
  readonly text: string

  constructor(text: string) {
    this.text = text
  }

  toString(): string {
    return this.text
  }
}

const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/** Escapes text for an HTML text node or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => escapes[c] ?? c)
}

type Part = SafeHtml | string | number | null | undefined | false | readonly Part[]

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return ''
  if (part instanceof SafeHtml) return part.text
  if (Array.isArray(part)) return part.map(render).join('')
  return escapeHtml(String(part))
}

/**
 * A template tag for markup: every interpolated value is escaped unless it is itself `html`, so a
 * page cannot forget to escape an email address or a provider's error message.
 */
export function html(strings: TemplateStringsArray, ...parts: Part[]): SafeHtml {
  let out = strings[0] ?? ''
  parts.forEach((part, i) => {
    out += render(part) + (strings[i + 1] ?? '')
  })
  return new SafeHtml(out)
}
