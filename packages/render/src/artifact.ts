import type { ArtifactType } from '@quire/core'
import { csvTable, parseCsv } from './csv.ts'
import { codeBlock, highlightBudget } from './highlight.ts'
import { escapeHtml, SafeHtml } from './html.ts'
import { type Heading, renderMarkdown } from './markdown.ts'
import { sanitizeDocument } from './sanitize.ts'
import { firstTextParagraph } from './summary.ts'

export interface ArtifactSource {
  readonly type: ArtifactType
  /** The version's content: UTF-8 text, at most 1 MiB. */
  readonly content: string
}

export interface RenderedArtifact {
  /** Safe to embed in a page as it is: sanitised, or built from escaped text only. */
  readonly html: SafeHtml
  /** A Markdown document's headings with their anchor ids (empty for other types). */
  readonly headings: readonly Heading[]
  /** Plain text of the first paragraph (Markdown, text), for the meta description. */
  readonly description?: string
  /** A Markdown document's Mermaid fences, marked in `html` (`diagramMarkers`); absent: none. */
  readonly diagrams?: number
}

/**
 * Wraps markup this module has made safe. The pages' `SafeHtml` is otherwise built only by the
 * `html` template; here it is the sanitiser's output or text escaped by `escapeHtml`.
 */
function trusted(markup: string): SafeHtml {
  // Markup built by concatenation (the renderer's and the sanitiser's are) is a tree of thousands
  // of pieces, and a page that embeds it walks the tree again every time it is sent. Reading a
  // character joins it into one buffer in place (V8 flattens the string), once per render: a cached
  // 64 KiB document's page was served twice as fast (bench/web).
  markup.charCodeAt(0)
  return new SafeHtml(markup)
}

/** Text shown as it is, escaped, in a `<pre>`: plain text, and a CSV that does not parse. */
function preformatted(content: string, className: string): SafeHtml {
  return trusted(`<pre class="${className}">${escapeHtml(content)}</pre>\n`)
}

/**
 * Source shown highlighted in a `<pre><code>`. highlight.js escapes every character it emits and
 * adds only its own spans, so this skips the sanitiser: for a large JSON file the sanitiser would
 * cost more than the highlighting (13 MiB of spans for 1 MiB of JSON).
 */
function source(content: string, language: string): SafeHtml {
  return trusted(codeBlock(content, language, highlightBudget()))
}

/**
 * Markdown: rendered, then the HTML the document wrote sanitised (the renderer's own blocks are
 * kept as they are, see `sanitizeDocument`); headings and description from the same parse.
 */
function markdownArtifact(content: string): RenderedArtifact {
  const { fragments, headings, description, diagrams } = renderMarkdown(content)
  return {
    html: trusted(sanitizeDocument(fragments)),
    headings,
    ...(description ? { description } : {}),
    ...(diagrams > 0 ? { diagrams } : {}),
  }
}

/** CSV as a table, or as escaped text when it is not well-formed CSV. */
function csvArtifact(content: string): RenderedArtifact {
  const records = parseCsv(content)
  if (!records || records.length === 0) return { html: preformatted(content, 'text'), headings: [] }
  return { html: trusted(csvTable(records)), headings: [] }
}

/**
 * Turns an artifact version's content into markup a page can embed, by type. The result depends on
 * the type and content alone, so a caller may cache it by content hash. `html` and `svg` are never
 * rendered on the app origin (their script would run there): here they are source, as is `mermaid`
 * (drawing it needs a script); a page draws them from the content origin, with this as the source
 * tab. A Markdown document's Mermaid fences are marked (`diagramMarkers`) for the same reason.
 */
export function renderArtifact(artifact: ArtifactSource): RenderedArtifact {
  const { type, content } = artifact
  switch (type) {
    case 'md':
      return markdownArtifact(content)
    case 'txt': {
      const description = firstTextParagraph(content)
      return { html: preformatted(content, 'text'), headings: [], ...(description ? { description } : {}) }
    }
    case 'json':
    case 'yaml':
      return { html: source(content, type), headings: [] }
    case 'html':
    case 'svg':
      return { html: source(content, 'xml'), headings: [] }
    case 'csv':
      return csvArtifact(content)
    case 'mermaid':
      // highlight.js has no mermaid grammar: the source comes out escaped, classed for a stylesheet.
      return { html: source(content, 'mermaid'), headings: [] }
  }
}
