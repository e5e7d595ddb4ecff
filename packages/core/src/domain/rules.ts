import type { AvailabilityReason } from '../contract/schemas/common.ts'
import { SLUG_PATTERN } from '../contract/schemas/common.ts'
import { fail, ok, type Result } from './result.ts'

const slugRe = new RegExp(SLUG_PATTERN)

/**
 * The first path segments the web app serves, now or soon. Artifact pages are
 * `{web_url}/<owner>/<project>/<slug>` (`artifactUrl`), so an owner named like one of these would
 * have URLs that collide with the app's own: every one is reserved (`reservedSlugs`). The web app
 * registers its routes under these names, and a test there checks that every route it registers
 * starts with one. Some cannot be slugs anyway (`.well-known`, `auth.md`); they are listed so that
 * the list is the web app's whole top level.
 */
export const webPaths = {
  /** Content-hashed static files (the stylesheet). */
  assets: 'assets',
  /** The OpenID Connect callback (`/auth/callback`). */
  auth: 'auth',
  /** The bundled development OpenID provider (local mode only, but reserved everywhere). */
  devOidc: 'dev-oidc',
  health: 'health',
  login: 'login',
  logout: 'logout',
  /** The OAuth 2.1 authorization server. */
  oauth2: 'oauth2',
  wellKnown: '.well-known',
  // Served by issues still to come.
  agent: 'agent',
  authMd: 'auth.md',
  mcp: 'mcp',
  new: 'new',
  raw: 'raw',
  /** Share links, `/s/<secret>`. */
  shareLink: 's',
  settings: 'settings',
} as const

/** The web app's top-level path segments (`webPaths`), as a set. */
export const webTopLevelSegments: ReadonlySet<string> = new Set(Object.values(webPaths))

/**
 * Names no user, workspace or project may take (artifact slugs are not checked): the web app's
 * top-level paths, and names that collide with routes to come or would mislead readers.
 */
export const reservedSlugs: ReadonlySet<string> = new Set([
  ...webTopLevelSegments,
  'about',
  'account',
  'admin',
  'agents',
  'api',
  'app',
  'apps',
  'billing',
  'blog',
  'dashboard',
  'docs',
  'explore',
  'help',
  'home',
  'me',
  'null',
  'oauth',
  'openapi',
  'pricing',
  'profile',
  'projects',
  'public',
  'quire',
  'root',
  'search',
  'security',
  'signin',
  'signout',
  'signup',
  // `GET /api/projects/slug-availability/:owner/:slug` would answer for this owner's projects' artifacts.
  'slug-availability',
  'static',
  'status',
  'support',
  'system',
  'undefined',
  'user',
  'users',
  'well-known',
  'workspace',
  'workspaces',
  'www',
])

/** Why a name cannot be used as a slug, or null when it can. */
export function slugProblem(name: string, options: { reserved: boolean }): Exclude<AvailabilityReason, 'taken'> | null {
  if (!slugRe.test(name)) return 'invalid'
  if (options.reserved && reservedSlugs.has(name)) return 'reserved'
  return null
}

/** Configurable limits (DESIGN "Limits"). */
export interface Limits {
  /** Maximum UTF-8 size of one version's content, in bytes. */
  readonly contentBytes: number
}

export const defaultLimits: Limits = { contentBytes: 1024 * 1024 }

/** The content size rule of every new version: its UTF-8 size, or a refusal when over the limit. */
export function checkContentSize(limits: Limits, content: string): Result<number> {
  const size = utf8Length(content)
  const max = limits.contentBytes
  if (size > max) return fail('payload_too_large', `The content is ${size} bytes; the limit is ${max} bytes per version.`)
  return ok(size)
}

const encoder = new TextEncoder()

/** UTF-8 byte length without allocating the encoded bytes for ASCII-heavy text. */
export function utf8Length(text: string): number {
  let bytes = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c < 0x80) bytes += 1
    else if (c < 0x800) bytes += 2
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      bytes += 4
      i++
    } else bytes += 3
  }
  return bytes
}

export function utf8(text: string): Uint8Array {
  return encoder.encode(text)
}

/** Derives a username candidate from an email's local part (`Ada.Lovelace+x@…` → `ada-lovelace`). */
export function usernameFromEmail(email: string): string {
  const local = (email.split('@')[0] ?? '').split('+')[0] ?? ''
  const cleaned = local
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/g, '')
  return cleaned.length > 0 ? cleaned : 'user'
}
