import type { Artifact, ArtifactAccessSettings, ShareLink } from '@quire/core/contract'
import { html, type SafeHtml } from '@quire/render'
import { timeTag } from '../history.ts'
import { layout, type Visitor } from '../layout.ts'
import { artifactParams, ownerPaths, webRoutes } from '../web-routes.ts'
import { type NoticeKey, noticeBanner } from './notices.ts'
import { csrfInput, errorSummary, type FieldErrors, fieldError, invalidAttributes, ownerHead } from './parts.ts'

/** How long a new link lives, as the create form offers it (the API takes any time up to a year ahead). */
export const linkLifetimes = {
  never: { label: 'Never expires', days: null },
  '1d': { label: '1 day', days: 1 },
  '7d': { label: '7 days', days: 7 },
  '30d': { label: '30 days', days: 30 },
  '90d': { label: '90 days', days: 90 },
  '365d': { label: '1 year', days: 365 },
} as const

export type LinkLifetime = keyof typeof linkLifetimes

/** The access form's fields, as stored or as the person typed them. */
export interface AccessForm {
  readonly publicView: boolean
  readonly publicEdit: boolean
  /** One address per line. */
  readonly viewerEmails: string
}

/** The share-link form's fields. */
export interface LinkForm {
  readonly role: 'viewer' | 'editor'
  readonly lifetime: LinkLifetime
}

export interface SettingsView {
  readonly artifact: Artifact
  readonly visitor: Visitor
  readonly csrfToken: string
  readonly notice: NoticeKey | null
  readonly access: AccessForm
  /** Whether the person may change access (else the settings are shown, not offered). */
  readonly canChangeAccess: boolean
  readonly accessErrors: FieldErrors
  readonly accessProblem: string | null
  /** The artifact's share links, or null when the person may not manage them. */
  readonly links: { readonly items: readonly ShareLink[]; readonly nextCursor: string | null; readonly paged: boolean } | null
  readonly linkForm: LinkForm
  readonly linkErrors: FieldErrors
  readonly linkProblem: string | null
}

/** The form's view of stored settings: the allowlist one address per line. */
export function accessFormOf(settings: ArtifactAccessSettings): AccessForm {
  return { publicView: settings.publicView, publicEdit: settings.publicEdit, viewerEmails: settings.viewerEmails.join('\n') }
}

const accessLabels = { publicView: 'Public', publicEdit: 'Public editing', viewerEmails: 'Viewers' }
const linkLabels = { role: 'Role', expiresIn: 'Expires' }
const roleWords = { viewer: 'Viewer', editor: 'Editor' } as const
const statusWords = { active: 'Active', revoked: 'Revoked', expired: 'Expired' } as const

const checked = (on: boolean): SafeHtml | null => (on ? html` checked` : null)
const disabled = (off: boolean): SafeHtml | null => (off ? html` disabled` : null)

/**
 * The access fields: the two switches and the allowlist, as stored or as typed (disabled when the
 * person may only look). The settings page and the new-artifact form both post them.
 */
export function accessFields(access: AccessForm, errors: FieldErrors, readOnly: boolean): SafeHtml {
  return html`<fieldset class="switches">
    <legend class="sr-only">Access</legend>
    <label class="check" for="publicView"><input id="publicView" name="publicView" type="checkbox" value="on"${checked(access.publicView)}${disabled(readOnly)} aria-describedby="publicView-hint"> Public: anyone with the address can read it</label>
    <p class="hint" id="publicView-hint">Signed in or not. Off: only the workspace’s members and the viewers below.</p>
    <label class="check" for="publicEdit"><input id="publicEdit" name="publicEdit" type="checkbox" value="on"${checked(access.publicEdit)}${disabled(readOnly)} aria-describedby="publicEdit-hint"> Public editing: anyone signed in who can read it can add versions</label>
    <p class="hint" id="publicEdit-hint">Nobody signed out ever writes. Every version records who wrote it.</p>
  </fieldset>
  <div class="field">
    <label for="viewerEmails">Viewers</label>
    <p class="hint" id="viewerEmails-hint">Email addresses, one per line, of people who may read it while it is private. They sign in with that address.</p>
    ${fieldError(errors, 'viewerEmails')}
    <textarea id="viewerEmails" name="viewerEmails" rows="5" spellcheck="false" autocomplete="off"${disabled(readOnly)}${invalidAttributes(errors, 'viewerEmails', 'viewerEmails-hint')}>
${access.viewerEmails}</textarea>
  </div>`
}

/** Who may read and write the artifact: the two switches and the allowlist. */
function accessSection(view: SettingsView): SafeHtml {
  const { access, accessErrors: errors } = view
  const readOnly = !view.canChangeAccess
  return html`<section class="settings-section" aria-labelledby="access-heading">
  <h2 id="access-heading">Who can open it</h2>
  ${readOnly ? html`<p class="muted">Only the workspace’s owners and admins can change these settings.</p>` : null}
  ${errorSummary(errors, view.accessProblem, accessLabels)}
  <form class="owner-form" method="post" action="${ownerPaths(view.artifact).access}">
    ${csrfInput(view.csrfToken)}
    ${accessFields(access, errors, readOnly)}
    ${readOnly ? null : html`<div class="actions"><button type="submit">Save access settings</button></div>`}
  </form>
</section>`
}

/** One share link: its role, when it was made and ends, whether it works, and the way to stop it. */
function linkItem(view: SettingsView, link: ShareLink): SafeHtml {
  return html`<li class="share-link ${link.status}">
  <div class="share-link-main">
    <p class="share-link-title"><span class="badge role-${link.role}">${roleWords[link.role]}</span> <code>${link.prefix}…</code> <span class="badge status-${link.status}">${statusWords[link.status]}</span></p>
    <p class="meta">
      <span>Created ${timeTag(link.createdAt)}${link.createdBy ? html` by ${link.createdBy.label}` : null}</span>
      <span>${link.revokedAt ? html`Revoked ${timeTag(link.revokedAt)}` : link.expiresAt ? html`${link.status === 'expired' ? 'Expired' : 'Expires'} ${timeTag(link.expiresAt)}` : 'Never expires'}</span>
    </p>
  </div>
  ${
    link.status === 'active'
      ? html`<form method="post" action="${ownerPaths(view.artifact).revoke(link.id)}">
    ${csrfInput(view.csrfToken)}
    <button type="submit" class="secondary danger" aria-label="Revoke the ${roleWords[link.role].toLowerCase()} link ${link.prefix}…">Revoke</button>
  </form>`
      : null
  }
</li>`
}

/** Making a new link: the role and how long it lives. */
function linkCreateForm(view: SettingsView): SafeHtml {
  const { linkForm: form, linkErrors: errors } = view
  return html`${errorSummary(errors, view.linkProblem, linkLabels)}
  <form class="owner-form link-create" method="post" action="${ownerPaths(view.artifact).shareLinks}">
    ${csrfInput(view.csrfToken)}
    <fieldset>
      <legend>New share link</legend>
      <div class="link-fields">
        <div class="field">
          <label for="role">Role</label>
          ${fieldError(errors, 'role')}
          <select id="role" name="role"${invalidAttributes(errors, 'role')}>
            <option value="viewer"${form.role === 'viewer' ? html` selected` : null}>Viewer: can read</option>
            <option value="editor"${form.role === 'editor' ? html` selected` : null}>Editor: can read and add versions</option>
          </select>
        </div>
        <div class="field">
          <label for="expiresIn">Expires</label>
          ${fieldError(errors, 'expiresIn')}
          <select id="expiresIn" name="expiresIn"${invalidAttributes(errors, 'expiresIn')}>
            ${Object.entries(linkLifetimes).map(([value, { label }]) => html`<option value="${value}"${form.lifetime === value ? html` selected` : null}>${label === 'Never expires' ? label : `After ${label}`}</option>`)}
          </select>
        </div>
        <button type="submit">Create share link</button>
      </div>
      <p class="hint">The link is shown once, right after you create it. Anyone who has it can open the artifact, signed in or not, until you revoke it or it expires.</p>
    </fieldset>
  </form>`
}

/** The artifact's share links, newest first, and the form to make one. */
function linksSection(view: SettingsView, links: NonNullable<SettingsView['links']>): SafeHtml {
  const params = artifactParams(view.artifact)
  return html`<section class="settings-section" aria-labelledby="links-heading">
  <h2 id="links-heading">Share links</h2>
  ${linkCreateForm(view)}
  ${
    links.items.length === 0
      ? html`<p class="muted empty">No share links yet.</p>`
      : html`<ul class="share-links" aria-label="Share links, newest first">${links.items.map((link) => linkItem(view, link))}</ul>`
  }
  ${
    links.paged || links.nextCursor
      ? html`<nav class="pager" aria-label="Pages of share links">
    ${links.paged ? html`<a href="${webRoutes.artifactSettings.path(params)}">← Newest links</a>` : html`<span></span>`}
    ${links.nextCursor ? html`<a href="${webRoutes.artifactSettings.path(params, { cursor: links.nextCursor })}" rel="next">Older links →</a>` : null}
  </nav>`
      : null
  }
</section>`
}

/** Settings & sharing: access (the switches and the allowlist) and share links. */
export function settingsPage(view: SettingsView): string {
  const { artifact } = view
  return layout(
    { title: `Settings of ${artifact.title}`, visitor: view.visitor, head: html`<meta name="robots" content="noindex">` },
    html`<div class="owner-page settings-page">
  ${ownerHead(artifact, 'Settings & sharing', null)}
  ${noticeBanner(view.notice)}
  ${accessSection(view)}
  ${view.links ? linksSection(view, view.links) : null}
</div>`,
  )
}

/** The answer to creating a link: its URL, shown this once, ready to copy. */
export function createdLinkPage(view: {
  readonly artifact: Artifact
  readonly visitor: Visitor
  readonly link: ShareLink
  readonly url: string
}): string {
  const { artifact, link } = view
  return layout(
    { title: 'Share link created', visitor: view.visitor, head: html`<meta name="robots" content="noindex">` },
    html`<div class="owner-page created-link-page">
  ${ownerHead(artifact, 'Share link created', null)}
  <div class="notice success" role="status">
    <p><strong>Copy the link now: it is shown only this once.</strong> Quire keeps only a fingerprint of it, so it cannot show it again; if you lose it, revoke it and create another.</p>
  </div>
  <div class="field">
    <label for="share-url">Share link (${roleWords[link.role].toLowerCase()})</label>
    <input id="share-url" class="copy-field" type="text" readonly value="${view.url}" aria-describedby="share-url-hint">
    <p class="hint" id="share-url-hint">Select the link and copy it. Anyone who has it can ${link.role === 'editor' ? 'read this artifact and add versions to it' : 'read this artifact'}${link.expiresAt ? html` until ${timeTag(link.expiresAt)}` : ', until you revoke it'}.</p>
  </div>
  <div class="actions">
    <a class="button" href="${ownerPaths(artifact).settings}">Back to settings &amp; sharing</a>
    <a class="button secondary" href="${ownerPaths(artifact).artifact}">Back to the artifact</a>
  </div>
</div>`,
  )
}
