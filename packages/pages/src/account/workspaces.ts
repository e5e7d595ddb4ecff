import { fieldLimits, type Invitation, type Member, type Project, type Workspace } from '@quire/core/contract'
import { html, type SafeHtml } from '@quire/render'
import { type Listing, pager, projectList } from '../browse.ts'
import { timeTag } from '../history.ts'
import type { Visitor } from '../layout.ts'
import { ownerPath, webRoutes, workspaceSettingsPath } from '../web-routes.ts'
import { type FormState, formError, hiddenFields, textField } from './forms.ts'
import { type NoticeKey, settingsPage } from './frame.ts'

/** The fields as the operations' schemas bound them. */
const nameLimits = fieldLimits('createWorkspace', '/body/name')
const slugLimits = fieldLimits('createWorkspace', '/body/slug')
const emailLimits = fieldLimits('createInvitation', '/body/email')

/** Owners and admins manage a workspace: invitations among other things. */
export function managesWorkspace(workspace: Workspace): boolean {
  return workspace.role === 'owner' || workspace.role === 'admin'
}

export interface WorkspacesView {
  readonly workspaces: Listing<Workspace>
  readonly cursor: string | undefined
  readonly visitor: Visitor
  readonly csrfToken: string
  readonly notice: NoticeKey | null
  /** The create form after a refusal; null for a fresh one. */
  readonly form: FormState | null
  readonly idempotencyKey: string
}

/** `/settings/workspaces`: the person's workspaces and the form to create a team workspace. */
export function workspacesPage(view: WorkspacesView): string {
  const { form } = view
  return settingsPage(
    { title: 'Workspaces', section: 'workspaces', visitor: view.visitor, notice: view.notice },
    html`<section class="account-section" aria-labelledby="workspaces-heading">
  <h1 id="workspaces-heading">Workspaces</h1>
  <p class="muted">A workspace owns projects and artifacts. Your personal one is named after you; team workspaces are shared with their members.</p>
  ${
    view.workspaces.items.length === 0
      ? html`<p class="muted empty">No workspaces on this page.</p>`
      : html`<ul class="listing" aria-label="Your workspaces">
${view.workspaces.items.map(
  (w) => html`<li>
  <div class="listing-main">
    <a class="listing-title" href="${workspaceSettingsPath(w.id)}">${w.name}</a>
    <p class="listing-meta"><span><a href="${ownerPath(w.slug)}">/${w.slug}</a></span><span>${w.kind === 'personal' ? 'Personal' : 'Team'}</span><span>Plan ${w.plan}</span><span>Your role <span class="badge">${w.role}</span></span></p>
  </div>
</li>
`,
)}</ul>`
  }
  ${pager((cursor) => webRoutes.workspaces.path({}, { cursor }), view.cursor, view.workspaces.nextCursor)}
</section>
<section class="card account-card" aria-labelledby="new-workspace-heading">
  <h2 id="new-workspace-heading">Create a team workspace</h2>
  <form class="account-form" method="post" action="${webRoutes.workspaces.path()}" novalidate>
    ${hiddenFields(view.csrfToken, view.idempotencyKey)}
    ${formError(form?.formError ?? null)}
    ${textField({
      id: 'workspace-name',
      name: 'name',
      label: 'Name',
      value: form?.values.name ?? '',
      error: form?.errors.name,
      hint: 'How people see it, e.g. “Design team”. 1–100 characters.',
      required: true,
      maxLength: nameLimits.maxLength,
      autocomplete: 'off',
    })}
    ${textField({
      id: 'workspace-slug',
      name: 'slug',
      label: 'Slug',
      value: form?.values.slug ?? '',
      error: form?.errors.slug,
      hint: 'Its namespace in every URL: 1–64 lowercase letters, digits and inner hyphens. Usernames and workspaces share one namespace.',
      required: true,
      maxLength: slugLimits.maxLength,
      autocomplete: 'off',
      verbatim: true,
    })}
    <div class="form-actions"><button type="submit">Create workspace</button></div>
  </form>
</section>`,
  )
}

export interface WorkspaceView {
  readonly workspace: Workspace
  readonly members: Listing<Member>
  readonly projects: Listing<Project>
  /** The workspace's invitations, for its owners and admins; null for members. */
  readonly invitations: Listing<Invitation> | null
  readonly visitor: Visitor
  readonly csrfToken: string
  readonly notice: NoticeKey | null
  /** The invitation form after a refusal; null for a fresh one. */
  readonly form: FormState | null
  readonly idempotencyKey: string
}

/** A note under a list cut at one page (the lists here show the first 100). */
function more(listing: Listing<unknown>, what: string): SafeHtml | null {
  return listing.nextCursor ? html`<p class="muted">Only the first ${listing.items.length} ${what} are shown.</p>` : null
}

function memberTable(members: readonly Member[]): SafeHtml {
  return html`<div class="table-scroll" role="region" aria-labelledby="members-heading" tabindex="0">
<table class="data-table">
  <thead><tr><th scope="col">Username</th><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Joined</th></tr></thead>
  <tbody>
${members.map(
  (m) =>
    html`    <tr><td data-label="Username"><strong>${m.username}</strong></td><td data-label="Email">${m.email}</td><td data-label="Role"><span class="badge">${m.role}</span></td><td data-label="Joined">${timeTag(m.joinedAt)}</td></tr>\n`,
)}  </tbody>
</table>
</div>`
}

/** One invitation: who, which role, its state, and for a pending one the way to revoke it. */
function invitationItem(invitation: Invitation, csrfToken: string): SafeHtml {
  const pending = invitation.status === 'pending'
  return html`<li>
  <div class="listing-main">
    <p class="key-name"><strong>${invitation.email}</strong> <span class="badge">${invitation.role}</span> <span class="badge status-${invitation.status}">${invitation.status}</span></p>
    <p class="listing-meta"><span>Invited by ${invitation.createdBy.label} ${timeTag(invitation.createdAt)}</span>${
      pending ? html`<span>Expires ${timeTag(invitation.expiresAt)}</span>` : null
    }${invitation.acceptedAt ? html`<span>Accepted ${timeTag(invitation.acceptedAt)}</span>` : null}${
      invitation.revokedAt ? html`<span>Revoked ${timeTag(invitation.revokedAt)}</span>` : null
    }</p>
  </div>
  ${
    pending
      ? html`<form class="inline row-action" method="post" action="${webRoutes.workspaceInvitationRevoke.path({ workspaceId: invitation.workspaceId, invitationId: invitation.id })}">
    ${hiddenFields(csrfToken)}
    <button type="submit" class="danger">Revoke<span class="sr-only"> the invitation of ${invitation.email}</span></button>
  </form>`
      : null
  }
</li>`
}

function invitationsSection(view: WorkspaceView, invitations: Listing<Invitation>): SafeHtml {
  const { form } = view
  return html`<section class="account-section" aria-labelledby="invitations-heading">
  <h2 id="invitations-heading">Invitations</h2>
  ${
    invitations.items.length === 0
      ? html`<p class="muted empty">No invitations yet.</p>`
      : html`<ul class="listing" aria-labelledby="invitations-heading">
${invitations.items.map((i) => invitationItem(i, view.csrfToken))}</ul>`
  }
  ${more(invitations, 'invitations')}
  <div class="card account-card">
    <h3 id="invite-heading">Invite someone</h3>
    <form class="account-form" method="post" action="${webRoutes.workspaceInvitations.path({ workspaceId: view.workspace.id })}" novalidate aria-labelledby="invite-heading">
      ${hiddenFields(view.csrfToken, view.idempotencyKey)}
      ${formError(form?.formError ?? null)}
      ${textField({
        id: 'invite-email',
        name: 'email',
        label: 'Email',
        type: 'email',
        value: form?.values.email ?? '',
        error: form?.errors.email,
        hint: 'They accept by signing in with this (verified) email within 14 days.',
        required: true,
        maxLength: emailLimits.maxLength,
        autocomplete: 'off',
        verbatim: true,
      })}
      <div class="field${form?.errors.role ? ' invalid' : ''}">
        <label for="invite-role">Role</label>
        <select id="invite-role" name="role">
          <option value="member"${form?.values.role === 'admin' ? null : html` selected`}>Member: reads and writes content</option>
          <option value="admin"${form?.values.role === 'admin' ? html` selected` : null}>Admin: also manages access, sharing and invitations</option>
        </select>
        ${form?.errors.role ? html`<p class="field-error">${form.errors.role}</p>` : null}
      </div>
      <div class="form-actions"><button type="submit">Invite</button></div>
    </form>
  </div>
</section>`
}

/** `/settings/workspaces/:workspaceId`: members, projects, and for owners and admins the invitations. */
export function workspacePage(view: WorkspaceView): string {
  const { workspace } = view
  return settingsPage(
    { title: workspace.name, section: 'workspaces', visitor: view.visitor, notice: view.notice },
    html`<header class="account-head">
  <p class="crumbs"><a href="${webRoutes.workspaces.path()}">Workspaces</a> / ${workspace.slug}</p>
  <h1>${workspace.name}</h1>
  <p class="meta"><span>${workspace.kind === 'personal' ? 'Personal workspace' : 'Team workspace'}</span><span>Plan ${workspace.plan}</span><span>Your role <span class="badge">${workspace.role}</span></span></p>
  <p class="account-links"><a href="${ownerPath(workspace.slug)}">Open /${workspace.slug}</a><a href="${webRoutes.workspaceAudit.path({ workspaceId: workspace.id })}">Audit trail</a></p>
</header>
<section class="account-section" aria-labelledby="members-heading">
  <h2 id="members-heading">Members</h2>
  ${memberTable(view.members.items)}
  ${more(view.members, 'members')}
</section>
<section class="account-section" aria-labelledby="projects-heading">
  <h2 id="projects-heading">Projects</h2>
  ${projectList(view.projects.items, { showOwner: false, empty: 'No projects in this workspace yet.' })}
  ${more(view.projects, 'projects')}
</section>
${view.invitations ? invitationsSection(view, view.invitations) : null}`,
  )
}
