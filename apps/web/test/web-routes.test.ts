/**
 * The table of the web app's routes (`webRoutes`, @quire/pages) and the app are the same: every
 * route the built app registers (Fastify's `onRoute`, on every instance built here, with the
 * development provider mounted and the agent registration layer on) is an entry of the table,
 * with its method, and every entry is registered with each method it declares.
 */
import { type WebRoute, webRoutes } from '@quire/pages'
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
  web = await startTestWeb({ env: agentLayerEnv() })
})
afterAll(async () => {
  await web?.close()
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
