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

/** The URL schemes a link may use, and those an image may load from (relative URLs are always allowed). */
const linkSchemes = ['http', 'https', 'mailto']
const imageSchemes = ['http', 'https']

/**
 * Whether `url` may stay in an `a` element's `href` or an `img` element's `src`: the test
 * sanitize-html applies to those attributes with the schemes above (through launder's
 * `naughtyHref`: characters up to space removed, then a scheme must be listed; no scheme, or a
 * scheme-relative `//host`, is allowed), so markup the renderer makes follows the same policy as
 * raw HTML the sanitiser reads. An empty URL is dropped, as the sanitiser drops empty attributes.
 */
export function urlAllowed(tag: 'a' | 'img', url: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: browsers ignore these characters in a URL, so the test does too
  const cleaned = url.replace(/[\x00-\x20]+/g, '')
  // A comment inside a URL is what launder strips before its test; the renderer never writes one
  // (it percent-encodes `<`), so such a URL is refused rather than read the same way.
  if (url === '' || cleaned.includes('<!--')) return false
  const scheme = /^([a-zA-Z][a-zA-Z0-9.\-+]*):/.exec(cleaned)?.[1]?.toLowerCase()
  return scheme === undefined || (tag === 'a' ? linkSchemes : imageSchemes).includes(scheme)
}

/** A link leaves the site: an absolute http(s) URL or a scheme-relative `//host` (or `/\host`). */
export function isExternal(href: string): boolean {
  // A browser skips leading spaces and control characters of a URL; so does this test.
  return /^[\s\p{Cc}]*(?:https?:|[/\\]{2})/iu.test(href)
}

/** The `rel` of a link that leaves the site. */
export const EXTERNAL_REL = 'nofollow noopener'

/**
 * The attributes of a link as a page shows them: external links carry `rel="nofollow noopener"`
 * (no ranking credit for spam in a published document, and no `window.opener` for the target); a
 * `rel` written in the document is replaced. For raw HTML and the renderer's own links alike.
 */
function linkAttributes(attribs: Record<string, string>): Record<string, string> {
  const { rel: _written, ...rest } = attribs
  const href = rest.href
  return href !== undefined && isExternal(href) ? { ...rest, rel: EXTERNAL_REL } : rest
}

/**
 * The attributes of an `input`: any that survives is a disabled checkbox (the task list's); raw
 * HTML cannot turn it into a text field, a button or a file picker. Its id and checked state stay.
 */
export function checkboxAttributes(attribs: Record<string, string>): Record<string, string> {
  const forced: Record<string, string> = { type: 'checkbox', disabled: '' }
  if (attribs.checked !== undefined) forced.checked = ''
  if (attribs.id !== undefined) forced.id = attribs.id
  return forced
}

const transformLink: Transformer = (tagName, attribs) => ({ tagName, attribs: linkAttributes(attribs) })
const transformInput: Transformer = (tagName, attribs) => ({ tagName, attribs: checkboxAttributes(attribs) })

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
  allowedSchemes: linkSchemes,
  allowedSchemesByTag: { img: imageSchemes },
  allowedSchemesAppliedToAttributes: ['href', 'src', 'cite'],
  allowProtocolRelative: true,
  allowedEmptyAttributes: ['alt', 'checked', 'disabled', 'open', 'reversed'],
  // No style attribute is allowed, so its CSS need not be parsed at all.
  parseStyleAttributes: false,
  transformTags: { a: transformLink, input: transformInput, img: transformImage },
}

/**
 * The one wall raw HTML passes before it reaches a page: whatever a document writes (raw HTML is
 * allowed in Markdown, as on GitHub), the result holds only the elements, attributes, classes and
 * URL schemes listed above.
 */
export function sanitize(markup: string): string {
  return sanitizeHtml(markup, options)
}

/**
 * A piece of a rendered document. `written`: markup holding HTML the document wrote. `made`:
 * markup the renderer made itself from escaped text, its own tags and the policy above, whole
 * blocks whose tags pair up. `open`: the renderer's markup around written inline content, which
 * opens or closes tags (`<li><p>`, `</p>\n</li>`). `block` numbers the top-level block a piece
 * belongs to.
 */
export interface Fragment {
  readonly markup: string
  readonly kind: 'written' | 'made' | 'open'
  readonly block: number
}

/**
 * Where the renderer's markup stands while the written HTML is sanitised: U+0000 around its
 * index. markdown-it turns every U+0000 of a source into U+FFFD, so written HTML never holds one.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: U+0000 is the point: no written HTML can hold it
const PLACEHOLDER = /\u0000(\d+)\u0000/g

/** What one try at sanitising a document's fragments gave. */
interface Attempt {
  /** The safe markup, or null when a placeholder was swallowed or stood where it may not. */
  readonly safe: string | null
  /** The blocks whose `open` fragments stood inside an element. */
  readonly misplaced: ReadonlySet<number>
}

/**
 * One try at sanitising `fragments`: the written ones go through the sanitiser as one document, so
 * their tags pair up as they would have; the renderer's are held out as placeholders, put back
 * only where the sanitiser emits them as text (its `textFilter`), and an `open` one only where no
 * element is open (no written tag spans it, so every written stretch between two of them is
 * balanced on its own). It fails when a placeholder was swallowed (into an unterminated
 * attribute, a dropped `<textarea>`, …) or an `open` one stood inside an element.
 */
function sanitizeAround(fragments: readonly Fragment[]): Attempt {
  const held: Fragment[] = []
  let skeleton = ''
  for (const fragment of fragments) {
    if (fragment.kind === 'written') skeleton += fragment.markup.replaceAll('\u0000', '\uFFFD')
    else skeleton += `\u0000${held.push(fragment) - 1}\u0000`
  }
  const restored = new Set<number>()
  const misplaced = new Set<number>()
  // Put back by concatenation, not `String.replace`: the blocks stay as the renderer built them
  // instead of being copied into one new string here.
  const restore = (text: string, tag: string | undefined) => {
    let out = ''
    let from = 0
    for (const match of text.matchAll(PLACEHOLDER)) {
      const fragment = held[Number(match[1])] as Fragment
      restored.add(Number(match[1]))
      if (fragment.kind === 'open' && tag !== undefined) misplaced.add(fragment.block)
      out += text.slice(from, match.index) + fragment.markup
      from = match.index + match[0].length
    }
    return from === 0 ? text : out + text.slice(from)
  }
  const safe = sanitizeHtml(skeleton, { ...options, textFilter: restore })
  return { safe: misplaced.size === 0 && restored.size === held.length ? safe : null, misplaced }
}

/** The same document with each of `blocks` made one `written` fragment. */
function wholeBlocks(fragments: readonly Fragment[], blocks: ReadonlySet<number>): Fragment[] {
  const out: Fragment[] = []
  for (const fragment of fragments) {
    const last = out.at(-1)
    if (!blocks.has(fragment.block) || fragment.kind === 'made') out.push(fragment)
    else if (last?.block === fragment.block && last.kind === 'written')
      out[out.length - 1] = { ...last, markup: last.markup + fragment.markup }
    else out.push({ ...fragment, kind: 'written' })
  }
  return out
}

/**
 * A rendered document made safe, sanitising only the HTML it wrote (see docs/decisions.md,
 * "Rendering documents: sanitise what the document wrote"). First with written inline content on
 * its own between the renderer's tags; where written tags span those, with the blocks concerned
 * sanitised whole; where a placeholder is swallowed even so, the whole markup. Every way, a
 * browser builds the same page from the result as from `sanitize` of the whole markup (the tests
 * compare the parsed trees), without the sanitiser reading the markup it would only have copied.
 */
export function sanitizeDocument(fragments: readonly Fragment[], way?: (taken: SanitizeWay) => void): string {
  const whole = () => fragments.map((fragment) => fragment.markup).join('')
  const done = (taken: SanitizeWay, markup: string) => {
    way?.(taken)
    return markup
  }
  if (fragments.every((fragment) => fragment.kind === 'made')) return done('nothing written', whole())
  const first = sanitizeAround(fragments)
  if (first.safe !== null) return done('inline', first.safe)
  const second = first.misplaced.size > 0 ? sanitizeAround(wholeBlocks(fragments, first.misplaced)) : null
  if (second && second.safe !== null) return done('blocks', second.safe)
  return done('whole', sanitize(whole()))
}

/** Which way `sanitizeDocument` went (told to its optional callback, for the tests). */
export type SanitizeWay = 'nothing written' | 'inline' | 'blocks' | 'whole'
