import type { Artifact } from '@quire/core/contract'
import { html, type SafeHtml } from '@quire/render'

/**
 * Who may read an artifact, in the words of its page, for a row that lists it (the home, search
 * results); anyone-may-edit is said too, being rarer and wider.
 */
export function accessBadges(artifact: Pick<Artifact, 'access'>): SafeHtml {
  const { publicView, publicEdit } = artifact.access
  return html`${publicView ? html`<span class="badge">Public</span>` : html`<span class="badge private">Private</span>`}${
    publicEdit ? html`<span class="badge">Anyone signed in can edit</span>` : null
  }`
}
