import type { SearchHit } from '@quire/core/contract'
import { html, type SafeHtml } from '@quire/render'
import { layout, type Visitor } from '../layout.ts'
import type { FieldErrors } from '../owner/parts.ts'
import { webRoutes } from '../web-routes.ts'
import { type SearchValues, searchForm } from './form.ts'
import { noResults, searchQueryOf, syntaxHelp } from './guidance.ts'
import { hitList } from './hits.ts'

/** What a search came to: nothing asked yet, a page of hits (maybe none), or a refusal of what was asked. */
export type SearchOutcome =
  | { readonly kind: 'start' }
  | {
      readonly kind: 'found'
      readonly hits: readonly SearchHit[]
      /** Where the next page starts; null on the last. */
      readonly nextCursor: string | null
      /** Where this page started; undefined on the first. */
      readonly cursor: string | undefined
    }
  | { readonly kind: 'refused'; readonly errors: FieldErrors; readonly problem: string | null }

export interface SearchView {
  readonly visitor: Visitor
  /** The time the page is made at, for "changed 5 minutes ago". */
  readonly now: Date
  readonly values: SearchValues
  readonly outcome: SearchOutcome
}

/** A page of hits, with the links to the next page and back to the first. */
function results(view: SearchView, found: Extract<SearchOutcome, { kind: 'found' }>): SafeHtml {
  const { values } = view
  const heading = html`<h2 id="results-heading" class="sr-only">Results for “${values.q}”</h2>`
  if (found.hits.length === 0 && found.cursor !== undefined)
    return html`<section aria-labelledby="results-heading">${heading}<p class="empty" role="status">No more results. <a href="${webRoutes.search.path({}, searchQueryOf(values))}">Back to the first results</a></p></section>`
  if (found.hits.length === 0) return html`<section aria-labelledby="results-heading">${heading}${noResults(values)}</section>`
  const more = found.nextCursor === null ? null : webRoutes.search.path({}, { ...searchQueryOf(values), cursor: found.nextCursor })
  const first = found.cursor === undefined ? null : webRoutes.search.path({}, searchQueryOf(values))
  return html`<section aria-labelledby="results-heading">
  ${heading}
  ${hitList(found.hits, view.now)}
  ${
    more || first
      ? html`<nav class="pager" aria-label="More results">${first ? html`<a class="button secondary" href="${first}">First results</a>` : null}${
          more ? html`<a class="button secondary" href="${more}" rel="next">More results</a>` : null
        }</nav>`
      : null
  }
</section>`
}

/**
 * `/search?q=`: the documents the signed-in person may read that match, best first, each with the
 * passages that matched and the matches marked. Before a search, how to write one; after a search
 * that found nothing, what to try; a refused query is said beside the box, which keeps it.
 */
export function searchPage(view: SearchView): string {
  const { values, outcome } = view
  const refused = outcome.kind === 'refused' ? outcome : null
  // A refused query is shown how to write one, as a first visit is.
  const content = outcome.kind === 'found' ? results(view, outcome) : syntaxHelp()
  return layout(
    {
      title: values.q === '' ? 'Search' : `${values.q} · Search`,
      visitor: view.visitor,
      head: html`<meta name="robots" content="noindex">`,
      searchBox: false,
    },
    html`<div class="search-page">
  <header class="browse-head search-head">
    <h1>Search</h1>
  </header>
  ${searchForm(values, refused?.errors ?? {}, refused?.problem ?? null)}
  ${content}
</div>`,
  )
}
