import type { Artifact, VersionDiff } from '@quire/core/contract'
import { html, type SafeHtml } from '@quire/render'
import { diffStat, diffTable, parseUnifiedDiff } from '../diff.ts'
import { layout, type Visitor } from '../layout.ts'
import { PREVIEW_ID, type PreviewDiff, previewSection } from '../preview.ts'
import { artifactParams, ownerPaths, webRoutes } from '../web-routes.ts'
import { csrfInput, errorSummary, type FieldErrors, fieldError, invalidAttributes, ownerHead } from './parts.ts'

/** Diff lines a conflict shows at most; the diff page has the rest. */
const CONFLICT_LINE_LIMIT = 2_000

/** How the text's lines end: a textarea sends CRLF whatever it was given, so the form says which the document uses. */
export type Newline = 'lf' | 'crlf'

/** The new-version form, fresh or as it came back. */
export interface EditView {
  readonly artifact: Artifact
  readonly visitor: Visitor
  readonly csrfToken: string
  readonly content: string
  readonly changelog: string
  /** The version this form is based on: the artifact's latest when the page was made. */
  readonly expectedLatestVersion: number
  readonly newline: Newline
  readonly errors: FieldErrors
  /** A problem that belongs to no one field. */
  readonly problem: string | null
  /** Set when someone saved versions after the person started: what they missed. */
  readonly conflict: { readonly startedFrom: number; readonly diff: VersionDiff } | null
  /** Set after Preview: the text rendered, and what it changes from the version it is based on. Nothing was saved. */
  readonly preview?: { readonly rendered: SafeHtml; readonly diff: PreviewDiff | null } | null
}

const labels = { content: 'Content', changelog: 'Changelog' }

/**
 * What changed between the version the person started from and the latest: the diff page's own
 * table (the section takes the diff page's class for its colours).
 */
function conflictSection(artifact: Artifact, conflict: NonNullable<EditView['conflict']>): SafeHtml {
  const { diff, startedFrom } = conflict
  const parsed = parseUnifiedDiff(diff.diff, CONFLICT_LINE_LIMIT)
  const full = webRoutes.diff.path(artifactParams(artifact), { from: diff.fromVersion, to: diff.toVersion })
  const saved = diff.toVersion - startedFrom
  return html`<section class="conflict diff-page" aria-labelledby="conflict-heading">
  <div class="notice warning" role="alert">
    <h2 id="conflict-heading">Someone saved ${saved === 1 ? 'a new version' : `${saved} new versions`} while you were editing</h2>
    <p>You started from version ${startedFrom}; the artifact is now at version ${diff.toVersion}. Nothing was saved. Your text is below, unchanged: bring in what you need from the changes shown here, then save again as version ${diff.toVersion + 1}.</p>
  </div>
  <h3>What changed since version ${startedFrom} ${diff.diff === '' ? null : html`<span class="meta">${diffStat(diff)}</span>`}</h3>
  ${
    diff.diff === ''
      ? html`<p class="muted">The content is the same as version ${startedFrom} (only the version number moved on).</p>`
      : html`${parsed.truncated ? html`<p class="notice" role="note">Only the first ${CONFLICT_LINE_LIMIT.toLocaleString('en')} lines are shown. <a href="${full}">See the whole diff</a>.</p>` : null}
  ${diffTable({ diff, parsed })}`
  }
  <p><a href="${full}">Open these changes on their own page</a></p>
</section>`
}

/**
 * Save, Preview, Cancel. Save comes first, so it is the form's default button and Enter in the
 * changelog saves, as it did before there was a preview: saving loses nothing (every version stays
 * in the history, and a version saved meanwhile is a conflict, not an overwrite), the person who
 * typed the changelog (the last field) is done, and Enter doing what the first, primary button
 * says is what they expect. Preview is a plain second submit (no script), to `…/edit#preview`
 * so the answer opens at the preview.
 */
function formActions(paths: ReturnType<typeof ownerPaths>, next: number): SafeHtml {
  return html`<div class="actions">
      <button type="submit">Save version ${next}</button>
      <button type="submit" class="secondary" name="intent" value="preview" formaction="${paths.edit}#${PREVIEW_ID}">Preview</button>
      <a class="button secondary" href="${paths.artifact}">Cancel</a>
    </div>`
}

/** The page to write a new version on: the latest content to edit, a changelog, and the version it is based on. */
export function editPage(view: EditView): string {
  const { artifact, errors } = view
  const paths = ownerPaths(artifact)
  const next = view.expectedLatestVersion + 1
  const preview = view.preview ?? null
  return layout(
    {
      title: preview ? `Preview of version ${next} of ${artifact.title}` : `Edit ${artifact.title}`,
      visitor: view.visitor,
      head: html`<meta name="robots" content="noindex">`,
    },
    html`<div class="owner-page edit-page">
  ${ownerHead(artifact, `Edit ${artifact.title}`, html`Saving adds version ${next}; every earlier version stays in the <a href="${paths.history}">history</a>.`)}
  ${view.conflict ? conflictSection(artifact, view.conflict) : null}
  ${errorSummary(errors, view.problem, labels)}
  ${preview ? previewSection({ title: `Version ${next} of ${artifact.title}`, type: artifact.type, ...preview }) : null}
  <form class="owner-form" method="post" action="${paths.edit}">
    ${csrfInput(view.csrfToken)}
    <input type="hidden" name="expectedLatestVersion" value="${view.expectedLatestVersion}">
    <input type="hidden" name="newline" value="${view.newline}">
    <div class="field">
      <label for="content">Content</label>
      <p class="hint" id="content-hint">The whole ${artifact.type} source of version ${next}, based on version ${view.expectedLatestVersion}.</p>
      ${fieldError(errors, 'content')}
      <textarea id="content" name="content" rows="22" spellcheck="false"${invalidAttributes(errors, 'content', 'content-hint')}>
${view.content}</textarea>
    </div>
    <div class="field">
      <label for="changelog">Changelog <span class="optional">(optional)</span></label>
      <p class="hint" id="changelog-hint">What changed, in a sentence. The history shows it beside the version.</p>
      ${fieldError(errors, 'changelog')}
      <input id="changelog" name="changelog" type="text" maxlength="2000" value="${view.changelog}"${invalidAttributes(errors, 'changelog', 'changelog-hint')}>
    </div>
    ${formActions(paths, next)}
  </form>
</div>`,
  )
}
