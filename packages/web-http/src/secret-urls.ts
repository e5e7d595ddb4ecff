import { type WebRoute, webRoutes } from '@quire/pages'

/**
 * The web app's URLs that carry a secret (the routes `webRoutes` marks `secret`): a share link
 * (`/s/<token>…`), a user code (`/agent/claim?user_code=`), an OAuth authorization request (its
 * `state` and PKCE challenge), the sign-in callback (the provider's code), `/login?return_to=`
 * (which may carry any of these) and the development provider's interaction pages (their id).
 * Whatever answers them (a page, a refusal, a redirect) sends no Referer: the one header says
 * `no-referrer`, and no page carries a `<meta name="referrer">` that would override it
 * (`@quire/pages`, layout.ts).
 */
const secretBearing = new RegExp(
  `^(?:${Object.values<WebRoute>(webRoutes)
    .filter((route) => route.secret)
    .map((route) => secretPrefix(route.pattern))
    .join('|')})`,
)

/**
 * What a secret-bearing pattern matches: everything under it from its first parameter on
 * (`/s/:token/raw` → `/s/`), else the path itself, with or without a trailing slash.
 */
function secretPrefix(pattern: string): string {
  const parameter = pattern.search(/[:*]/)
  const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
  return parameter === -1 ? `${literal(pattern)}\\/?$` : literal(pattern.slice(0, parameter))
}

/** Whether a request URL (path and query) carries a secret. */
export function carriesSecret(url: string): boolean {
  const query = url.indexOf('?')
  return secretBearing.test(query === -1 ? url : url.slice(0, query))
}
