import type { PrincipalUser } from '@quire/core'
import { html } from '@quire/render'
import { type DashboardView, dashboard } from './browse.ts'
import { layout } from './layout.ts'
import { webRoutes } from './web-routes.ts'

/** The front page for someone signed out: what Quire is, and the way in. */
export function signedOutHome(options: { apiUrl: string | null; devSignIn: boolean }): string {
  return layout(
    { title: 'Welcome' },
    html`<section class="card">
  <h1>Versioned documents for people and AI agents</h1>
  <p class="lead">Quire keeps every version of your documents, shares each one exactly as widely as you choose, and records who changed what, through which key or agent, in an audit trail.</p>
  <ul class="features">
    <li><strong>Every version kept</strong>Updates append immutable versions; compare any two, restore any one.</li>
    <li><strong>Sharing you control</strong>Private, public, by email, or through a link you can revoke.</li>
    <li><strong>Built for agents</strong>A REST API, a CLI and an MCP server on the same rules.</li>
  </ul>
  <div class="actions">
    <a class="button" href="${webRoutes.signIn.path()}">Sign in</a>
    ${options.apiUrl ? html`<a class="button secondary" href="${options.apiUrl}/docs">API documentation</a>` : null}
  </div>
  ${options.devSignIn ? html`<p class="notice muted">Local mode: sign-in goes through the bundled development provider, which accepts any email address.</p>` : null}
</section>`,
  )
}

/** The front page for someone signed in: who they are and what they work on (the way out is in the header). */
export function signedInHome(options: {
  user: PrincipalUser
  csrfToken: string
  apiUrl: string | null
  /** Their workspaces, projects and recently changed artifacts; absent when they could not be read. */
  overview?: DashboardView | null
}): string {
  const { user, csrfToken } = options
  return layout(
    { title: 'Home', visitor: { email: user.email, username: user.username, csrfToken } },
    html`<section class="card">
  <h1>Welcome, ${user.username}</h1>
  <p class="lead">You are signed in to Quire.</p>
  <dl class="facts">
    <dt>Email</dt><dd>${user.email} ${user.emailVerified ? html`<span class="badge">verified</span>` : null}</dd>
    <dt>Username</dt><dd>${user.username}</dd>
    <dt>User id</dt><dd><code>${user.id}</code></dd>
  </dl>
  <div class="actions">
    ${options.apiUrl ? html`<a class="button secondary" href="${options.apiUrl}/docs">API documentation</a>` : null}
  </div>
</section>
${options.overview ? dashboard(options.overview) : null}`,
  )
}
