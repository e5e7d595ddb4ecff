import { html, type SafeHtml } from '@quire/render'
import { webRoutes } from '../web-routes.ts'
import type { SearchValues } from './form.ts'

/** What the page says before anything is searched, and after a search that found nothing. */

/** What is searched, in a sentence: the same rule as `searchArtifacts`. */
export const scopeLine =
  'Searches the titles, descriptions and text of the documents in your namespace and your workspaces, and of those shared with your email address.'

/** An example of the syntax: what to type, and what it finds. */
const examples: readonly (readonly [string, string])[] = [
  ['deploy checklist', 'documents with both words, in any form: deploy also finds “deployment”'],
  ['"rollback plan"', 'the exact phrase'],
  ['deploy -staging', 'leaves out documents with the word staging'],
  ['runbook or playbook', 'either word'],
  ['ERR_CONN_RESET', 'an identifier, or Chinese, Japanese or Korean text, as written'],
]

/** The state before a search: what is searched and how to write a query, each example a link that runs it. */
export function syntaxHelp(): SafeHtml {
  return html`<section class="search-help" aria-labelledby="syntax-heading">
  <h2 id="syntax-heading">How to search</h2>
  <p class="muted">${scopeLine} Documents that are only public, open to anyone with the link, are not listed in other people’s searches.</p>
  <dl class="search-syntax">
${examples.map(
  ([query, meaning]) => html`    <dt><a href="${webRoutes.search.path({}, { q: query })}"><code>${query}</code></a></dt><dd>${meaning}</dd>
`,
)}  </dl>
</section>`
}

/** The values as a search's query, without the empty ones and the default. */
export function searchQueryOf(values: SearchValues, changes: Partial<SearchValues> = {}): Record<string, string | undefined> {
  const all = { ...values, ...changes }
  return {
    q: all.q,
    owner: all.owner || undefined,
    project: all.project || undefined,
    type: all.type || undefined,
    versions: all.versions === 'all' ? 'all' : undefined,
  }
}

/** A search that found nothing: what was searched, and what to try next (each a link when it is a change of the query). */
export function noResults(values: SearchValues): SafeHtml {
  const filtered = values.owner !== '' || values.project !== '' || values.type !== ''
  const hints: SafeHtml[] = [
    html`<li>Check the spelling, or try fewer or other words: every word must match.</li>`,
    ...(filtered
      ? [
          html`<li><a href="${webRoutes.search.path({}, searchQueryOf(values, { owner: '', project: '', type: '' }))}">Search without the filters</a>.</li>`,
        ]
      : []),
    ...(values.versions === 'all'
      ? []
      : [
          html`<li><a href="${webRoutes.search.path({}, searchQueryOf(values, { versions: 'all' }))}">Search older versions too</a>: a word may have been in an earlier version.</li>`,
        ]),
    html`<li>Only documents you can read are searched: a document that is only public, or shared only by a link, is not listed.</li>`,
  ]
  return html`<div class="empty search-empty" role="status">
  <p><strong>No documents you can read match “${values.q}”.</strong></p>
  <ul>${hints}</ul>
</div>`
}
