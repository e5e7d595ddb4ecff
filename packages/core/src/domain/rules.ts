import type { AvailabilityReason } from '../contract/schemas/common.ts'
import { SLUG_PATTERN } from '../contract/schemas/common.ts'

const slugRe = new RegExp(SLUG_PATTERN)

/**
 * Names no user, workspace, project or artifact may take: they collide with routes of the web
 * app or would mislead readers.
 */
export const reservedSlugs: ReadonlySet<string> = new Set([
  'about',
  'account',
  'admin',
  'agent',
  'agents',
  'api',
  'app',
  'apps',
  'assets',
  'auth',
  'billing',
  'blog',
  'dashboard',
  'docs',
  'explore',
  'health',
  'help',
  'home',
  'login',
  'logout',
  'mcp',
  'me',
  'new',
  'null',
  'oauth',
  'oauth2',
  'openapi',
  'pricing',
  'profile',
  'projects',
  'public',
  'quire',
  'root',
  's',
  'search',
  'security',
  'settings',
  'signin',
  'signout',
  'signup',
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
