import type { ArtifactPermissions } from '@quire/core'
import type { Artifact, Version } from '@quire/core/contract'
import { html, type SafeHtml } from '@quire/render'
import { ownerPaths } from '../web-routes.ts'
import { csrfInput } from './parts.ts'

/** Which of an owner's controls a page shows: each one only to someone its operation would let through. */
export interface OwnerActions {
  /** A new version, and restoring an old one (both `artifact.update`). */
  readonly edit: boolean
  /** The settings page opens for anyone who may read the access settings; changing them and sharing is decided there. */
  readonly settings: boolean
  readonly delete: boolean
  /** The artifact's audit trail (`audit.read`). */
  readonly audit: boolean
}

/**
 * The controls the policy's answers allow: a page maps the use-case's `may` onto links and adds
 * no rule of its own. Null when there is nothing to show.
 */
export function ownerActionsOf(may: ArtifactPermissions['may']): OwnerActions | null {
  const actions = {
    edit: may['artifact.update'],
    settings: may['artifact.access.read'],
    delete: may['artifact.delete'],
    audit: may['audit.read'],
  }
  return actions.edit || actions.settings || actions.delete || actions.audit ? actions : null
}

/** A short fingerprint of the controls, for the ETag of a page that shows them. */
export function ownerActionsKey(actions: OwnerActions | null): string {
  return actions ? `${+actions.edit}${+actions.settings}${+actions.delete}${+actions.audit}` : '-'
}

/** The links to an owner's pages, for the action bar of the artifact and history pages. */
export function ownerActionLinks(artifact: Artifact, actions: OwnerActions | null | undefined): SafeHtml | null {
  if (!actions) return null
  const paths = ownerPaths(artifact)
  return html`${actions.edit ? html`<a href="${paths.edit}">Edit</a>` : null}
      ${actions.settings ? html`<a href="${paths.settings}">Settings &amp; sharing</a>` : null}
      ${actions.audit ? html`<a href="${paths.audit}">Audit trail</a>` : null}
      ${actions.delete ? html`<a class="danger" href="${paths.delete}">Delete</a>` : null}`
}

/**
 * Restoring an old version: a disclosure (no script needed) with an optional note and the button.
 * It sends the latest version the page showed, so a restore onto a head someone moved meanwhile
 * writes nothing and says so.
 */
export function restoreForm(artifact: Artifact, version: Version, csrfToken: string): SafeHtml {
  const n = version.versionNumber
  const id = `restore-note-${n}`
  return html`<details class="restore">
  <summary>Restore version ${n}</summary>
  <form method="post" action="${ownerPaths(artifact).restore}">
    ${csrfInput(csrfToken)}
    <input type="hidden" name="version" value="${n}">
    <input type="hidden" name="expectedLatestVersion" value="${artifact.latestVersion}">
    <label for="${id}">Changelog <span class="optional">(optional)</span></label>
    <input id="${id}" name="changelog" type="text" maxlength="2000" placeholder="Restored version ${n}" aria-describedby="${id}-hint">
    <p class="hint" id="${id}-hint">Its content becomes version ${artifact.latestVersion + 1}; nothing is lost: version ${artifact.latestVersion} stays in the history.</p>
    <button type="submit">Restore as version ${artifact.latestVersion + 1}</button>
  </form>
</details>`
}
