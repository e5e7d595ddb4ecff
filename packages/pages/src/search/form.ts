import { artifactTypes, SEARCH_QUERY_MAX_LENGTH } from '@quire/core/contract'
import { html, type SafeHtml } from '@quire/render'
import { type FieldErrors, fieldError, invalidAttributes } from '../owner/parts.ts'
import { typeNames } from '../publish/new-artifact.ts'
import { webRoutes } from '../web-routes.ts'

/** The search form's fields as typed (empty when not given): the query and its filters. */
export interface SearchValues {
  readonly q: string
  readonly owner: string
  readonly project: string
  readonly type: string
  /** `all`: older versions are searched too (the "older versions too" box). */
  readonly versions: 'latest' | 'all'
}

/** The syntax in one line, under the search page's box: each form whole on its line. */
const syntaxLine = html`Words (all must match), <code>"an exact phrase"</code>, <code>-leave-out</code>, <code>this or that</code>.`

/** A text filter: its label, an example as placeholder, its error. */
function textFilter(name: 'project' | 'owner', label: string, example: string, value: string, errors: FieldErrors): SafeHtml {
  return html`<div class="search-filter">
    <label for="${name}">${label}</label>
    ${fieldError(errors, name)}
    <input id="${name}" name="${name}" type="text" value="${value}" placeholder="${example}" spellcheck="false" autocapitalize="none" autocomplete="off"${invalidAttributes(errors, name)}>
  </div>`
}

/**
 * The search page's form: the query, then the filters (type, project, owner, older versions). A
 * plain GET form, so it works without script and its URL is the search, to keep or share; a
 * refusal is said beside the field it concerns, or under the box when it concerns none.
 */
export function searchForm(values: SearchValues, errors: FieldErrors, problem: string | null): SafeHtml {
  const described = ['q-hint', problem === null ? null : 'search-problem', errors.q ? 'q-error' : null].filter(Boolean).join(' ')
  return html`<form class="search-form" role="search" aria-label="Documents" method="get" action="${webRoutes.search.path()}">
  <label class="sr-only" for="q">Search for</label>
  <div class="search-row">
    <input id="q" name="q" type="search" value="${values.q}" maxlength="${SEARCH_QUERY_MAX_LENGTH}" autocomplete="off" spellcheck="false" enterkeyhint="search"${
      errors.q || problem !== null ? html` aria-invalid="true"` : null
    } aria-describedby="${described}">
    <button type="submit">Search</button>
  </div>
  ${fieldError(errors, 'q')}
  ${problem === null ? null : html`<p class="field-error" id="search-problem" role="alert">${problem}</p>`}
  <p class="hint" id="q-hint">${syntaxLine}</p>
  <fieldset class="search-filters">
    <legend class="sr-only">Filters</legend>
    <div class="search-filter">
      <label for="type">Type</label>
      ${fieldError(errors, 'type')}
      <select id="type" name="type"${invalidAttributes(errors, 'type')}>
        <option value="">Any type</option>
        ${artifactTypes.map((type) => html`<option value="${type}"${type === values.type ? html` selected` : null}>${typeNames[type]}</option>`)}
      </select>
    </div>
    ${textFilter('project', 'Project', 'owner/project', values.project, errors)}
    ${textFilter('owner', 'Owner', 'user or workspace', values.owner, errors)}
    <label class="check search-versions"><input type="checkbox" name="versions" value="all"${values.versions === 'all' ? html` checked` : null}> Older versions too</label>
  </fieldset>
</form>`
}
