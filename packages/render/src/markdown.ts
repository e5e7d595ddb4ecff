import { footnote } from '@mdit/plugin-footnote'
import { tasklist } from '@mdit/plugin-tasklist'
import MarkdownIt from 'markdown-it'
import type Token from 'markdown-it/lib/token.mjs'
import { type Heading, headingAnchors, inlineText } from './heading-anchors.ts'
import { codeBlock, type HighlightBudget, highlightBudget, MARKDOWN_HIGHLIGHT_BUDGET } from './highlight.ts'
import { checkboxAttributes, EXTERNAL_REL, type Fragment, isExternal, urlAllowed } from './sanitize.ts'
import { plainSummary } from './summary.ts'

export type { Heading } from './heading-anchors.ts'

export interface RenderedMarkdown {
  /**
   * The markup in fragments, each saying whether it holds HTML the document wrote: the caller
   * passes them through `sanitizeDocument` before they reach a page.
   */
  readonly fragments: Fragment[]
  readonly headings: Heading[]
  readonly description: string | undefined
  /** How many ```` ```mermaid ```` fences the document has: each is marked in the markup (`diagramMarker`). */
  readonly diagrams: number
}

/**
 * Autolinks as GitHub makes them: URLs with a scheme, `www.` hosts and e-mail addresses. A bare
 * `host.tld` is left alone, or every `README.md`, `main.py` and `setup.sh` in prose would become a
 * link to a foreign domain (`.md`, `.py` and `.sh` are country domains).
 */
function keepGithubAutolinks(md: MarkdownIt): void {
  const linkify = md.linkify
  const match = linkify.match.bind(linkify)
  linkify.match = (text) => {
    const found = match(text)
    if (!found) return null
    return found.filter((link) => link.schema !== '' || /^www\./i.test(link.raw))
  }
}

/**
 * A table column's alignment as the `align` attribute (as GitHub writes it) instead of markdown-it's
 * `style="text-align:…"`: the sanitiser drops every style attribute, and the CSP forbids them too.
 */
function alignCellsWithAttribute(md: MarkdownIt): void {
  for (const rule of ['th_open', 'td_open'] as const) {
    md.renderer.rules[rule] = (tokens, idx, options, _env, self) => {
      const token = tokens[idx]
      const style = token?.attrGet('style')
      if (token && style) {
        token.attrs = (token.attrs ?? []).filter(([name]) => name !== 'style')
        const align = /text-align:(left|center|right)/.exec(style)?.[1]
        if (align) token.attrSet('align', align)
      }
      return self.renderToken(tokens, idx, options)
    }
  }
}

/**
 * The renderer's own links, images and task-list checkboxes under the sanitiser's policy, so that
 * markup made from Markdown syntax needs no sanitising (see `sanitizeDocument`): a link or image
 * URL with a scheme the sanitiser would drop is dropped here (markdown-it alone allows `ftp:`,
 * `data:image/png`, …), external links get the same `rel`, and a checkbox the same attributes.
 */
function applyLinkPolicy(md: MarkdownIt): void {
  const withoutAttribute = (token: Token, name: string) => {
    token.attrs = (token.attrs ?? []).filter(([attribute]) => attribute !== name)
  }
  md.renderer.rules.link_open = (tokens, idx, options, _env, self) => {
    const token = tokens[idx] as Token
    const href = token.attrGet('href')
    // markdown-it writes no `rel`; a plugin's would be replaced, as the sanitiser replaces one.
    if (token.attrGet('rel') !== null) withoutAttribute(token, 'rel')
    if (href !== null && !urlAllowed('a', href)) withoutAttribute(token, 'href')
    else if (href !== null && isExternal(href)) token.attrSet('rel', EXTERNAL_REL)
    return self.renderToken(tokens, idx, options)
  }
  const image = md.renderer.rules.image
  md.renderer.rules.image = (tokens, idx, options, env, self) => {
    const token = tokens[idx] as Token
    const src = token.attrGet('src')
    if (src !== null && !urlAllowed('img', src)) withoutAttribute(token, 'src')
    return image ? image(tokens, idx, options, env, self) : self.renderToken(tokens, idx, options)
  }
  md.renderer.rules.checkbox_input = (tokens, idx, options, _env, self) => {
    const token = tokens[idx] as Token
    token.attrs = Object.entries(checkboxAttributes(Object.fromEntries(token.attrs ?? [])))
    return self.renderToken(tokens, idx, options)
  }
}

/** The render's state kept in markdown-it's `env`: fresh per document. */
interface RenderEnv {
  readonly highlight: HighlightBudget
  /** Filled by the heading-anchor rule, in document order. */
  readonly headings: Heading[]
  /** Mermaid fences seen so far. */
  diagrams: number
}

/** A fence's language: the info string's first word, as markdown-it reads it. */
function fenceLanguage(md: MarkdownIt, token: Token): string {
  return md.utils.unescapeAll(token.info).trim().split(/\s+/, 1)[0] ?? ''
}

/**
 * Around the highlighted source of the document's Nth Mermaid fence, so that a page can draw the
 * diagram there (from the content origin) and keep the source beside it. Nothing a document writes
 * can make these comments: its own HTML goes through the sanitiser, which drops every comment, and
 * its text is escaped.
 */
export const diagramMarker = { open: (index: number) => `<!--quire:diagram:${index}-->`, close: '<!--/quire:diagram-->' }

/** The marked diagrams of rendered markup: index, and the highlighted source between the markers. */
export const diagramMarkers = /<!--quire:diagram:(\d+)-->([\s\S]*?)<!--\/quire:diagram-->/g

/**
 * Fences through `codeBlock`, charged to the document's highlighting budget (markdown-it's own
 * `highlight` option cannot see the render's `env`, so it could not keep a per-document budget).
 * The language is the info string's first word, as markdown-it reads it.
 */
function highlightFences(md: MarkdownIt): void {
  md.renderer.rules.fence = (tokens, idx, _options, env: RenderEnv) => {
    const token = tokens[idx]
    if (!token) return ''
    const language = fenceLanguage(md, token)
    const code = codeBlock(token.content, language, env.highlight)
    if (language !== 'mermaid') return code
    return `${diagramMarker.open(env.diagrams++)}${code}${diagramMarker.close}`
  }
}

/**
 * The one Markdown renderer: CommonMark with GitHub's extensions (tables, strikethrough,
 * autolinks, task lists, footnotes, heading anchors), raw HTML allowed because the HTML a
 * document writes is sanitised afterwards (as GitHub does), and fences highlighted on the server.
 */
function createMarkdown(): MarkdownIt {
  const md = new MarkdownIt({
    html: true,
    linkify: true,
    typographer: false,
  })
  keepGithubAutolinks(md)
  alignCellsWithAttribute(md)
  highlightFences(md)
  applyLinkPolicy(md)
  md.use(tasklist, { disabled: true, label: true })
  md.use(footnote)
  md.use(headingAnchors)
  return md
}

const markdown = createMarkdown()

/** The first paragraph's plain text, for the meta description; undefined when there is none. */
function firstParagraph(tokens: Token[]): string | undefined {
  const index = tokens.findIndex((token) => token.type === 'paragraph_open')
  if (index < 0) return undefined
  return plainSummary(inlineText(tokens[index + 1]))
}

/** Whether an inline token holds raw tags the document wrote. */
function holdsInlineHtml(token: Token): boolean {
  // Raw tags need a `<` in the source: most inline content is settled without looking at its children.
  return token.type === 'inline' && token.content.includes('<') && (token.children ?? []).some((child) => child.type === 'html_inline')
}

/**
 * What a top-level block (a paragraph, a list, a table, a fence, a raw HTML block, …; from its
 * opening token to the one that closes it) holds: HTML blocks the document wrote (anywhere in it),
 * raw tags in its inline content only, or nothing written.
 */
type BlockKind = 'written' | 'inline' | 'made'

/** Elements that have no end tag. */
const VOID_ELEMENTS = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr'])

/**
 * About how many elements raw HTML leaves open: start tags (other than void and self-closed
 * ones) less end tags. Only an estimate, to choose how to first try sanitising (the try checks
 * itself), so comments and raw text are not told apart.
 */
function elementsLeftOpen(html: string): number {
  let open = 0
  for (const [, end, name = '', selfClosed] of html.matchAll(/<(\/?)([a-zA-Z][a-zA-Z0-9-]*)[^>]*?(\/?)>/g))
    if (end) open--
    else if (!selfClosed && !VOID_ELEMENTS.has(name.toLowerCase())) open++
  return open
}

/**
 * Renders tokens `[start, end)` as markdown-it's `Renderer.render` does, seeing the whole token
 * list. The pieces are joined once, into one flat string, rather than appended one by one (a
 * string of a hundred thousand appended pieces costs every later reader a walk through them).
 */
function renderRange(tokens: Token[], start: number, end: number, env: RenderEnv): string {
  const renderer = markdown.renderer
  const pieces: string[] = []
  for (let i = start; i < end; i++) {
    const token = tokens[i] as Token
    const rule = renderer.rules[token.type]
    if (token.type === 'inline') pieces.push(renderer.renderInline(token.children ?? [], markdown.options, env))
    else pieces.push(rule ? rule(tokens, i, markdown.options, env, renderer) : renderer.renderToken(tokens, i, markdown.options))
  }
  return pieces.join('')
}

/**
 * The document's markup as fragments for `sanitizeDocument`, block by block. A block without
 * written HTML is one `made` fragment; a block holding HTML blocks is one `written` fragment; in a
 * block whose only written HTML is inline, each such inline content is a `written` fragment and
 * the renderer's markup around it `open` fragments (tags it opens or closes). Neighbouring `made`
 * blocks are joined. Rendering fragment after fragment gives the same markup as one render.
 */
function fragmentsOf(tokens: Token[], env: RenderEnv): Fragment[] {
  const fragments: Fragment[] = []
  const push = (markup: string, kind: Fragment['kind'], block: number) => {
    const last = fragments.at(-1)
    if (kind === 'made' && last?.kind === 'made') fragments[fragments.length - 1] = { ...last, markup: last.markup + markup }
    else if (markup !== '') fragments.push({ markup, kind, block })
  }
  let start = 0
  let depth = 0
  let kind: BlockKind = 'made'
  let block = 0
  // Inside an element a raw HTML block left open (a `<details>` around paragraphs), written inline
  // content cannot be sanitised on its own between the renderer's tags: such blocks go whole.
  let leftOpen = 0
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as Token
    if (token.type === 'html_block') {
      kind = 'written'
      leftOpen = Math.max(0, leftOpen + elementsLeftOpen(token.content))
    } else if (kind === 'made' && holdsInlineHtml(token)) kind = leftOpen > 0 ? 'written' : 'inline'
    depth += token.nesting
    if (depth !== 0 && i < tokens.length - 1) continue
    // One top-level block: tokens [start, i]. (Tokens always pair up; were some left open at the
    // end, they would form a last block that goes through the sanitiser whole.)
    if (depth !== 0) kind = 'written'
    if (kind !== 'inline') push(renderRange(tokens, start, i + 1, env), kind, block)
    else {
      let from = start
      for (let j = start; j <= i; j++) {
        const inline = tokens[j] as Token
        if (!holdsInlineHtml(inline)) continue
        push(renderRange(tokens, from, j, env), 'open', block)
        push(renderRange(tokens, j, j + 1, env), 'written', block)
        from = j + 1
      }
      push(renderRange(tokens, from, i + 1, env), 'open', block)
    }
    start = i + 1
    kind = 'made'
    block++
  }
  return fragments
}

/**
 * Renders Markdown once: a single parse feeds the markup, the headings and the description, so a
 * large document is not parsed twice. A fresh `env` per call keeps footnote and task-item
 * numbering per document, so the same source always gives the same markup.
 */
export function renderMarkdown(source: string): RenderedMarkdown {
  const env: RenderEnv = { highlight: highlightBudget(MARKDOWN_HIGHLIGHT_BUDGET), headings: [], diagrams: 0 }
  const tokens = markdown.parse(source, env)
  const fragments = fragmentsOf(tokens, env)
  return { fragments, headings: env.headings, description: firstParagraph(tokens), diagrams: env.diagrams }
}

/**
 * The sources of a Markdown document's ```` ```mermaid ```` fences, in the order the render
 * numbers them (`diagramMarker`): what the content origin draws for diagram N.
 */
export function mermaidDiagrams(source: string): string[] {
  const env: RenderEnv = { highlight: highlightBudget(0), headings: [], diagrams: 0 }
  return markdown
    .parse(source, env)
    .filter((token) => token.type === 'fence' && fenceLanguage(markdown, token) === 'mermaid')
    .map((token) => token.content)
}
