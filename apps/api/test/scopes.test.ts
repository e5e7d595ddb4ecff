/**
 * Each of the eight scopes gates what it should and nothing else. For every scope, a key of the
 * workspace owner carrying only that scope calls every operation of the table: where the operation
 * needs another scope, it gets 403 `insufficient_scope` naming the missing one (body and RFC 6750
 * header); where it needs this scope or none, it gets through.
 *
 * `gatedBy` is written out by hand (not read from the action table), so a scope silently moved
 * from one operation to another fails here.
 */
import { type OperationId, operationIds, type Scope, scopes } from '@quire/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { engine, startTestApi, type TestApi } from './helper.ts'
import { createWorld, prepare, type World } from './operation-world.ts'

const gatedBy: Record<OperationId, Scope | null> = {
  health: null,
  getProfile: null,
  listMyInvitations: null,
  acceptInvitation: null,
  updateProfile: 'artifacts:update',
  listApiKeys: 'agents:manage',
  createApiKey: 'agents:manage',
  revokeApiKey: 'agents:manage',
  listAgents: 'agents:manage',
  revokeAgent: 'agents:manage',
  listWorkspaces: 'artifacts:read',
  createWorkspace: 'artifacts:create',
  listWorkspaceMembers: 'artifacts:access:read',
  listWorkspaceProjects: 'artifacts:read',
  listWorkspaceArtifacts: 'artifacts:read',
  createInvitation: 'artifacts:share',
  listInvitations: 'artifacts:share',
  revokeInvitation: 'artifacts:share',
  listWorkspaceAuditEvents: 'artifacts:read',
  createProject: 'artifacts:create',
  listMyProjects: 'artifacts:read',
  checkProjectSlug: 'artifacts:read',
  resolveProjectPath: 'artifacts:read',
  createArtifact: 'artifacts:create',
  listMyArtifacts: 'artifacts:read',
  getArtifact: 'artifacts:read',
  deleteArtifact: 'artifacts:delete',
  checkArtifactSlug: 'artifacts:read',
  previewArtifactUrl: 'artifacts:read',
  resolveArtifactPath: 'artifacts:read',
  appendVersion: 'artifacts:update',
  restoreVersion: 'artifacts:update',
  getContent: 'artifacts:read',
  listVersions: 'artifacts:read',
  diffVersions: 'artifacts:read',
  getArtifactChanges: 'artifacts:read',
  getArtifactAccess: 'artifacts:access:read',
  updateArtifactAccess: 'artifacts:access:write',
  createShareLink: 'artifacts:share',
  listShareLinks: 'artifacts:share',
  revokeShareLink: 'artifacts:share',
  listAuditEvents: 'artifacts:read',
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
    for (const scope of scopes) expect(Object.values(gatedBy), scope).toContain(scope)
  })

  for (const scope of scopes) {
    describe(`a key with only ${scope}`, () => {
      for (const id of operationIds) {
        const needed = gatedBy[id]
        const passes = needed === null || needed === scope
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
