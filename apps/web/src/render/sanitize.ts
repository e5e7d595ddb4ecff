import sanitizeHtml, { type AllowedAttribute, type IOptions, type Transformer } from 'sanitize-html'

/**
 * The elements a rendered document may contain: what Markdown produces and the harmless raw HTML
 * GitHub also lets through (details, kbd, sub/sup, …). Everything that runs script, loads a
 * document, submits or styles is absent: script, style, iframe, object, embed, form, base, meta,
 * link, template, svg and math. `input` stays only as the disabled checkbox of a task list.
 *
 * Ordered by how often rendered Markdown uses them: sanitize-html looks a tag up in this list with
 * `indexOf` several times per element and text, and a large table or highlighted code block has
 * tens of thousands of `td` and `span`; the order took a fifth off sanitising a 1 MiB document.
 */
const allowedTags = [
  ...['td', 'span', 'li', 'p', 'tr', 'a', 'code', 'th', 'em', 'strong', 'div', 'pre', 'ul', 'ol', 'input', 'label'],
  ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'table', 'thead', 'tbody', 'tfoot', 'caption', 'br', 'hr', 'img'],
  ...['sup', 'sub', 'section', 's', 'del', 'ins', 'strike', 'b', 'i', 'u', 'mark', 'small', 'kbd', 'samp', 'var'],
  ...['dl', 'dt', 'dd', 'details', 'summary', 'figure', 'figcaption', 'abbr', 'q', 'cite', 'dfn', 'ruby', 'rt', 'rp', 'wbr'],
]

/** Headings keep their anchor id; `tabindex` only as -1 (focusable by a fragment, not by Tab). */
const headingAttributes: AllowedAttribute[] = ['id', { name: 'tabindex', values: ['-1'] }]

/**
 * Attributes per element. No `on*`, no `style`, no `target`, no `srcset`, no `name`, no `form*`:
 * only what the Markdown renderer and its plugins emit (ids for anchors, footnotes and task items,
 * the alignment of a table column) and the plain descriptive ones.
 */
const allowedAttributes: Record<string, AllowedAttribute[]> = {
  a: ['href', 'title', 'id', 'rel', 'aria-label'],
  img: ['src', 'alt', 'title', 'width', 'height'],
  h1: headingAttributes,
  h2: headingAttributes,
  h3: headingAttributes,
  h4: headingAttributes,
  h5: headingAttributes,
  h6: headingAttributes,
  li: ['id'],
  sup: ['id'],
  ol: ['start', 'reversed'],
  th: ['align', 'colspan', 'rowspan', 'scope'],
  td: ['align', 'colspan', 'rowspan'],
  input: ['type', 'checked', 'disabled', 'id'],
  label: ['for'],
  details: ['open'],
  abbr: ['title'],
  dfn: ['title'],
}

/**
 * Class names a stylesheet may hook: highlight.js's (`hljs-*`, and its sub-scope names such as
 * `function_` that it writes without the prefix), the fence's `language-*`, and the task-list,
 * footnote and heading-anchor plugins' own. Any other class is dropped, so a document cannot borrow
 * the page's classes (a fake "button" or a notice).
 */
const allowedClasses: IOptions['allowedClasses'] = {
  '*': ['hljs', 'hljs-*', 'language-*', 'task-list-*', 'footnote*', 'header-anchor', 'markdown-heading', /^[a-z]+_+$/],
}

/**
 * Elements dropped together with their content: raw-text elements (whose content is not markup),
 * and the foreign or inert ones whose content a browser parses differently from a sanitiser
 * (the source of mutation XSS). Their text would be noise on the page anyway.
 */
const nonTextTags = [
  ...['script', 'style', 'textarea', 'option', 'select', 'xmp', 'noscript', 'noembed', 'noframes'],
  ...['plaintext', 'template', 'iframe', 'object', 'title', 'svg', 'math'],
]

/** A link leaves the site: an absolute http(s) URL or a scheme-relative `//host` (or `/\host`). */
function isExternal(href: string): boolean {
  // A browser skips leading spaces and control characters of a URL; so does this test.
  return /^[\s\p{Cc}]*(?:https?:|[/\\]{2})/iu.test(href)
}

/**
 * External links carry `rel="nofollow noopener"`: no ranking credit for spam in a published
 * document, and no `window.opener` for the target. A `rel` written in the document is replaced.
 */
const transformLink: Transformer = (tagName, attribs) => {
  const { rel: _written, ...rest } = attribs
  const href = rest.href
  return { tagName, attribs: href !== undefined && isExternal(href) ? { ...rest, rel: 'nofollow noopener' } : rest }
}

/**
 * Any `input` that survives is a disabled checkbox (the task list's): raw HTML cannot turn it
 * into a text field, a button or a file picker.
 */
const transformInput: Transformer = (tagName, attribs) => {
  const forced: Record<string, string> = { type: 'checkbox', disabled: '' }
  if (attribs.checked !== undefined) forced.checked = ''
  if (attribs.id !== undefined) forced.id = attribs.id
  return { tagName, attribs: forced }
}

/** Every image has an `alt` (empty when the document gave none), so a screen reader can skip it. */
const transformImage: Transformer = (tagName, attribs) => ({ tagName, attribs: { alt: '', ...attribs } })

/** sanitize-html's option for attributes kept when empty, which its type definitions lack. */
interface Options extends IOptions {
  readonly allowedEmptyAttributes: string[]
}

const options: Options = {
  allowedTags,
  allowedAttributes,
  allowedClasses,
  nonTextTags,
  disallowedTagsMode: 'discard',
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: { img: ['http', 'https'] },
  allowedSchemesAppliedToAttributes: ['href', 'src', 'cite'],
  allowProtocolRelative: true,
  allowedEmptyAttributes: ['alt', 'checked', 'disabled', 'open', 'reversed'],
  // No style attribute is allowed, so its CSS need not be parsed at all.
  parseStyleAttributes: false,
  transformTags: { a: transformLink, input: transformInput, img: transformImage },
}

/**
 * The one wall every library-produced fragment passes before it reaches a page: whatever the
 * Markdown renderer or a plugin let through (raw HTML is allowed in Markdown, as on GitHub), the
 * result holds only the elements, attributes, classes and URL schemes listed above.
 */
export function sanitize(markup: string): string {
  return sanitizeHtml(markup, options)
}
