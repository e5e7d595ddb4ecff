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
  /** Searching what the signed-in person may read (`/search?q=`). */
  search: 'search',
  /** Share links, `/s/<secret>`. */
  shareLink: 's',
  settings: 'settings',
} as const

/** The web app's top-level path segments (`webPaths`), as a set. */
export const webTopLevelSegments: ReadonlySet<string> = new Set(Object.values(webPaths))

/**
 * Names no user or workspace may take: the web app's top-level paths, and names that collide with
 * routes to come or would mislead readers. Project slugs have their own, much shorter list
 * (`reservedProjectSlugs`); artifact slugs are not checked.
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

/**
 * The second path segments the web app serves under an owner (`/{owner}/<segment>`), now or soon.
 * A project's page is `/{owner}/{project}`, so a project named like one of these would be shadowed
 * by the app's own page: only these are reserved for projects (`reservedProjectSlugs`). Today
 * every route under an owner takes a project's slug there (`/:owner/:project/…`), so the list is
 * empty; a route that puts a word there must name it here, and apps/web/test/routes.test.ts fails
 * when a registered route under an owner has a second segment a project could take.
 */
export const webOwnerPaths = {} as const satisfies Readonly<Record<string, string>>

/** The web app's second path segments under an owner (`webOwnerPaths`), as a set. */
export const webOwnerSegments: ReadonlySet<string> = new Set<string>(Object.values(webOwnerPaths))

/**
 * Names no project may take: only what would collide under `/{owner}/…` (`webOwnerSegments`).
 * A project is not a username: `status`, `docs` or `api` are fine project names, since nothing of
 * the app lives at `/{owner}/status` (docs/decisions.md, "Project slugs are not usernames").
 */
export const reservedProjectSlugs: ReadonlySet<string> = new Set([...webOwnerSegments])

/** Which list of reserved names a slug is checked against: an owner's (user, workspace), a project's, or none (artifacts). */
export type SlugKind = 'owner' | 'project' | 'artifact'

const reservedByKind: Readonly<Record<SlugKind, ReadonlySet<string>>> = {
  owner: reservedSlugs,
  project: reservedProjectSlugs,
  artifact: new Set(),
}

/** Why a name cannot be used as a slug of this kind, or null when it can. */
export function slugProblem(name: string, kind: SlugKind): Exclude<AvailabilityReason, 'taken'> | null {
  if (!slugRe.test(name)) return 'invalid'
  if (reservedByKind[kind].has(name)) return 'reserved'
  return null
}

/** At most this many alternatives are suggested for a refused slug. */
export const slugSuggestionCount = 3

/** `Status Reports!` → `status-reports`: a title as a slug, or '' when nothing of it is left. */
export function slugify(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, 64)
    .replace(/-+$/, '')
}

/** `base` cut so that `base-suffix` fits a slug's 64 characters. */
function withSuffix(base: string, suffix: string): string {
  return `${base.slice(0, 63 - suffix.length).replace(/-+$/, '')}-${suffix}`
}

/**
 * The names to try, best first, for a slug refused as reserved or taken: the title as a slug when
 * it says more than the slug (`status` titled "Status reports" → `status-reports`), the slug with
 * the title's first word it lacks, then `<slug>-2`, `<slug>-3`… Only valid slugs of the kind, each
 * once; whether they are free is the caller's to check (`suggestSlugs`).
 */
export function slugCandidates(slug: string, kind: SlugKind, title?: string): string[] {
  const words = slugify(title ?? '')
  const extra = words.split('-').find((word) => word !== '' && !slug.split('-').includes(word))
  const named = [words, extra === undefined ? '' : withSuffix(slug, extra)]
  const numbered = Array.from({ length: 8 }, (_, i) => withSuffix(slug, String(i + 2)))
  const seen = new Set([slug])
  return [...named, ...numbered].filter((name) => {
    if (name === '' || seen.has(name) || slugProblem(name, kind) !== null) return false
    seen.add(name)
    return true
  })
}

/** Up to `slugSuggestionCount` of the candidates (`slugCandidates`) that `taken` says are free, asked in order. */
export async function suggestSlugs(candidates: readonly string[], taken: (name: string) => Promise<boolean>): Promise<string[]> {
  const free: string[] = []
  for (const name of candidates) {
    if (free.length === slugSuggestionCount) break
    if (!(await taken(name))) free.push(name)
  }
  return free
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
