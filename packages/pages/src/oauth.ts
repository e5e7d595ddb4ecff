import { type AuthorizationRefusal, type AuthorizationRequest, type Principal, userOf } from '@quire/core'
import { html, type SafeHtml } from '@quire/render'
import { csrfField, csrfInput } from './csrf-input.ts'
import { webRoutes } from './web-routes.ts'

/** A page of the authorization server: built with `html`, so every value in it is escaped. */
export interface OAuthPage {
  readonly title: string
  readonly status?: number
  readonly body: SafeHtml
}

/** What each scope lets the client do, in the words the consent page shows. */
export const scopeWords: Record<string, string> = {
  'artifacts:read': 'read your artifacts, their versions, projects, workspaces and audit trails',
  'artifacts:create': 'create artifacts, projects and workspaces',
  'artifacts:update': 'publish new versions, restore old ones, and change your username',
  'artifacts:delete': 'delete artifacts',
  'artifacts:share': 'create and revoke share links and workspace invitations',
  'artifacts:access:read': 'see who has access (access settings, workspace members)',
  'artifacts:access:write': 'change who has access',
  'agents:manage': 'manage your API keys and agents',
  'webhooks:write': 'send changes of what you can read to a URL (webhooks)',
}

/** Where the client will send you: its redirect's origin, or the scheme of a native app. */
function destination(redirectUri: string): string {
  const url = new URL(redirectUri)
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.host : `${url.protocol}//${url.host}`
}

export function consentPage(
  request: AuthorizationRequest,
  principal: Principal,
  original: Record<string, string | undefined>,
  csrf: string,
): OAuthPage {
  const user = userOf(principal)
  const hidden = Object.entries(original)
    .filter(([name, value]) => value !== undefined && name !== 'decision' && name !== csrfField)
    .map(([name, value]) => html`<input type="hidden" name="${name}" value="${value ?? ''}">`)
  const scopes = request.scopes.map((s) => html`<li><code>${s}</code>: ${scopeWords[s] ?? s}</li>`)
  return {
    title: `Allow ${request.client.name}?`,
    body: html`<section class="card">
  <h1>Allow <strong>${request.client.name}</strong> to use Quire as ${user?.username ?? ''}?</h1>
  <p>It will be able to:</p>
  <ul class="scopes">${scopes}</ul>
  <p class="muted">For <code>${request.resource}</code>. You will be sent back to <code>${destination(request.redirectUri)}</code>. You can revoke access at any time.</p>
  <form method="post" action="${webRoutes.oauthAuthorize.path()}">${hidden}${csrfInput(csrf)}
    <div class="actions">
      <button type="submit" name="decision" value="approve">Allow</button>
      <button type="submit" name="decision" value="deny" class="secondary">Deny</button>
    </div>
  </form>
</section>`,
  }
}

export function refusalPage(refusal: AuthorizationRefusal): OAuthPage {
  return {
    title: 'This sign-in request cannot be used',
    status: refusal.status,
    body: html`<section class="card">
  <h1>This sign-in request cannot be used</h1>
  <p>${refusal.error_description}</p>
  <p class="muted">Error <code>${refusal.error}</code>. Go back to the application and try again.</p>
</section>`,
  }
}
