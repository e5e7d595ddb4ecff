/**
 * Artifact pages live at `{web_url}/<owner>/<project>/<slug>`, so every first path segment the
 * web app serves must be a name no user or workspace can take, and every second segment under an
 * owner (`/:owner/<segment>`) one no project can take (projects have their own, shorter list:
 * `reservedProjectSlugs`). This test watches every route the built web app registers (Fastify's `onRoute` hook
 * on every instance built here, with the development provider mounted and the agent registration
 * layer on) and checks each first segment against the core's rules. The same routes are the table
 * of the web app's routes (`webRoutes`, @quire/pages): every route registered is an entry of the
 * table, with its method, and every entry is registered with each method it declares.
 */
import { slugProblem, webOwnerSegments, webTopLevelSegments } from '@quire/core'
import { stylesheetPath, type WebRoute, webRoutes } from '@quire/pages'
import type { RouteOptions } from 'fastify'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { agentLayerEnv, startTestWeb, type TestWeb } from './helper.ts'

const registered = vi.hoisted(() => [] as { method: string; url: string }[])

vi.mock('fastify', async (importOriginal) => {
  const actual = await importOriginal<typeof import('fastify')>()
  const watched = ((options?: Parameters<typeof actual.default>[0]) => {
    const app = actual.default(options)
    app.addHook('onRoute', (route: RouteOptions) => {
      for (const method of [route.method].flat()) registered.push({ method, url: route.url })
    })
    return app
  }) as typeof actual.default
  return { ...actual, default: watched, fastify: watched }
})

let web: TestWeb

beforeAll(async () => {
  // The development provider is mounted (no OIDC_ISSUER), so its routes are among them, and so are
  // the agent registration layer's.
  web = await startTestWeb({ env: agentLayerEnv() })
})
afterAll(async () => {
  await web?.close()
})

/** `/dev-oidc/*` → `dev-oidc`; `/` → ``. */
function firstSegment(url: string): string {
  return url.split('/')[1] ?? ''
}

/**
 * The routes under an owner whose second segment a project could take (`/:owner/settings` when
 * `settings` is not a reserved project slug): a project so named would be shadowed by the route.
 */
function unreservedUnderOwner(urls: readonly { method: string; url: string }[]): string[] {
  return urls
    .filter(({ url }) => {
      const [, first = '', second] = url.split('/')
      if (!first.startsWith(':') || second === undefined || second.startsWith(':') || second === '*') return false
      return slugProblem(second, 'project') === null || !webOwnerSegments.has(second)
    })
    .map(({ method, url }) => `${method} ${url}`)
}

describe('the web app’s top-level paths', () => {
  it('sees every route, the development provider’s mount included', () => {
    const urls = new Set(registered.map((r) => r.url))
    for (const url of [
      '/',
      '/health',
      stylesheetPath,
      '/login',
      '/logout',
      '/auth/callback',
      '/dev-oidc/*',
      '/dev-oidc/interaction/:uid',
      '/.well-known/oauth-authorization-server',
      '/.well-known/oauth-protected-resource',
      '/oauth2/authorize',
      '/oauth2/token',
    ])
      expect(urls).toContain(url)
  })

  it('reserves the first segment of every route it registers: no user, workspace or project can be named so', () => {
    const unreserved = registered
      .filter(({ url }) => {
        const segment = firstSegment(url)
        // The front page, and the owner's own pages (`/:owner/…`) when they come.
        if (segment === '' || segment.startsWith(':')) return false
        return slugProblem(segment, 'owner') === null || !webTopLevelSegments.has(segment)
      })
      .map(({ method, url }) => `${method} ${url}`)
    expect(unreserved).toEqual([])
    // Nothing catches every top-level path (that would shadow every owner).
    expect(registered.filter(({ url }) => url === '/*')).toEqual([])
  })

  it('reserves the paths still to come (share links, MCP, agent registration, raw content, settings)', () => {
    for (const segment of ['s', 'mcp', 'agent', 'auth.md', 'raw', 'settings', 'new', 'assets', '.well-known']) {
      expect(webTopLevelSegments.has(segment), segment).toBe(true)
      expect(slugProblem(segment, 'owner'), segment).not.toBeNull()
    }
  })
})

describe('the web app’s paths under an owner', () => {
  it('sees routes under an owner', () => {
    expect(registered.map(({ url }) => url)).toContain('/:owner/:project/:slug')
  })

  it('reserves for projects the second segment of every route under an owner: no project can be named so', () => {
    expect(unreservedUnderOwner(registered)).toEqual([])
  })

  it('names a route under an owner whose second segment a project could take', () => {
    const routes = [
      { method: 'GET', url: '/:owner/:project' },
      { method: 'GET', url: '/:owner/settings' },
      { method: 'POST', url: '/:owner/status/edit' },
      { method: 'GET', url: '/settings/keys' },
    ]
    expect(unreservedUnderOwner(routes)).toEqual(['GET /:owner/settings', 'POST /:owner/status/edit'])
  })

  it('lets a project take a name that only users and workspaces may not (status, docs, api, settings)', () => {
    for (const name of ['status', 'docs', 'blog', 'api', 'search', 'public', 'home', 'help', 'projects', 'settings', 'new', 's']) {
      expect(slugProblem(name, 'owner'), name).toBe('reserved')
      expect(slugProblem(name, 'project'), name).toBeNull()
    }
  })
})

const table = Object.entries(webRoutes) as [string, WebRoute][]
const byPattern = new Map(table.map(([name, route]) => [route.pattern, { name, route }]))

/** What the app registered, without the HEAD routes Fastify adds to every GET. */
function routes(): { method: string; url: string }[] {
  return registered.filter(({ method }) => method !== 'HEAD')
}

describe('the route table', () => {
  it('holds every route the app registers, with its method', () => {
    const outside = routes()
      .filter(({ method, url }) => {
        const entry = byPattern.get(url)
        if (entry === undefined) return true
        const { methods } = entry.route
        return methods !== '*' && !(methods as readonly string[]).includes(method)
      })
      .map(({ method, url }) => `${method} ${url}`)
    expect(outside).toEqual([])
  })

  it('has every entry registered, with each method it declares', () => {
    const seen = new Set(routes().map(({ method, url }) => `${method} ${url}`))
    const urls = new Set(routes().map(({ url }) => url))
    const missing = table.flatMap(([name, route]) =>
      route.methods === '*'
        ? urls.has(route.pattern)
          ? []
          : [`${name}: * ${route.pattern}`]
        : route.methods.filter((method) => !seen.has(`${method} ${route.pattern}`)).map((method) => `${name}: ${method} ${route.pattern}`),
    )
    expect(missing).toEqual([])
  })

  it('answers its paths: the front page, a settings page (sign-in first), the stylesheet', async () => {
    expect((await fetch(`${web.url}${webRoutes.home.path()}`)).status).toBe(200)
    expect((await fetch(`${web.url}${webRoutes.stylesheet.path()}`)).status).toBe(200)
    const keys = await fetch(`${web.url}${webRoutes.apiKeys.path()}`, { redirect: 'manual' })
    expect(keys.status).toBe(303)
    expect(keys.headers.get('location')).toBe(webRoutes.signIn.path({}, { return_to: webRoutes.apiKeys.path() }))
  })
})
