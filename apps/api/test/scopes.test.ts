/**
 * Each of the eight scopes gates what it should and nothing else. For every scope, a key of the
 * workspace owner carrying only that scope calls every operation of the table: where the operation
 * needs another scope, it gets 403 `insufficient_scope` naming the first one missing (its own
 * action's first, then those its answer or effect also needs; body and RFC 6750 header); where it
 * needs this scope alone or none, it gets through. An operation needing more than one scope gets
 * through for a key holding exactly those, and its row derives the same list (`scopesOf`).
 *
 * `gatedBy` is written out by hand (not read from the action table), so a scope silently moved
 * from one operation to another fails here.
 */
import { type OperationId, operationIds, operations, type Scope, scopes, scopesOf } from '@quire/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { engine, startTestApi, type TestApi } from './helper.ts'
import { createWorld, prepare, type World } from './operation-world.ts'

/** The scopes each operation needs, in the order they are checked; [] for none. */
const gatedBy: Record<OperationId, readonly Scope[]> = {
  health: [],
  getProfile: [],
  listMyInvitations: [],
  acceptInvitation: [],
  updateProfile: ['artifacts:update'],
  listApiKeys: ['agents:manage'],
  createApiKey: ['agents:manage'],
  revokeApiKey: ['agents:manage'],
  listAgents: ['agents:manage'],
  revokeAgent: ['agents:manage'],
  listWorkspaces: ['artifacts:read'],
  createWorkspace: ['artifacts:create'],
  listWorkspaceMembers: ['artifacts:access:read'],
  listWorkspaceProjects: ['artifacts:read'],
  listWorkspaceArtifacts: ['artifacts:read'],
  createInvitation: ['artifacts:share'],
  listInvitations: ['artifacts:share'],
  revokeInvitation: ['artifacts:share'],
  listWorkspaceAuditEvents: ['artifacts:read'],
  createProject: ['artifacts:create'],
  listMyProjects: ['artifacts:read'],
  checkProjectSlug: ['artifacts:read'],
  resolveProjectPath: ['artifacts:read'],
  createArtifact: ['artifacts:create'],
  listMyArtifacts: ['artifacts:read'],
  searchArtifacts: ['artifacts:read'],
  listEvents: ['artifacts:read'],
  // It delivers what reading the artifacts gives.
  createWebhook: ['webhooks:write', 'artifacts:read'],
  listWebhooks: ['webhooks:write'],
  deleteWebhook: ['webhooks:write'],
  listWebhookDeliveries: ['webhooks:write'],
  redeliverWebhookDelivery: ['webhooks:write'],
  rotateWebhookSecret: ['webhooks:write'],
  listProjectArtifacts: ['artifacts:read'],
  getArtifact: ['artifacts:read'],
  deleteArtifact: ['artifacts:delete'],
  checkArtifactSlug: ['artifacts:read'],
  previewArtifactUrl: ['artifacts:read'],
  resolveArtifactPath: ['artifacts:read'],
  appendVersion: ['artifacts:update'],
  restoreVersion: ['artifacts:update'],
  getContent: ['artifacts:read'],
  listVersions: ['artifacts:read'],
  diffVersions: ['artifacts:read'],
  getArtifactChanges: ['artifacts:read'],
  getArtifactAccess: ['artifacts:access:read'],
  // Its answer shows the whole settings.
  updateArtifactAccess: ['artifacts:access:write', 'artifacts:access:read'],
  // A link reads the artifact (an editor link also writes, for its role only: matrix.test.ts).
  createShareLink: ['artifacts:share', 'artifacts:read'],
  listShareLinks: ['artifacts:share'],
  revokeShareLink: ['artifacts:share'],
  listAuditEvents: ['artifacts:read'],
}

/** Operations whose request only its intended caller can complete: a one-scope key of the owner gets 404 past the scope gate. */
const notTheOwners = new Set<OperationId>(['acceptInvitation'])

let api: TestApi
let world: World

beforeAll(async () => {
  api = await startTestApi()
  world = await createWorld(api)
})

afterAll(async () => {
  await api?.close()
})

describe(`scopes (${engine}): each of the ${scopes.length} scopes gates what it should and nothing else`, () => {
  it('every scope gates at least one operation', () => {
    for (const scope of scopes) expect(Object.values(gatedBy).flat(), scope).toContain(scope)
  })

  it("lists for every operation the scopes its row says it needs (its action's, then those it also needs)", () => {
    for (const id of operationIds) expect(scopesOf(operations[id]), id).toEqual(gatedBy[id])
  })

  for (const scope of scopes) {
    describe(`a key with only ${scope}`, () => {
      for (const id of operationIds) {
        const needed = gatedBy[id].find((s) => s !== scope) ?? null
        const passes = needed === null
        it(`${id} → ${passes ? 'through' : `403 insufficient_scope (${needed})`}`, async () => {
          const request = await prepare(world, id)
          const res = await api.request(request.method, request.url, {
            token: world.keys.scoped[scope],
            ...(request.body === undefined ? {} : { body: request.body }),
          })
          const what = `${request.method} ${request.url}: ${res.statusCode} ${res.body.slice(0, 200)}`
          if (passes) {
            if (notTheOwners.has(id)) expect(res.json().code, what).toBe('not_found')
            else expect(res.statusCode, what).toBeLessThan(300)
          } else {
            expect(res.statusCode, what).toBe(403)
            expect(res.json(), what).toMatchObject({ code: 'insufficient_scope', scope: needed })
            expect(res.headers['www-authenticate'], what).toBe(
              `Bearer realm="quire", resource_metadata="https://api.quire.test/.well-known/oauth-protected-resource", error="insufficient_scope", scope="${needed}"`,
            )
          }
        })
      }
    })
  }
})

describe(`scopes (${engine}): an operation needing more than one scope`, () => {
  for (const id of operationIds.filter((op) => gatedBy[op].length > 1)) {
    it(`${id} gets through for a key with exactly ${gatedBy[id].join(' ')}`, async () => {
      const request = await prepare(world, id)
      const key = (await api.user(world.owner.email, gatedBy[id])).token
      const res = await api.request(request.method, request.url, {
        token: key,
        ...(request.body === undefined ? {} : { body: request.body }),
      })
      expect(res.statusCode, `${request.method} ${request.url}: ${res.statusCode} ${res.body.slice(0, 200)}`).toBeLessThan(300)
    })
  }
})
