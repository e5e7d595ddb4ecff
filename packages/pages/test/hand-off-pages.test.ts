import { Actions, personPagePath } from '@quire/core'
import { describe, expect, it } from 'vitest'
import { webRoutes } from '../src/web-routes.ts'

/** Whether a path is one a route of the table answers with GET (a `:name` matches one segment). */
function servedByGet(path: string): boolean {
  return Object.values(webRoutes).some((route) => {
    if (route.methods === '*' || !route.methods.includes('GET')) return false
    const pattern = new RegExp(`^${route.pattern.replace(/:[A-Za-z0-9_]+/g, '[^/]+')}$`)
    return pattern.test(path)
  })
}

describe("the pages core's hand-offs send a person to", () => {
  const places = [
    { kind: 'artifact', owner: 'ada', project: 'status', slug: 'weekly' },
    { kind: 'workspace', id: 'wsp_01' },
    { kind: 'account' },
  ] as const

  it('are pages of the web app, for every action and place', () => {
    for (const action of Actions)
      for (const place of places) expect(servedByGet(personPagePath(action, place)), `${action} at ${place.kind}`).toBe(true)
  })

  it('send sharing and access changes to the artifact settings page', () => {
    const place = places[0]
    const settings = webRoutes.artifactSettings.path({ owner: 'ada', project: 'status', slug: 'weekly' })
    expect(personPagePath('artifact.share', place)).toBe(settings)
    expect(personPagePath('artifact.access.write', place)).toBe(settings)
    expect(personPagePath('api_key.manage', places[2])).toBe(webRoutes.apiKeys.path())
    expect(personPagePath('agent.manage', places[2])).toBe(webRoutes.agents.path())
    expect(personPagePath('workspace.invite', places[1])).toBe(webRoutes.workspace.path({ workspaceId: 'wsp_01' }))
  })
})
