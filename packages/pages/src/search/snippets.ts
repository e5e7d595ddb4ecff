import type { Snippet, SnippetSegment } from '@quire/core/contract'
import { html, type SafeHtml } from '@quire/render'

/**
 * A snippet's text with what the query matched in `<mark>`. The segments are text, never markup:
 * each is escaped like any value, so a document that contains `<script>` shows those characters.
 */
export function markedText(segments: readonly SnippetSegment[]): SafeHtml {
  return html`${segments.map((s) => (s.match ? html`<mark>${s.text}</mark>` : s.text))}`
}

/** The text a snippet's segments make, joined. */
export function snippetText(snippet: Pick<Snippet, 'segments'>): string {
  return snippet.segments.map((s) => s.text).join('')
}

/** Where a snippet comes from, as the row says it: the content's line, or the description. */
function whereOf(snippet: Snippet): string {
  if (snippet.field === 'content') return snippet.line === undefined ? 'Content' : `Line ${snippet.line}`
  return snippet.field === 'description' ? 'Description' : 'Title'
}

/** A hit's passages, each with where it comes from; nothing when there are none. */
export function snippetList(snippets: readonly Snippet[]): SafeHtml | null {
  if (snippets.length === 0) return null
  const item = (s: Snippet) =>
    html`<li><span class="search-snippet-where">${whereOf(s)}</span><span class="search-snippet-text">${markedText(s.segments)}</span></li>\n`
  return html`<ul class="search-snippets">
${snippets.map(item)}</ul>`
}
