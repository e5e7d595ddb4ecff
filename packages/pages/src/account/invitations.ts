import type { Invitation } from '@quire/core/contract'
import { html } from '@quire/render'
import { type Listing, pager } from '../browse.ts'
import { timeTag } from '../history.ts'
import type { Visitor } from '../layout.ts'
import { webRoutes } from '../web-routes.ts'
import { hiddenFields } from './forms.ts'
import { type NoticeKey, settingsPage } from './frame.ts'

export interface MyInvitationsView {
  readonly invitations: Listing<Invitation>
  readonly cursor: string | undefined
  readonly email: string
  readonly visitor: Visitor
  readonly csrfToken: string
  readonly notice: NoticeKey | null
}

/** `/settings/invitations`: the pending invitations addressed to the person's email, each with Accept. */
export function myInvitationsPage(view: MyInvitationsView): string {
  return settingsPage(
    { title: 'Invitations', section: 'invitations', visitor: view.visitor, notice: view.notice },
    html`<section class="account-section" aria-labelledby="invitations-heading">
  <h1 id="invitations-heading">Invitations</h1>
  <p class="muted">Workspaces that invited <strong>${view.email}</strong>. Accepting makes you a member with the role offered.</p>
  ${
    view.invitations.items.length === 0
      ? html`<p class="muted empty">No pending invitations.</p>`
      : html`<ul class="listing" aria-labelledby="invitations-heading">
${view.invitations.items.map(
  (i) => html`<li>
  <div class="listing-main">
    <p class="key-name"><strong>${i.workspaceSlug}</strong> <span class="badge">${i.role}</span></p>
    <p class="listing-meta"><span>Invited by ${i.createdBy.label} ${timeTag(i.createdAt)}</span><span>Expires ${timeTag(i.expiresAt)}</span></p>
  </div>
  <form class="inline row-action" method="post" action="${webRoutes.invitationAccept.path({ invitationId: i.id })}">
    ${hiddenFields(view.csrfToken)}
    <button type="submit">Accept<span class="sr-only"> the invitation to ${i.workspaceSlug}</span></button>
  </form>
</li>
`,
)}</ul>`
  }
  ${pager((cursor) => webRoutes.invitations.path({}, { cursor }), view.cursor, view.invitations.nextCursor)}
</section>`,
  )
}
