import { scopes as allScopes, isScope, type Scope } from '../contract/scopes.ts'

/** How long the authorization server's artefacts live. Access tokens are short; refresh tokens rotate. */
export const oauthLifetimes = {
  codeSeconds: 60,
  accessTokenSeconds: 3600,
  refreshTokenDays: 30,
  sessionDays: 30,
} as const

/** Schemes no redirect may use: they run code or read local data instead of reaching a client. */
const forbiddenSchemes = new Set(['javascript:', 'data:', 'file:', 'vbscript:', 'about:', 'blob:', 'filesystem:', 'ws:', 'wss:', 'ftp:'])

const loopbackHosts = new Set(['127.0.0.1', '[::1]', 'localhost'])

function isLoopback(url: URL): boolean {
  return url.protocol === 'http:' && loopbackHosts.has(url.hostname)
}

/**
 * Why a redirect URI cannot be registered, or null: https anywhere, http only on loopback (RFC
 * 8252: native apps listen on any port), or a private-use scheme (`cursor://…`, `com.example.app:/cb`);
 * never a fragment, never a scheme that runs or reads something locally.
 */
export function redirectUriProblem(uri: string): string | null {
  if (!URL.canParse(uri)) return 'is not an absolute URI'
  const url = new URL(uri)
  if (url.hash !== '' || uri.includes('#')) return 'must not have a fragment'
  if (forbiddenSchemes.has(url.protocol)) return `may not use the ${url.protocol} scheme`
  if (url.protocol === 'http:' && !isLoopback(url)) return 'must use https (plain http only on a loopback address)'
  if (url.protocol === 'https:' && url.hostname === '') return 'has no host'
  return null
}

/**
 * Whether a requested redirect URI is one the client registered: exactly, except that a loopback
 * redirect may use any port (RFC 8252 §7.3; a native app gets whatever port is free). Never one
 * with a fragment, not even an empty `#` (RFC 6749 §3.1.2): the code would be sent somewhere the
 * client did not register, and registration refuses fragments too.
 */
export function redirectUriMatches(registered: readonly string[], requested: string): boolean {
  if (requested.includes('#')) return false
  if (registered.includes(requested)) return true
  if (!URL.canParse(requested)) return false
  const asked = new URL(requested)
  if (!isLoopback(asked)) return false
  const portless = withoutPort(asked)
  return registered.some((candidate) => {
    if (!URL.canParse(candidate)) return false
    const known = new URL(candidate)
    return isLoopback(known) && withoutPort(known) === portless
  })
}

/** A URL as text without its port: everything else of a loopback redirect must match. */
function withoutPort(url: URL): string {
  const copy = new URL(url.href)
  copy.port = ''
  return copy.href
}

/** A space-separated scope parameter as scopes: all of them when absent or empty; null when one is unknown. */
export function parseScopes(scope: string | undefined): Scope[] | null {
  const names = (scope ?? '').split(' ').filter(Boolean)
  if (names.length === 0) return [...allScopes]
  if (!names.every(isScope)) return null
  return [...new Set(names as Scope[])]
}

/** RFC 7636: 43–128 characters from the unreserved set. */
export const pkceVerifierPattern = /^[A-Za-z0-9._~-]{43,128}$/

/** Two resource identifiers are the same when they differ at most by one trailing slash. */
export function sameResource(a: string, b: string): boolean {
  return a.replace(/\/$/, '') === b.replace(/\/$/, '')
}
