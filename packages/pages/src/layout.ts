import { html, type SafeHtml } from '@quire/render'
import { csrfInput } from './csrf-input.ts'
import { headerSearch } from './search/header-box.ts'
import { stylesheetPath, webRoutes } from './web-routes.ts'

/** Who is signed in, as the header shows them; null when signed out. */
export interface Visitor {
  readonly email: string
  readonly username: string
  /** The session's CSRF token: when given, the header carries a sign-out form too. */
  readonly csrfToken?: string
}

export interface PageOptions {
  readonly title: string
  readonly visitor?: Visitor | null
  /** Hides the header's sign-in link (the sign-in pages themselves). */
  readonly bare?: boolean
  /** More of `<head>`: canonical link, description and preview tags of a public page. */
  readonly head?: SafeHtml | null
  /** Leaves out the header's search box for someone signed in (the search page, whose own form is that box). */
  readonly searchBox?: boolean
}

/**
 * The frame of every page: the header with the brand, the search box and who is signed in (for
 * someone signed in), the content, a footer.
 * No `<meta name="referrer">`: it would override the Referrer-Policy header, which is `no-referrer`
 * on the pages whose URL carries a secret (`@quire/web-http`, security-headers.ts).
 */
export function layout(options: PageOptions, content: SafeHtml): string {
  const { title, visitor, bare, head, searchBox } = options
  const nav = bare
    ? null
    : visitor
      ? html`<a class="button compact" href="${webRoutes.newArtifact.path()}">New</a><span>Signed in as <a class="account-link" href="${webRoutes.profile.path()}"><strong>${visitor.email}</strong></a></span>${visitor.csrfToken ? signOutForm(visitor.csrfToken) : null}`
      : html`<a class="button secondary" href="${webRoutes.signIn.path()}">Sign in</a>`
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Quire</title>
<link rel="stylesheet" href="${stylesheetPath}">
<link rel="icon" href="data:,">
${head ?? null}
</head>
<body>
<header class="site">
  <a class="brand" href="${webRoutes.home.path()}"><span class="mark" aria-hidden="true">Q</span>Quire</a>
  ${visitor && !bare && searchBox !== false ? headerSearch() : null}
  <nav>${nav}</nav>
</header>
<main>
${content}
</main>
<footer class="site">Quire · versioned documents for people and AI agents</footer>
</body>
</html>
`.text
}

/** Signing out is a POST with the session's CSRF token (a link could be triggered from another site). */
function signOutForm(csrfToken: string): SafeHtml {
  return html`<form class="inline" method="post" action="${webRoutes.signOut.path()}">${csrfInput(csrfToken)}<button type="submit" class="secondary compact">Sign out</button></form>`
}
