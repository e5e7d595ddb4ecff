import { html } from '@quire/render'
import { layout, type Visitor } from './layout.ts'
import { webRoutes } from './web-routes.ts'

export interface ErrorPage {
  readonly title: string
  /** One or two sentences for a person: what happened and what to do. */
  readonly message: string
  /** The precise reason (a provider's error code, say), shown small; never a stack trace. */
  readonly detail?: string
  readonly requestId?: string
  /** Offer to start signing in again (failures of the sign-in flow). */
  readonly retrySignIn?: boolean
  /** Who is signed in, for the header. */
  readonly visitor?: Visitor | null
}

/** A readable failure page with a way back. */
export function errorPage(page: ErrorPage): string {
  return layout(
    { title: page.title, visitor: page.visitor ?? null },
    html`<section class="card narrow error">
  <h1>${page.title}</h1>
  <p>${page.message}</p>
  ${page.detail ? html`<p class="detail">${page.detail}</p>` : null}
  ${page.requestId ? html`<p class="muted">Request id: <code>${page.requestId}</code></p>` : null}
  <div class="actions">
    ${page.retrySignIn ? html`<a class="button" href="${webRoutes.signIn.path()}">Try signing in again</a>` : null}
    <a class="button${page.retrySignIn ? ' secondary' : ''}" href="${webRoutes.home.path()}">Home</a>
  </div>
</section>`,
  )
}
