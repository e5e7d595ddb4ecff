import { html, renderArtifact, type SafeHtml } from '@quire/render'

/**
 * The signed-out home's example: a short built-in document shown as a public artifact's page shows
 * one (names, version, who changed it, the rendered Markdown). Static text, never read from the
 * database: what a visitor sees before signing in is the same for everyone and names no one real.
 * No headings in the document, so the page's outline stays the page's own.
 */
export const exampleArtifact = {
  owner: 'ada',
  project: 'payments',
  title: 'Weekly status: payments service',
  version: 3,
  changedBy: 'Status bot (agent of ada)',
  content: `Payments moved to the new ledger on Monday, with **no customer-facing incidents** this week.

- [x] Ledger migration finished (12.4 M rows, checksums match)
- [x] Refund latency back under 300 ms (p95)
- [ ] Retire the old reconciliation job, *due Friday*

| Service | Uptime | Since v2 |
|:--|--:|:--|
| API | 99.98 % | same |
| Webhooks | 99.91 % | +0.05 |

> Version 3 adds the refund figures: compare it with version 2 to see exactly what changed.
`,
} as const

/** Rendered on first use (the same renderer as an artifact's page), then kept: it never changes. */
let rendered: SafeHtml | null = null

function exampleBody(): SafeHtml {
  rendered ??= renderArtifact({ type: 'md', content: exampleArtifact.content }).html
  return rendered
}

/** The example, labelled as one, framed like the head and body of an artifact's page. */
export function exampleSection(): SafeHtml {
  const a = exampleArtifact
  return html`<section class="home-example" aria-labelledby="example-heading">
  <div class="home-section-head">
    <h2 id="example-heading">What a published artifact looks like</h2>
    <span class="badge example-badge">Example</span>
  </div>
  <p class="muted">A built-in example, not a real document: an agent keeps a weekly status up to date, and every change is a new version anyone with the link can read.</p>
  <article class="example-artifact" aria-label="Example artifact">
    <header class="artifact-head">
      <p class="crumbs">${a.owner} / ${a.project}</p>
      <h3 class="example-title">${a.title}</h3>
      <p class="meta"><span>v${a.version} · public</span><span>Markdown</span><span>Changed by ${a.changedBy}</span></p>
    </header>
    <div class="document document-md">
${exampleBody()}
    </div>
  </article>
</section>`
}
