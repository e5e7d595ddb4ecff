import type MarkdownIt from 'markdown-it'
import type StateCore from 'markdown-it/lib/rules_core/state_core.mjs'
import type Token from 'markdown-it/lib/token.mjs'
import { escapeHtml } from './html.ts'

/** A heading of a rendered document, for a table of contents. */
export interface Heading {
  readonly id: string
  readonly text: string
  readonly level: number
}

/**
 * Heading ids the way GitHub makes them: lower case, punctuation dropped, spaces to hyphens, and
 * letters of any script kept as they are (not percent-encoded), so `#été` links work as written.
 */
export function slugify(title: string): string {
  const slug = title
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-')
  return slug || 'section'
}

/** A heading's text as a reader sees it: its text and inline code, without markup. */
export function inlineText(inline: Token | undefined): string {
  let text = ''
  for (const child of inline?.children ?? []) {
    if (child.type === 'text' || child.type === 'code_inline') text += child.content
    else if (child.type === 'softbreak' || child.type === 'hardbreak') text += ' '
  }
  return text
}

/** The first of `slug`, `slug-1`, `slug-2`, … not yet used in this document (GitHub's rule). */
function uniqueSlug(slug: string, used: Set<string>): string {
  let candidate = slug
  for (let n = 1; used.has(candidate); n++) candidate = `${slug}-${n}`
  used.add(candidate)
  return candidate
}

/** The wrapper a heading and its permalink stand in, opened before the heading. */
function wrapperOpen(state: StateCore): Token {
  const token = new state.Token('heading_wrapper_open', 'div', 1)
  token.block = true
  token.attrSet('class', 'markdown-heading')
  return token
}

/** The permalink after the heading, closing the wrapper; rendered by `renderPermalink`. */
function permalink(state: StateCore, id: string, title: string): Token {
  const token = new state.Token('heading_permalink', '', -1)
  token.meta = { id, title }
  return token
}

/** `<a class="header-anchor" …>#</a></div>`, from escaped values only. */
function renderPermalink(tokens: Token[], idx: number): string {
  const { id, title } = (tokens[idx] as Token).meta as { id: string; title: string }
  return `<a class="header-anchor" href="#${escapeHtml(id)}" aria-label="Permalink: ${escapeHtml(title)}">#</a></div>\n`
}

/**
 * Gives every heading an id and, as GitHub does, a labelled `#` link beside it
 * (`<div class="markdown-heading"><hN id tabindex="-1">…</hN><a class="header-anchor"
 * href="#id" aria-label="Permalink: …">#</a></div>`): the heading stays plain text for a screen
 * reader, the link is a plain fragment href (no script), and `tabindex="-1"` lets a fragment
 * jump move the focus there.
 *
 * Why not markdown-it-anchor: version 10 looks each heading up again with `tokens.indexOf` and
 * splices the permalink into the token array, both linear in the document, so a 1 MiB document
 * with 1,500 headings spent more time there than markdown-it spent on the whole render. This
 * rule rebuilds the token list once.
 */
function addHeadingAnchors(state: StateCore): void {
  const used = new Set<string>()
  const headings = (state.env as { headings?: Heading[] }).headings
  const tokens: Token[] = []
  const source = state.tokens
  for (let i = 0; i < source.length; i++) {
    const token = source[i] as Token
    const inline = source[i + 1]
    const close = source[i + 2]
    if (token.type !== 'heading_open' || !inline || !close) {
      tokens.push(token)
      continue
    }
    const title = inlineText(inline)
    const id = uniqueSlug(slugify(title), used)
    token.attrSet('id', id)
    token.attrSet('tabindex', '-1')
    tokens.push(wrapperOpen(state), token, inline, close, permalink(state, id, title.trim()))
    headings?.push({ id, text: title.trim(), level: Number(token.tag.slice(1)) })
    i += 2
  }
  state.tokens = tokens
}

/**
 * The heading-anchor plugin: ids and permalinks on every heading, after inline parsing; the
 * headings are also listed in `env.headings` when the render's `env` has that array.
 */
export function headingAnchors(md: MarkdownIt): void {
  md.renderer.rules.heading_permalink = renderPermalink
  md.core.ruler.push('heading_anchors', (state) => {
    addHeadingAnchors(state)
    return true
  })
}
