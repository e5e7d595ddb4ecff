import { footnote } from '@mdit/plugin-footnote'
import { tasklist } from '@mdit/plugin-tasklist'
import MarkdownIt from 'markdown-it'
import type Token from 'markdown-it/lib/token.mjs'
import { headingAnchors, inlineText } from './heading-anchors.ts'
import { codeBlock, type HighlightBudget, highlightBudget } from './highlight.ts'
import { plainSummary } from './summary.ts'

/** A heading of a rendered document, for a table of contents. */
export interface Heading {
  readonly id: string
  readonly text: string
  readonly level: number
}

export interface RenderedMarkdown {
  /** Unsanitised markup: the caller passes it through `sanitize` before it reaches a page. */
  readonly markup: string
  readonly headings: Heading[]
  readonly description: string | undefined
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

/** The render's state kept in markdown-it's `env`: fresh per document. */
interface RenderEnv {
  readonly highlight: HighlightBudget
}

/**
 * Fences through `codeBlock`, charged to the document's highlighting budget (markdown-it's own
 * `highlight` option cannot see the render's `env`, so it could not keep a per-document budget).
 * The language is the info string's first word, as markdown-it reads it.
 */
function highlightFences(md: MarkdownIt): void {
  md.renderer.rules.fence = (tokens, idx, _options, env: RenderEnv) => {
    const token = tokens[idx]
    if (!token) return ''
    const language = md.utils.unescapeAll(token.info).trim().split(/\s+/, 1)[0] ?? ''
    return codeBlock(token.content, language, env.highlight)
  }
}

/**
 * The one Markdown renderer: CommonMark with GitHub's extensions (tables, strikethrough,
 * autolinks, task lists, footnotes, heading anchors), raw HTML allowed because the output is
 * sanitised afterwards (as GitHub does), and fences highlighted on the server.
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
  md.use(tasklist, { disabled: true, label: true })
  md.use(footnote)
  md.use(headingAnchors)
  return md
}

const markdown = createMarkdown()

/** The document's headings, in order, with the ids the anchor plugin gave them. */
function headingsOf(tokens: Token[]): Heading[] {
  const headings: Heading[] = []
  tokens.forEach((token, i) => {
    const id = token.type === 'heading_open' ? token.attrGet('id') : null
    if (id) headings.push({ id, text: inlineText(tokens[i + 1]).trim(), level: Number(token.tag.slice(1)) })
  })
  return headings
}

/** The first paragraph's plain text, for the meta description; undefined when there is none. */
function firstParagraph(tokens: Token[]): string | undefined {
  const index = tokens.findIndex((token) => token.type === 'paragraph_open')
  if (index < 0) return undefined
  return plainSummary(inlineText(tokens[index + 1]))
}

/**
 * Renders Markdown once: a single parse feeds the markup, the headings and the description, so a
 * large document is not parsed twice. A fresh `env` per call keeps footnote and task-item
 * numbering per document, so the same source always gives the same markup.
 */
export function renderMarkdown(source: string): RenderedMarkdown {
  const env: RenderEnv = { highlight: highlightBudget() }
  const tokens = markdown.parse(source, env)
  const markup = markdown.renderer.render(tokens, markdown.options, env)
  return { markup, headings: headingsOf(tokens), description: firstParagraph(tokens) }
}
