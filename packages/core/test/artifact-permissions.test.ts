/**
 * `getArtifactPermissions`: one load of the artifact, then the policy port asked about every
 * owner action on the same facts. The policy here is a small table standing in for the port (the
 * real `decide()` lives in @quire/authz, which core does not import); the web app's owner-forms
 * test runs the same use-case against the real policy and database.
 */
import { describe, expect, it } from 'vitest'
import {
  type Action,
  type Caller,
  type CoreDeps,
  type Decision,
  getArtifactPermissions,
  type Policy,
  type Principal,
  type Resource,
  type Role,
  unseen,
} from '../src/index.ts'
import { artifact, credential } from './fixtures.ts'

/** A stand-in for the policy port: owners may do everything, members update, the allowlist reads; it records each question. */
function tablePolicy(asked: { action: Action; resource: Resource }[]): Policy {
  const memberActions = new Set<Action>(['artifact.read', 'artifact.update', 'artifact.access.read', 'audit.read'])
  return {
    authenticate: (record) =>
      record?.user
        ? { ok: true, principal: { kind: 'session', credentialId: record.id, user: record.user, scopes: 'all' } }
        : { ok: false, reason: 'unknown' },
    decide: (principal: Principal, action: Action, resource: Resource): Decision => {
      asked.push({ action, resource })
      if (resource.type !== 'artifact') throw new Error('only artifacts are asked about')
      const email = principal.kind === 'session' ? principal.user.email : null
      const visible = resource.role !== null || (email !== null && resource.viewerEmails.includes(email))
      if (!visible) return { allow: false, code: 'not_found', reason: 'private' }
      if (resource.role === 'owner') return { allow: true, reason: 'owner', grant: { kind: 'role', role: 'owner' } }
      if (resource.role === 'member' && memberActions.has(action))
        return { allow: true, reason: 'member', grant: { kind: 'role', role: 'member' } }
      if (action === 'artifact.read') return { allow: true, reason: 'allowlisted', grant: { kind: 'viewer_email' } }
      return { allow: false, code: 'forbidden', reason: `may not ${action}` }
    },
  }
}

/** Core's dependencies as far as this use-case reaches: the artifact's load, the policy, the clock, the web URL. */
function depsFor(role: Role | null, asked: { action: Action; resource: Resource }[], loads: unknown[]): CoreDeps {
  return {
    policy: tablePolicy(asked),
    clock: { now: () => new Date('2025-02-01T00:00:00.000Z') },
    config: { webUrl: 'https://quire.test', apiUrl: 'https://api.quire.test', limits: {} as CoreDeps['config']['limits'], version: 'test' },
    credentials: { touch: () => {}, rejected: () => {} } as unknown as CoreDeps['credentials'],
    artifacts: {
      loadForCaller: async (query: { credential: Caller['credential'] }) => {
        loads.push(query)
        const record = query.credential === null ? null : credential(role === null ? 'viewer@example.com' : 'member@example.com')
        return { credential: record, artifact, role }
      },
    } as unknown as CoreDeps['artifacts'],
  } as unknown as CoreDeps
}

const signedIn: Caller = { credential: { secretHash: 'a'.repeat(64), sessionCookie: true }, surface: 'web', requestId: 'req-1' }
const target = { owner: 'ana', projectSlug: 'notes', slug: 'plan' }

describe('getArtifactPermissions', () => {
  it('gives an owner every action, from one load and one question per action on the artifact with the caller’s role', async () => {
    const asked: { action: Action; resource: Resource }[] = []
    const loads: unknown[] = []
    const result = await getArtifactPermissions(depsFor('owner', asked, loads), signedIn, target)
    if (!result.ok) throw new Error(result.error.message)
    expect(loads).toHaveLength(1)
    expect(result.value.artifact).toMatchObject({
      id: artifact.id,
      ownerUsername: 'ana',
      projectSlug: 'notes',
      slug: 'plan',
      latestVersion: 3,
    })
    expect(Object.values(result.value.may).every(Boolean)).toBe(true)
    expect(result.value.refusals).toEqual({})
    expect(asked.map((q) => q.action)).toEqual([
      'artifact.read',
      'artifact.update',
      'artifact.delete',
      'artifact.share',
      'artifact.access.read',
      'artifact.access.write',
      'audit.read',
    ])
    for (const { resource } of asked)
      expect(resource).toMatchObject({ type: 'artifact', id: artifact.id, role: 'owner', publicView: false })
  })

  it('tells a member what a member may do, and names the failure each other action would answer with', async () => {
    const result = await getArtifactPermissions(depsFor('member', [], []), signedIn, target)
    if (!result.ok) throw new Error(result.error.message)
    expect(result.value.may).toEqual({
      'artifact.update': true,
      'artifact.delete': false,
      'artifact.share': false,
      'artifact.access.read': true,
      'artifact.access.write': false,
      'audit.read': true,
    })
    expect(Object.keys(result.value.refusals).sort()).toEqual(['artifact.access.write', 'artifact.delete', 'artifact.share'])
    expect(result.value.refusals['artifact.delete']).toMatchObject({ code: 'forbidden', message: 'You are not allowed to do this.' })
  })

  it('lets an allowlisted viewer read and nothing else', async () => {
    const result = await getArtifactPermissions(depsFor(null, [], []), signedIn, target)
    if (!result.ok) throw new Error(result.error.message)
    expect(Object.values(result.value.may).some(Boolean)).toBe(false)
    expect(result.value.refusals['artifact.update']?.code).toBe('forbidden')
  })

  it('refuses whoever may not read the artifact exactly as getArtifact does (the same 404), asking nothing more', async () => {
    const asked: { action: Action; resource: Resource }[] = []
    const result = await getArtifactPermissions(depsFor(null, asked, []), { ...signedIn, credential: null }, target)
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.error.code).toBe('not_found')
    expect(result.error.message).toBe(unseen.artifact)
    expect(asked.map((q) => q.action)).toEqual(['artifact.read'])
  })
})
