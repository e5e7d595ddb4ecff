import type MarkdownIt from 'markdown-it'
import type StateCore from 'markdown-it/lib/rules_core/state_core.mjs'
import type Token from 'markdown-it/lib/token.mjs'
import { escapeHtml } from '../pages/html.ts'

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

/** A raw block of markup made here from escaped values (the sanitiser still checks it). */
function markupBlock(state: StateCore, content: string): Token {
  const token = new state.Token('html_block', '', 0)
  token.content = content
  return token
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
    const link = `<a class="header-anchor" href="#${escapeHtml(id)}" aria-label="Permalink: ${escapeHtml(title.trim())}">#</a></div>\n`
    tokens.push(markupBlock(state, '<div class="markdown-heading">\n'), token, inline, close, markupBlock(state, link))
    i += 2
  }
  state.tokens = tokens
}

/** The heading-anchor plugin: ids and permalinks on every heading, after inline parsing. */
export function headingAnchors(md: MarkdownIt): void {
  md.core.ruler.push('heading_anchors', (state) => {
    addHeadingAnchors(state)
    return true
  })
}
