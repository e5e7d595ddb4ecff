import hljs from 'highlight.js/lib/common'
import { escapeHtml } from './html.ts'

/**
 * How much of a source file (json, yaml, html, svg) one render highlights at most, in characters.
 * highlight.js writes a span per token: a 1 MiB JSON file took about 2 s and came out as 13 MiB of
 * markup. Past this budget the rest is shown escaped but plain, as GitHub stops highlighting large
 * files, so no version can hold a page render for seconds.
 */
export const HIGHLIGHT_BUDGET = 256 * 1024

/**
 * How much fenced code one Markdown document has highlighted at most, in characters; later fences
 * are shown escaped but plain. highlight.js takes about 0.3–0.6 µs a character, five to eight
 * times what markdown-it takes to render one, so this budget is what bounds the time highlighting
 * adds to the Markdown library's own render (bench/web; docs/decisions.md, "Rendering documents"):
 * 32 KiB (some 800 lines of code) is about 15 ms, a sixth of markdown-it's render of 1 MiB.
 */
export const MARKDOWN_HIGHLIGHT_BUDGET = 32 * 1024

/** What is left of a render's highlighting budget; one per render, so the result depends on the content alone. */
export interface HighlightBudget {
  remaining: number
}

/** A fresh budget of `characters` (a source file's, unless said otherwise). */
export function highlightBudget(characters = HIGHLIGHT_BUDGET): HighlightBudget {
  return { remaining: characters }
}

/**
 * Highlights code with a language highlight.js knows (the `common` set only: a few dozen grammars,
 * not all of them, so the process loads fast). Returns null for an unknown language: the caller
 * escapes the code instead, and auto-detection is never tried, because it runs every grammar over
 * the text and would make a large document's first render many times slower.
 */
function highlightCode(code: string, language: string, budget: HighlightBudget): string | null {
  if (!language || code.length > budget.remaining || !hljs.getLanguage(language)) return null
  budget.remaining -= code.length
  return hljs.highlight(code, { language, ignoreIllegals: true }).value
}

/**
 * A block of source: `<pre><code>` with highlight.js's classes when the language is known (and the
 * budget allows), else the escaped text. The `language-*` class names the language as written, as
 * GitHub does. highlight.js escapes every character of the source it emits, so the block is
 * markup made of escaped text and its own class names.
 */
export function codeBlock(code: string, language: string, budget: HighlightBudget): string {
  const highlighted = highlightCode(code, language, budget)
  const classes = [highlighted === null ? '' : 'hljs', language ? `language-${language}` : ''].filter(Boolean).join(' ')
  const open = classes ? `<pre><code class="${escapeHtml(classes)}">` : '<pre><code>'
  return `${open}${highlighted ?? escapeHtml(code)}</code></pre>\n`
}
