import { fieldLimits, type Profile } from '@quire/core/contract'
import { html } from '@quire/render'
import { timeTag } from '../history.ts'
import type { Visitor } from '../layout.ts'
import { webRoutes } from '../web-routes.ts'
import { type FormState, formError, hiddenFields, textField } from './forms.ts'
import { type NoticeKey, settingsPage } from './frame.ts'

/** The username as the operation's schema bounds it. */
const usernameLimits = fieldLimits('updateProfile', '/body/username')

export interface ProfileView {
  readonly profile: Profile
  readonly visitor: Visitor
  readonly csrfToken: string
  readonly notice: NoticeKey | null
  /** The username form after a refusal (the typed name kept); null shows the current name. */
  readonly form: FormState | null
}

/** How long each plan keeps the audit trail (SPEC "Limits"). */
const retentionDays = { free: 7, pro: 90, team: 365 } as const

/** `/settings`: who the person is, and the form to change their username. */
export function profilePage(view: ProfileView): string {
  const { profile, form } = view
  return settingsPage(
    { title: 'Profile', section: 'profile', visitor: view.visitor, notice: view.notice },
    html`<section class="card account-card" aria-labelledby="profile-heading">
  <h1 id="profile-heading">Profile</h1>
  <dl class="facts">
    <dt>Email</dt><dd>${profile.email} ${profile.emailVerified ? html`<span class="badge">verified</span>` : html`<span class="badge">not verified</span>`}</dd>
    <dt>Username</dt><dd>${profile.username}</dd>
    <dt>Plan</dt><dd>${profile.plan} <span class="muted">(audit trail kept ${retentionDays[profile.plan]} days)</span></dd>
    <dt>Member since</dt><dd>${timeTag(profile.createdAt)}</dd>
    <dt>User id</dt><dd><code>${profile.id}</code></dd>
  </dl>
</section>
<section class="card account-card" aria-labelledby="username-heading">
  <h2 id="username-heading">Change username</h2>
  <p class="muted">Your username is your personal namespace: every link under <code>/${profile.username}/…</code> moves with it, and the old links stop working.</p>
  <form class="account-form" method="post" action="${webRoutes.username.path()}" novalidate>
    ${hiddenFields(view.csrfToken)}
    ${formError(form?.formError ?? null)}
    ${textField({
      id: 'username',
      name: 'username',
      label: 'Username',
      value: form?.values.username ?? profile.username,
      error: form?.errors.username,
      hint: '1–64 lowercase letters, digits and inner hyphens.',
      required: true,
      maxLength: usernameLimits.maxLength,
      autocomplete: 'username',
      verbatim: true,
    })}
    <div class="form-actions"><button type="submit">Save username</button></div>
  </form>
</section>`,
  )
}
