/**
 * The table of the web app's routes: every path a builder makes is one its pattern matches, each
 * parameter encoded as one segment, every first segment is a name core reserves, and every second
 * segment under an owner a name core reserves for projects.
 */
import { slugProblem, webOwnerSegments, webPaths, webTopLevelSegments } from '@quire/core'
import { describe, expect, it } from 'vitest'
import { type WebRoute, webRoutes } from '../src/web-routes.ts'

const routes = Object.entries(webRoutes) as [string, WebRoute][]

/** The parameter names of a pattern, in order (`*` for a mount's rest). */
function parameterNames(pattern: string): string[] {
  return [...pattern.matchAll(/:([A-Za-z0-9_]+)|\*/g)].map((m) => m[1] ?? '*')
}

/** A matcher for a pattern as Fastify reads it: a named parameter is one segment, `*` the rest. */
function matcherOf(pattern: string): RegExp {
  const source = pattern
    .split(/(:[A-Za-z0-9_]+|\*)/)
    .map((part) => {
      if (part === '*') return '(.*)'
      if (part.startsWith(':')) return '([^/]+)'
      return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    })
    .join('')
  return new RegExp(`^${source}$`)
}

/** Values that need encoding: a space, a slash, a question mark, a percent sign, non-ASCII. */
const awkward = (name: string) => `${name} a/b?c%d#é`

describe('webRoutes', () => {
  it('has one entry per pattern', () => {
    const patterns = routes.map(([, route]) => route.pattern)
    expect(new Set(patterns).size).toBe(patterns.length)
  })

  it("takes every first segment from core's webPaths, or a parameter (an owner's name)", () => {
    for (const [name, route] of routes) {
      const first = route.pattern.split('/')[1] ?? ''
      if (route.pattern === '/' || first.startsWith(':')) continue
      expect(webTopLevelSegments.has(first), `${name}: ${route.pattern}`).toBe(true)
    }
    expect(webRoutes.profile.pattern).toBe(`/${webPaths.settings}`)
    expect(webRoutes.sharedArtifact.pattern).toBe(`/${webPaths.shareLink}/:token`)
  })

  it("takes every second segment under an owner from core's webOwnerPaths, or a parameter (a project's slug)", () => {
    const underOwner = routes.filter(([, route]) => route.pattern.split('/')[1]?.startsWith(':'))
    expect(underOwner.length).toBeGreaterThan(0)
    for (const [name, route] of underOwner) {
      const second = route.pattern.split('/')[2]
      if (second === undefined || second.startsWith(':')) continue
      expect(webOwnerSegments.has(second), `${name}: ${route.pattern}`).toBe(true)
      expect(slugProblem(second, 'project'), `${name}: ${route.pattern}`).toBe('reserved')
    }
  })

  it('builds paths that the pattern matches, each parameter encoded as one segment and read back as given', () => {
    for (const [name, route] of routes) {
      const names = parameterNames(route.pattern)
      const params = Object.fromEntries(names.map((n) => [n, n === '*' ? 'rest/of/it' : awkward(n)]))
      const path = (route.path as (p: Record<string, string>) => string)(params)
      const match = matcherOf(route.pattern).exec(path)
      expect(match, `${name}: ${path} against ${route.pattern}`).not.toBeNull()
      names.forEach((n, i) => {
        const got = match?.[i + 1] ?? ''
        expect(n === '*' ? got : decodeURIComponent(got), `${name}: ${n}`).toBe(params[n])
      })
    }
  })

  it('builds a path with no parameters as the pattern itself', () => {
    for (const [name, route] of routes)
      if (parameterNames(route.pattern).length === 0) expect((route.path as () => string)(), name).toBe(route.pattern)
  })

  it('encodes each segment', () => {
    expect(webRoutes.artifact.path({ owner: 'a b', project: 'c/d', slug: 'e?f' })).toBe('/a%20b/c%2Fd/e%3Ff')
    expect(webRoutes.apiKeyRevoke.path({ apiKeyId: 'key/1' })).toBe('/settings/keys/key%2F1/revoke')
    expect(webRoutes.sharedRaw.path({ token: 'qs_#x' })).toBe('/s/qs_%23x/raw')
    expect(webRoutes.workspaceInvitationRevoke.path({ workspaceId: 'w 1', invitationId: 'i?2' })).toBe(
      '/settings/workspaces/w%201/invitations/i%3F2/revoke',
    )
  })

  it('writes the query in the order the table declares, encoded, leaving out what is absent', () => {
    const params = { owner: 'ada', project: 'notes', slug: 'plan' }
    expect(webRoutes.diff.path(params, { to: 3, from: 2 })).toBe('/ada/notes/plan/diff?from=2&to=3')
    expect(webRoutes.artifact.path(params, { version: undefined, notice: 'saved' })).toBe('/ada/notes/plan?notice=saved')
    expect(webRoutes.artifact.path(params, {})).toBe('/ada/notes/plan')
    expect(webRoutes.signIn.path({}, { return_to: '/s/x?version=2&y' })).toBe('/login?return_to=%2Fs%2Fx%3Fversion%3D2%26y')
    expect(webRoutes.accountAudit.path({}, { action: 'artifact.created', limit: null, cursor: 'MTp4' })).toBe(
      '/settings/audit?action=artifact.created&cursor=MTp4',
    )
    expect(webRoutes.agentClaim.path({}, { user_code: null })).toBe('/agent/claim')
  })

  it('refuses to build a path without one of its parameters', () => {
    expect(() => (webRoutes.workspace.path as (p: object) => string)({})).toThrow(/workspaceId/)
  })

  it('declares the methods of every route, and a query only on routes that answer GET', () => {
    for (const [name, route] of routes) {
      if (route.methods === '*') continue
      expect(route.methods.length, name).toBeGreaterThan(0)
      if (route.query.length > 0) expect(route.methods, name).toContain('GET')
    }
  })
})
