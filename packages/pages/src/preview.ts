import type { Artifact, VersionDiff } from '@quire/core/contract'
import { html, type SafeHtml, scopeIds } from '@quire/render'
import { documentBody } from './artifact.ts'
import { diffStat, diffTable, parseUnifiedDiff } from './diff.ts'

/** Diff lines a preview shows at most: an unsaved version has no diff page to send the rest to. */
export const PREVIEW_LINE_LIMIT = 2_000

/** The id of the preview section: a form's Preview button submits to `…#preview` to land on it. */
export const PREVIEW_ID = 'preview'

/**
 * What a preview says changed: the diff from the saved version `from` to the unsaved `to`
 * (`VersionDryRun`'s `diff`, `additions`, `deletions`), or why the diff is left out
 * (`diffWithheld.detail`).
 */
export type PreviewDiff =
  | { readonly diff: Pick<VersionDiff, 'diff' | 'additions' | 'deletions'>; readonly from: number; readonly to: number }
  | { readonly withheld: string }

/** What a preview shows. */
export interface PreviewView {
  /** The heading inside the frame: what is previewed ("Version 4 of Release process"). */
  readonly title: string
  /** The document's type: it is framed and styled as its artifact page frames that type. */
  readonly type: Artifact['type']
  /** The unsaved content as `renderArtifact` renders it (uncached: a cache keyed by what is saved must not keep it). */
  readonly rendered: SafeHtml
  /** The changes from the version the text is based on; left out or null where there is none (a new artifact). */
  readonly diff?: PreviewDiff | null
}

/** The prefix of every id inside the previewed document, so none can take an id of the page around it. */
const DOCUMENT_IDS = 'preview-doc-'

/** The changes part: the diff page's own table and stat (the section carries the diff colours, styles/history.ts). */
function changesBlock(diff: PreviewDiff): SafeHtml {
  if ('withheld' in diff)
    return html`<div class="preview-changes" id="preview-changes">
  <h3>Changes</h3>
  <p class="muted">${diff.withheld}</p>
</div>`
  const { from, to } = diff
  if (diff.diff.diff === '')
    return html`<div class="preview-changes" id="preview-changes">
  <h3>Changes from version ${from}</h3>
  <p class="notice" role="note">No changes from version ${from}: the content is the same.</p>
</div>`
  const parsed = parseUnifiedDiff(diff.diff.diff, PREVIEW_LINE_LIMIT)
  return html`<div class="preview-changes" id="preview-changes">
  <h3>Changes from version ${from} <span class="meta">${diffStat(diff.diff)}</span></h3>
  ${parsed.truncated ? html`<p class="notice" role="note">Only the first ${PREVIEW_LINE_LIMIT.toLocaleString('en')} lines of the changes are shown.</p>` : null}
  ${diffTable({ diff: { fromVersion: from, toVersion: to }, parsed })}
</div>`
}

/** The lines under the heading: that nothing is saved, and the size of the change with a link to it. */
function summary(diff: PreviewDiff | null): SafeHtml {
  const changes =
    diff === null || 'withheld' in diff
      ? null
      : diff.diff.diff === ''
        ? html`<p class="preview-stat"><a href="#preview-changes">No changes from version ${diff.from}</a></p>`
        : html`<p class="preview-stat"><a href="#preview-changes">Changes from version ${diff.from}</a> ${diffStat(diff.diff)}</p>`
  return html`<p class="preview-note">This is how it will look once saved. Nothing is saved yet.</p>
    ${changes}`
}

/**
 * A preview of an unsaved document, in a labelled frame ("Preview — not saved"): the document
 * rendered and framed exactly as its artifact page shows it (`documentBody`), then, when given,
 * the changes from the version it is based on in the diff page's table. The section's id is
 * `PREVIEW_ID`; the document's own ids are prefixed (`scopeIds`), so a heading "Content" cannot
 * capture a form's `<label for="content">`. Used above the new-version form, and by any form
 * that writes a document.
 */
export function previewSection(view: PreviewView): SafeHtml {
  const diff = view.diff ?? null
  return html`<section class="preview" id="${PREVIEW_ID}" aria-labelledby="preview-label preview-heading">
  <p class="preview-label" id="preview-label">Preview — not saved</p>
  <div class="preview-head">
    <h2 id="preview-heading">${view.title}</h2>
    ${summary(diff)}
  </div>
  ${documentBody(view.type, scopeIds(view.rendered, DOCUMENT_IDS))}
  ${diff ? changesBlock(diff) : null}
</section>`
}
