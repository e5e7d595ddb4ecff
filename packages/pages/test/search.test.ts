/**
 * The search page and the header's search box, as the functions they are. Before a search: the
 * form and how to write a query. Hits: the title linking to the artifact (or to the version that
 * matched when it is an older one), its path, type, version, access and last change, and the
 * passages with the matches in `<mark>`, every segment escaped as text. No hits: what was
 * searched and what to try. A refused query: the form again with the reason beside the box. More
 * results: a link with the cursor and every filter. The header carries the box on every page for
 * someone signed in (not on the search page, whose form is that box), never for a visitor.
 */

import type { Artifact, SearchHit } from '@quire/core/contract'
import { html } from '@quire/render'
import { describe, expect, it } from 'vitest'
import { layout, type SearchOutcome, type SearchValues, searchPage } from '../src/index.ts'
import { hitPath } from '../src/search/hits.ts'
import { markedText } from '../src/search/snippets.ts'

const now = new Date('2026-03-10T12:00:00.000Z')
const visitor = { email: 'ada@example.com', username: 'ada', csrfToken: 'csrf-1' }
const actor = { kind: 'user', id: 'usr_ada1', label: 'ada' } as const
const blank: SearchValues = { q: '', owner: '', project: '', type: '', versions: 'latest' }

function artifact(overrides: Partial<Artifact> & Pick<Artifact, 'slug'>): Artifact {
  return {
    id: `art_${overrides.slug}`,
    ownerUsername: 'ada',
    projectSlug: 'ops',
    type: 'md',
    title: `Title of ${overrides.slug}`,
    description: '',
    access: { publicView: false, publicEdit: false },
    latestVersion: 1,
    url: `https://quire.example/ada/ops/${overrides.slug}`,
    createdAt: '2026-03-01T09:00:00.000Z',
    updatedAt: '2026-03-10T11:55:00.000Z',
    createdBy: actor,
    ...overrides,
  }
}

const checklist: SearchHit = {
  artifact: artifact({
    slug: 'deploy-checklist',
    title: 'Deploy checklist',
    latestVersion: 3,
    access: { publicView: true, publicEdit: false },
  }),
  version: 3,
  score: 0.9,
  snippets: [
    {
      field: 'title',
      segments: [
        { text: 'Deploy', match: true },
        { text: ' checklist', match: false },
      ],
    },
    {
      field: 'content',
      line: 12,
      segments: [
        { text: 'Before you ', match: false },
        { text: 'deploy', match: true },
        { text: ', read the runbook.', match: false },
      ],
    },
  ],
}

const oldPlan: SearchHit = {
  artifact: artifact({ slug: 'plan', title: 'Release plan', type: 'txt', latestVersion: 5, updatedAt: '2026-02-01T10:00:00.000Z' }),
  version: 2,
  score: 0.4,
  snippets: [{ field: 'description', segments: [{ text: 'How we deploy on Fridays', match: false }] }],
}

function page(values: Partial<SearchValues>, outcome: SearchOutcome): string {
  return searchPage({ visitor, now, values: { ...blank, ...values }, outcome })
}

const found = (hits: SearchHit[], more: Partial<Extract<SearchOutcome, { kind: 'found' }>> = {}): SearchOutcome => ({
  kind: 'found',
  hits,
  nextCursor: null,
  cursor: undefined,
  ...more,
})

/** The page's main content (the header has its own links). */
const main = (text: string) => text.slice(text.indexOf('<main>'), text.indexOf('</main>'))

describe('the search form', () => {
  it('is a labelled GET form of /search with the query, the filters and the older-versions box, as typed', () => {
    const body = page({ q: 'deploy "roll back"', project: 'ada/ops', owner: 'ada', type: 'json', versions: 'all' }, found([]))
    expect(body).toContain('<form class="search-form" role="search" aria-label="Documents" method="get" action="/search">')
    expect(body).toContain('<label class="sr-only" for="q">Search for</label>')
    expect(body).toContain('id="q" name="q" type="search" value="deploy &quot;roll back&quot;"')
    expect(body).toContain('<label for="type">Type</label>')
    expect(body).toContain('<option value="">Any type</option>')
    expect(body).toContain('<option value="json" selected>JSON</option>')
    expect(body).toContain('<label for="project">Project</label>')
    expect(body).toContain('id="project" name="project" type="text" value="ada/ops"')
    expect(body).toContain('id="owner" name="owner" type="text" value="ada"')
    expect(body).toContain('<input type="checkbox" name="versions" value="all" checked> Older versions too</label>')
    // Every field the form has is one the route's table lets a link carry.
    for (const name of ['q', 'owner', 'project', 'type', 'versions']) expect(body).toContain(`name="${name}"`)
  })

  it('leaves the older-versions box unticked and no type chosen by default', () => {
    const body = page({ q: 'deploy' }, found([]))
    expect(body).not.toContain(' checked>')
    expect(body).not.toContain(' selected>')
  })
})

describe('before a search', () => {
  const body = page({}, { kind: 'start' })

  it('explains what is searched and the syntax, each example a search to run', () => {
    expect(body).toContain('<h1>Search</h1>')
    expect(body).toContain('How to search')
    expect(body).toContain('shared with your email address')
    expect(body).toContain('are not listed in other people’s searches')
    expect(body).toContain('<a href="/search?q=deploy%20checklist"><code>deploy checklist</code></a>')
    expect(body).toContain('<code>&quot;rollback plan&quot;</code>')
    expect(body).toContain('<code>deploy -staging</code>')
    expect(body).toContain('<code>runbook or playbook</code>')
    expect(body).toContain('<code>ERR_CONN_RESET</code>')
    expect(body).not.toContain('search-hits')
  })

  it('is titled Search, and not indexed', () => {
    expect(body).toContain('<title>Search · Quire</title>')
    expect(body).toContain('<meta name="robots" content="noindex">')
  })
})

describe('hits', () => {
  const body = page({ q: 'deploy' }, found([checklist, oldPlan]))

  it('are listed in the order given, best first', () => {
    expect(main(body).indexOf('Deploy')).toBeLessThan(main(body).indexOf('Release plan'))
    expect(body).toContain('<ol class="listing search-hits">')
    expect(body).toContain('<title>deploy · Search · Quire</title>')
  })

  it('link the title to the artifact, the matches of the title marked, with its path, type, access and last change', () => {
    expect(body).toContain('<a class="listing-title" href="/ada/ops/deploy-checklist"><mark>Deploy</mark> checklist</a>')
    expect(body).toContain('<a class="listing-project" href="/ada/ops">ada / ops</a> / deploy-checklist')
    expect(body).toContain('<span class="type-tag" title="Type">md</span>')
    expect(body).toContain('<span class="badge">Public</span>')
    expect(body).toContain('<time datetime="2026-03-10T11:55:00.000Z" title="2026-03-10 11:55 UTC">5 minutes ago</time>')
  })

  it('link an older version that matched to that version, and say which', () => {
    expect(body).toContain('<a class="listing-title" href="/ada/ops/plan?version=2">Release plan</a>')
    expect(body).toContain('Version 2 of 5')
    expect(body).toContain('<span class="badge private">Private</span>')
    expect(body).not.toContain('Version 3 of 3')
    expect(hitPath(checklist)).toBe('/ada/ops/deploy-checklist')
  })

  it("show each passage with where it is (a content snippet's line), matches in <mark>", () => {
    expect(body).toContain(
      '<span class="search-snippet-where">Line 12</span><span class="search-snippet-text">Before you <mark>deploy</mark>, read the runbook.</span>',
    )
    expect(body).toContain(
      '<span class="search-snippet-where">Description</span><span class="search-snippet-text">How we deploy on Fridays</span>',
    )
    // The title's snippet is the link itself, not repeated below it.
    expect(body).not.toContain('<span class="search-snippet-where">Title</span>')
  })

  it('keep a title snippet that is not the whole title as a passage', () => {
    const partial: SearchHit = {
      ...checklist,
      snippets: [{ field: 'title', segments: [{ text: 'Deploy', match: true }] }],
    }
    const text = page({ q: 'deploy' }, found([partial]))
    expect(text).toContain('<a class="listing-title" href="/ada/ops/deploy-checklist">Deploy checklist</a>')
    expect(text).toContain('<span class="search-snippet-where">Title</span><span class="search-snippet-text"><mark>Deploy</mark></span>')
  })

  it('never take a segment as markup: a document holding <script> shows it as text', () => {
    const hostile: SearchHit = {
      artifact: artifact({ slug: 'xss', title: '<img src=x onerror=alert(1)>' }),
      version: 1,
      score: 1,
      snippets: [
        {
          field: 'content',
          line: 3,
          segments: [
            { text: '<script>alert("a")</script> ', match: false },
            { text: '<b>deploy</b>', match: true },
            { text: ' & "done"', match: false },
          ],
        },
        { field: 'title', segments: [{ text: '<img src=x onerror=alert(1)>', match: true }] },
      ],
    }
    const text = main(page({ q: '<script>' }, found([hostile])))
    expect(text).not.toContain('<script>')
    expect(text).not.toContain('<b>')
    expect(text).not.toContain('<img')
    expect(text).toContain(
      '&lt;script&gt;alert(&quot;a&quot;)&lt;/script&gt; <mark>&lt;b&gt;deploy&lt;/b&gt;</mark> &amp; &quot;done&quot;',
    )
    expect(text).toContain('<mark>&lt;img src=x onerror=alert(1)&gt;</mark></a>')
    expect(markedText([{ text: '</mark><script>', match: true }]).text).toBe('<mark>&lt;/mark&gt;&lt;script&gt;</mark>')
  })
})

describe('more results', () => {
  it('is a link with the cursor that keeps the query and every filter', () => {
    const body = page({ q: 'deploy', project: 'ada/ops', type: 'md', versions: 'all' }, found([checklist], { nextCursor: 'c2' }))
    expect(body).toContain(
      '<a class="button secondary" href="/search?q=deploy&amp;project=ada%2Fops&amp;type=md&amp;versions=all&amp;cursor=c2" rel="next">More results</a>',
    )
    expect(body).not.toContain('First results')
  })

  it('leads back to the first results from a later page, and says when there are no more', () => {
    const later = page({ q: 'deploy' }, found([checklist], { cursor: 'c2' }))
    expect(later).toContain('<a class="button secondary" href="/search?q=deploy">First results</a>')
    expect(later).not.toContain('More results</a>')
    const past = page({ q: 'deploy' }, found([], { cursor: 'c3' }))
    expect(past).toContain('No more results.')
    expect(past).not.toContain('No documents you can read match')
  })
})

describe('no results', () => {
  it('says nothing the person may read matches, escaped, with what to try', () => {
    const body = page({ q: 'zebra <i>' }, found([]))
    expect(body).toContain('No documents you can read match “zebra &lt;i&gt;”.')
    expect(body).toContain('Check the spelling')
    expect(body).toContain('<a href="/search?q=zebra%20%3Ci%3E&amp;versions=all">Search older versions too</a>')
    expect(body).not.toContain('Search without the filters')
    expect(body).toContain('Only documents you can read are searched')
  })

  it('offers to drop the filters when there are some, and no older versions when they were searched', () => {
    const body = page({ q: 'zebra', type: 'csv', owner: 'acme', versions: 'all' }, found([]))
    expect(body).toContain('<a href="/search?q=zebra&amp;versions=all">Search without the filters</a>')
    expect(body).not.toContain('Search older versions too')
  })
})

describe('a refused search', () => {
  it('shows the reason beside the field it concerns, the form as typed', () => {
    const body = page(
      { q: 'deploy', project: 'not a project' },
      { kind: 'refused', errors: { project: 'Name a project as owner/project.' }, problem: null },
    )
    expect(body).toContain(
      '<p class="field-error" id="project-error"><span class="sr-only">Error: </span>Name a project as owner/project.</p>',
    )
    expect(body).toMatch(
      /id="project" name="project" type="text" value="not a project"[^>]* aria-invalid="true" aria-describedby="project-error"/,
    )
    expect(body).not.toContain('search-hits')
    // And how to write a query, below.
    expect(body).toContain('How to search')
  })

  it('shows a refusal of no one field under the box, tied to it', () => {
    const body = page({ q: 'a b c' }, { kind: 'refused', errors: {}, problem: 'The query has more than 16 words.' })
    expect(body).toContain('<p class="field-error" id="search-problem" role="alert">The query has more than 16 words.</p>')
    expect(body).toContain('aria-invalid="true" aria-describedby="q-hint search-problem"')
    expect(body).toContain('value="a b c"')
  })
})

describe("the header's search box", () => {
  const signedIn = layout({ title: 'Home', visitor }, html`<p>hi</p>`)

  it('is on every page for someone signed in: a labelled GET of /search, its button named', () => {
    expect(signedIn).toContain('<form class="site-search" role="search" aria-label="Site" method="get" action="/search">')
    expect(signedIn).toContain('<label class="sr-only" for="site-search">Search your documents</label>')
    expect(signedIn).toMatch(/<input id="site-search" name="q" type="search"/)
    expect(signedIn).toContain('<span class="sr-only">Search</span></button>')
    // Before the account's links, so the keyboard reaches it right after the brand.
    expect(signedIn.indexOf('site-search')).toBeLessThan(signedIn.indexOf('account-link'))
  })

  it('is not there for a visitor, on a bare page, or on the search page (whose form is the box)', () => {
    expect(layout({ title: 'Home', visitor: null }, html`<p>hi</p>`)).not.toContain('site-search')
    expect(layout({ title: 'Sign in', visitor, bare: true }, html`<p>hi</p>`)).not.toContain('site-search')
    const search = page({}, { kind: 'start' })
    expect(search).not.toContain('site-search')
    expect(search).toContain('account-link')
  })
})
