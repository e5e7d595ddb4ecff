/**
 * `listProjectArtifacts`: the project page's listing rule for every surface. The stores here stand
 * in for the ports (an in-memory artifact list that honours the listing scope, a namespace load),
 * and the policy is a small table shaped like the real one (core does not import @quire/authz);
 * REST's matrix, not-found and project-list tests run the same use-case against the real policy
 * and database.
 */
import { describe, expect, it } from 'vitest'
import {
  type Action,
  type ArtifactListScope,
  type ArtifactRecord,
  type Caller,
  type CoreDeps,
  type CredentialRecord,
  type Decision,
  listProjectArtifacts,
  type PageRequest,
  type Policy,
  type Principal,
  type Resource,
  type Role,
  unseen,
} from '../src/index.ts'
import { artifact, credential } from './fixtures.ts'

const workspace = { id: artifact.workspaceId, slug: 'ana', kind: 'team', name: 'Ana & co' } as const
const project = {
  id: artifact.projectId,
  workspaceId: artifact.workspaceId,
  ownerSlug: 'ana',
  slug: 'notes',
  title: 'Notes',
  description: '',
  icon: 'n',
  createdAt: artifact.createdAt,
  createdBy: artifact.createdBy,
}

/** Five artifacts of `ana/notes`, newest last: two public, one allowlisting viewer@example.com, two private. */
const rows: ArtifactRecord[] = [
  { ...artifact, id: 'art_01jc0000000000000000000001', slug: 'public-old', publicView: true, viewerEmails: [] },
  { ...artifact, id: 'art_01jc0000000000000000000002', slug: 'private-a', viewerEmails: [] },
  { ...artifact, id: 'art_01jc0000000000000000000003', slug: 'shared', viewerEmails: ['viewer@example.com'] },
  { ...artifact, id: 'art_01jc0000000000000000000004', slug: 'private-b', viewerEmails: [] },
  { ...artifact, id: 'art_01jc0000000000000000000005', slug: 'public-new', publicView: true, viewerEmails: [] },
]

/** The policy's rules on artifacts and workspaces, as a table (see @quire/authz `decide()` for the real one). */
const tablePolicy: Policy = {
  authenticate: (record) => {
    if (record === null || record.revokedAt !== null) return { ok: false, reason: 'revoked' }
    if (!record.user) return { ok: false, reason: 'unknown' }
    const scopes = record.kind === 'session' ? 'all' : (record.scopes as Extract<Principal, { kind: 'api_key' }>['scopes'])
    return { ok: true, principal: { kind: record.kind as 'session' | 'api_key', credentialId: record.id, user: record.user, scopes } }
  },
  decide: (principal: Principal, action: Action, resource: Resource): Decision => {
    if (principal.kind === 'anonymous' && resource.type === 'workspace')
      return { allow: false, code: 'unauthenticated', reason: 'anonymous' }
    const scoped = principal.kind === 'api_key' && principal.scopes !== 'all' && !principal.scopes.includes('artifacts:read')
    const scopeRefusal: Decision = { allow: false, code: 'insufficient_scope', reason: 'lacks it', scope: 'artifacts:read' }
    if (resource.type === 'workspace') {
      if (resource.role === null) return { allow: false, code: 'not_found', reason: 'not a member' }
      return scoped ? scopeRefusal : { allow: true, reason: 'member', grant: { kind: 'role', role: resource.role } }
    }
    if (resource.type !== 'artifact' || action !== 'artifact.read') throw new Error(`not asked here: ${action} on ${resource.type}`)
    const user = principal.kind === 'session' || principal.kind === 'api_key' ? principal.user : null
    const allowlisted = user?.emailVerified === true && resource.viewerEmails.includes(user.email)
    if (!resource.publicView && !allowlisted) return { allow: false, code: 'not_found', reason: 'private' }
    return scoped ? scopeRefusal : { allow: true, reason: 'readable', grant: { kind: 'public_view' } }
  },
}

interface World {
  readonly role: Role | null
  readonly record: CredentialRecord | null
  /** The owner and project the store finds (null: no such namespace or project). */
  readonly found?: { readonly workspace: boolean; readonly project: boolean }
  readonly rows?: readonly ArtifactRecord[]
}

/** Core's dependencies as far as the use-case reaches; `scopes` records each listing's scope. */
function depsFor(world: World, scopes: ArtifactListScope[]): CoreDeps {
  const found = world.found ?? { workspace: true, project: true }
  const stored = world.rows ?? rows
  return {
    policy: tablePolicy,
    clock: { now: () => new Date('2025-02-01T00:00:00.000Z') },
    config: { webUrl: 'https://quire.test', apiUrl: 'https://api.quire.test', limits: {} as CoreDeps['config']['limits'], version: 'test' },
    credentials: { touch: () => {}, rejected: () => {} } as unknown as CoreDeps['credentials'],
    ids: { next: (prefix: string) => `${prefix}_01jc0000000000000000000099` } as unknown as CoreDeps['ids'],
    projects: {
      loadNamespaceForCaller: async () => ({
        credential: world.record,
        workspace: found.workspace ? workspace : null,
        role: found.workspace ? world.role : null,
        project: found.workspace && found.project ? project : null,
      }),
    } as unknown as CoreDeps['projects'],
    artifacts: {
      // The port's contract: newest first, past the cursor, narrowed by the scope, limit + 1 rows.
      listForWorkspace: async (scope: ArtifactListScope, page: PageRequest) => {
        scopes.push(scope)
        return stored
          .filter((r) => r.workspaceId === scope.workspaceId && (scope.projectId === undefined || r.projectId === scope.projectId))
          .filter(
            (r) => !scope.publicOnly || r.publicView || (scope.viewerEmail !== undefined && r.viewerEmails.includes(scope.viewerEmail)),
          )
          .sort((a, b) => (a.id < b.id ? 1 : -1))
          .filter((r) => page.after === null || r.id < page.after)
          .slice(0, page.limit + 1)
      },
    } as unknown as CoreDeps['artifacts'],
  } as unknown as CoreDeps
}

const bearer: Caller = { credential: { secretHash: 'a'.repeat(64) }, surface: 'api', requestId: 'req-1' }
const anonymous: Caller = { credential: null, surface: 'api' }
const path = { owner: 'ana', projectSlug: 'notes' }
const apiKey = (email: string, scopes: readonly string[], verified = true): CredentialRecord => {
  const base = credential(email)
  return { ...base, kind: 'api_key', scopes, user: base.user ? { ...base.user, emailVerified: verified } : null }
}

async function list(world: World, caller: Caller = bearer, query: { limit?: number; cursor?: string } = {}) {
  const scopes: ArtifactListScope[] = []
  const result = await listProjectArtifacts(depsFor(world, scopes), caller, path, query)
  return { result, scopes, slugs: result.ok ? result.value.items.map((a) => a.slug) : null }
}

describe('listProjectArtifacts', () => {
  it("lists every artifact of the project to a member, newest first, paged, from the project's scope", async () => {
    const member = { role: 'member' as const, record: apiKey('member@example.com', ['artifacts:read']) }
    const first = await list(member, bearer, { limit: 3 })
    expect(first.slugs).toEqual(['public-new', 'private-b', 'shared'])
    expect(first.scopes).toEqual([{ workspaceId: workspace.id, projectId: project.id }])
    const cursor = first.result.ok ? first.result.value.nextCursor : null
    expect(cursor).not.toBeNull()
    const second = await list(member, bearer, { limit: 3, cursor: cursor as string })
    expect(second.slugs).toEqual(['private-a', 'public-old'])
    expect(second.result.ok && second.result.value.nextCursor).toBeNull()
    expect(second.result.ok && second.result.value.items[0]).toMatchObject({
      ownerUsername: 'ana',
      projectSlug: 'notes',
      url: 'https://quire.test/ana/notes/private-a',
    })
  })

  it('lists to anyone else what they may read: the public ones, and those allowlisting their verified email', async () => {
    const stranger = await list({ role: null, record: apiKey('stranger@example.com', ['artifacts:read']) })
    expect(stranger.slugs).toEqual(['public-new', 'public-old'])
    expect(stranger.scopes).toEqual([
      { workspaceId: workspace.id, projectId: project.id, publicOnly: true, viewerEmail: 'stranger@example.com' },
    ])
    const viewer = await list({ role: null, record: apiKey('viewer@example.com', ['artifacts:read']) })
    expect(viewer.slugs).toEqual(['public-new', 'shared', 'public-old'])
    const unverified = await list({ role: null, record: apiKey('viewer@example.com', ['artifacts:read'], false) })
    expect(unverified.slugs).toEqual(['public-new', 'public-old'])
    expect(unverified.scopes[0]).not.toHaveProperty('viewerEmail')
    const nobody = await list({ role: null, record: null }, anonymous)
    expect(nobody.slugs).toEqual(['public-new', 'public-old'])
    expect(nobody.scopes[0]).toEqual({ workspaceId: workspace.id, projectId: project.id, publicOnly: true })
  })

  it('puts each row to the policy: a row the store returns but the policy refuses is left out', async () => {
    // A store row claiming an allowlist for an unverified email: the policy, not the store, has the last word.
    const unverified = apiKey('viewer@example.com', ['artifacts:read'], false)
    const sneaky = { ...rows[2], viewerEmails: ['viewer@example.com'] } as ArtifactRecord
    const scopes: ArtifactListScope[] = []
    const deps = depsFor({ role: null, record: unverified, rows: [sneaky, rows[4] as ArtifactRecord] }, scopes)
    const leaky = { ...deps, artifacts: { ...deps.artifacts, listForWorkspace: async () => [sneaky] } } as CoreDeps
    const result = await listProjectArtifacts(leaky, bearer, path, {})
    expect(result.ok).toBe(false)
    expect(!result.ok && result.error.code).toBe('not_found')
  })

  it('answers a project where the caller may read nothing as it answers one that does not exist, with or without a cursor', async () => {
    const privateOnly = rows.filter((r) => !r.publicView && r.viewerEmails.length === 0)
    const stranger = { role: null, record: apiKey('stranger@example.com', ['artifacts:read']), rows: privateOnly }
    const hidden = await list(stranger)
    const noProject = await list({ ...stranger, found: { workspace: true, project: false } })
    const noOwner = await list({ ...stranger, found: { workspace: false, project: false } })
    const anonymousHidden = await list({ ...stranger, record: null }, anonymous)
    for (const { result } of [hidden, noProject, noOwner, anonymousHidden]) {
      expect(result.ok).toBe(false)
      if (!result.ok) expect(result.error).toMatchObject({ code: 'not_found', message: unseen.project })
    }
    // A cursor of the caller's own making finds nothing more: the project stays unseen.
    const forged = Buffer.from('1:art_01jc0000000000000000000009').toString('base64url')
    const probed = await list(stranger, bearer, { cursor: forged })
    expect(probed.result.ok).toBe(false)
    if (!probed.result.ok) expect(probed.result.error).toMatchObject({ code: 'not_found', message: unseen.project })
    // Where the caller may read something, paging past it is an empty page, not a 404.
    const past = await list({ ...stranger, rows }, bearer, {
      cursor: Buffer.from('1:art_01jc0000000000000000000001').toString('base64url'),
    })
    expect(past.slugs).toEqual([])
  })

  it('refuses a credential without artifacts:read, member or not, with the scope it lacks', async () => {
    for (const role of ['owner', null] as const) {
      const { result } = await list({ role, record: apiKey('someone@example.com', ['artifacts:create']) })
      expect(result.ok).toBe(false)
      if (!result.ok) expect(result.error).toMatchObject({ code: 'insufficient_scope', scope: 'artifacts:read' })
    }
  })

  it('refuses a credential that is not valid before anything is listed, and a cursor it did not issue', async () => {
    const revoked = { ...apiKey('member@example.com', ['artifacts:read']), revokedAt: new Date(0) }
    const dead = await list({ role: 'owner', record: revoked })
    expect(!dead.result.ok && dead.result.error.code).toBe('invalid_token')
    expect(dead.scopes).toEqual([])
    const bad = await list({ role: 'owner', record: apiKey('member@example.com', ['artifacts:read']) }, bearer, { cursor: 'forged' })
    expect(!bad.result.ok && bad.result.error.code).toBe('invalid_cursor')
  })
})
