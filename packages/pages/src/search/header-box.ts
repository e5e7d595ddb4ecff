import { SEARCH_QUERY_MAX_LENGTH } from '@quire/core/contract'
import { html, type SafeHtml } from '@quire/render'
import { webRoutes } from '../web-routes.ts'

/** The box in the header of every page for someone signed in: a GET of `/search`, labelled for screen readers, Enter to search. */
export function headerSearch(): SafeHtml {
  return html`<form class="site-search" role="search" aria-label="Site" method="get" action="${webRoutes.search.path()}">
  <label class="sr-only" for="site-search">Search your documents</label>
  <input id="site-search" name="q" type="search" placeholder="Search documents" maxlength="${SEARCH_QUERY_MAX_LENGTH}" autocomplete="off" spellcheck="false" enterkeyhint="search">
  <button type="submit" class="site-search-button"><svg aria-hidden="true" focusable="false" width="16" height="16" viewBox="0 0 16 16"><circle cx="7" cy="7" r="5" fill="none" stroke="currentColor" stroke-width="2"/><path d="M11 11l3.5 3.5" stroke="currentColor" stroke-width="2" stroke-linecap="round"/></svg><span class="sr-only">Search</span></button>
</form>`
}
