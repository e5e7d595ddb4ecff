import { fieldLimits, type Profile } from '@quire/core/contract'
import { html } from '@quire/render'
import { timeTag } from '../history.ts'
import { mcpUrlOf } from '../home/ways-in.ts'
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
  /** The web app's origin (its MCP server) and the REST API's address (null when the web app was not told it). */
  readonly webUrl: string
  readonly apiUrl: string | null
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
<section class="card account-card account-tools" aria-labelledby="tools-heading">
  <h2 id="tools-heading">Agents and scripts</h2>
  <p class="muted">Connect an MCP host to this address (it signs in through the browser), or call the REST API with an <a href="${webRoutes.apiKeys.path()}">API key</a>.</p>
  <dl class="facts">
    <dt>MCP server</dt><dd><code>${mcpUrlOf(view.webUrl)}</code></dd>
    ${view.apiUrl ? html`<dt>REST API</dt><dd><code>${view.apiUrl}</code> <a href="${view.apiUrl}/docs">API documentation</a></dd>` : null}
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
