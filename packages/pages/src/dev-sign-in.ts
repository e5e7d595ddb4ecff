import { html } from '@quire/render'
import { layout } from './layout.ts'

/** The development provider's sign-in form: any email address will do. */
export function devSignInPage(options: { action: string; email?: string; problem?: string }): string {
  return layout(
    { title: 'Sign in', bare: true },
    html`<section class="card narrow">
  <h1>Sign in to Quire</h1>
  <p class="muted">Development sign-in: enter any email address. It is vouched for as verified unless you say otherwise, so use this provider only in local mode.</p>
  <form method="post" action="${options.action}" novalidate>
    <label for="email">Email address</label>
    <input id="email" name="email" type="email" autocomplete="email" required autofocus value="${options.email ?? ''}" placeholder="you@example.com">
    <label class="check"><input id="unverified" name="unverified" type="checkbox" value="1"> Say the address is not verified (to see Quire refuse it)</label>
    ${options.problem ? html`<p class="error detail" role="alert">${options.problem}</p>` : null}
    <div class="actions">
      <button type="submit" name="action" value="sign-in">Continue</button>
      <button type="submit" name="action" value="cancel" class="secondary">Cancel</button>
    </div>
  </form>
</section>`,
  )
}
