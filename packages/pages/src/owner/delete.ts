import type { Artifact } from '@quire/core/contract'
import { html } from '@quire/render'
import { layout, type Visitor } from '../layout.ts'
import { ownerPaths } from '../web-routes.ts'
import { csrfInput, errorSummary, type FieldErrors, fieldError, invalidAttributes, ownerHead } from './parts.ts'

export interface DeleteView {
  readonly artifact: Artifact
  readonly visitor: Visitor
  readonly csrfToken: string
  /** What the person typed, when the form came back. */
  readonly confirm: string
  readonly errors: FieldErrors
}

/**
 * Asks before deleting: the person types the artifact's slug (as GitHub asks for a repository's
 * name), so a stray click or a form submitted by mistake deletes nothing.
 */
export function deletePage(view: DeleteView): string {
  const { artifact, errors } = view
  const paths = ownerPaths(artifact)
  return layout(
    { title: `Delete ${artifact.title}`, visitor: view.visitor, head: html`<meta name="robots" content="noindex">` },
    html`<div class="owner-page delete-page">
  ${ownerHead(artifact, `Delete ${artifact.title}?`, null)}
  <div class="notice danger-zone" role="note">
    <p><strong>The artifact disappears for everyone:</strong> its page, its raw text and every share link stop working, and its address answers “not found”.</p>
    <p>Its ${artifact.latestVersion === 1 ? 'version and' : `${artifact.latestVersion} versions and`} audit trail are kept. The slug <code>${artifact.slug}</code> becomes free for a new artifact.</p>
  </div>
  ${errorSummary(errors, null, { confirm: 'Confirmation' }, 'Nothing was deleted')}
  <form class="owner-form" method="post" action="${paths.delete}">
    ${csrfInput(view.csrfToken)}
    <div class="field">
      <label for="confirm">Type <code>${artifact.slug}</code> to confirm</label>
      ${fieldError(errors, 'confirm')}
      <input id="confirm" name="confirm" type="text" required autocomplete="off" autocapitalize="off" spellcheck="false" value="${view.confirm}"${invalidAttributes(errors, 'confirm')}>
    </div>
    <div class="actions">
      <button type="submit" class="danger">Delete this artifact</button>
      <a class="button secondary" href="${paths.artifact}">Cancel</a>
    </div>
  </form>
</div>`,
  )
}
