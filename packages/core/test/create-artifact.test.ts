/**
 * `createArtifact` and its dry run (`dryRun`): the dry run runs every check of the create (the
 * slug being free included) and calls no store method that writes; a taken slug is refused with
 * free slugs of the project, title-aware, by the create, its dry run and the availability checks.
 * The stores stand in for the ports and record every call; the policy is a small table shaped
 * like the real one (core does not import @quire/authz). REST's tests run the same use-case
 * against the real policy and database.
 */
import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import type { CreateArtifactBody } from '../src/contract/index.ts'
import {
  type Action,
  type Caller,
  type CoreDeps,
  type CreateArtifactCommand,
  type CredentialRecord,
  checkArtifactSlug,
  createArtifact,
  type Decision,
  type Policy,
  type Principal,
  previewArtifactUrl,
  type Resource,
  type Role,
  scopeFor,
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

/** Who may do what in a workspace, by role: members create, owners and admins also set access. */
const tablePolicy: Policy = {
  authenticate: (record) => {
    if (record === null || record.revokedAt !== null) return { ok: false, reason: 'revoked' }
    if (!record.user) return { ok: false, reason: 'unknown' }
    const scopes = record.scopes as Extract<Principal, { kind: 'api_key' }>['scopes']
    return { ok: true, principal: { kind: 'api_key', credentialId: record.id, user: record.user, scopes } }
  },
  decide: (principal: Principal, action: Action, resource: Resource): Decision => {
    if (principal.kind === 'anonymous') return { allow: false, code: 'unauthenticated', reason: 'anonymous' }
    if (resource.type !== 'workspace') throw new Error(`not asked here: ${action} on ${resource.type}`)
    if (resource.role === null) return { allow: false, code: 'not_found', reason: 'not a member' }
    const scope = scopeFor(action)
    if (principal.kind === 'api_key' && principal.scopes !== 'all' && scope !== null && !principal.scopes.includes(scope))
      return { allow: false, code: 'insufficient_scope', reason: 'lacks it', scope }
    if (action === 'artifact.access.write' && resource.role === 'member') return { allow: false, code: 'forbidden', reason: 'a member' }
    return { allow: true, reason: 'member', grant: { kind: 'role', role: resource.role } }
  },
}

interface World {
  readonly role: Role | null
  readonly record: CredentialRecord | null
  /** False: the owner has no such project. */
  readonly project?: boolean
  /** The live slugs of the project. */
  readonly taken?: readonly string[]
}

/**
 * Core's dependencies, each store a recorder: every call is noted in `calls` as `store.method`,
 * and a method the use-case should not reach throws.
 */
function depsFor(world: World, calls: string[]): CoreDeps {
  const taken = new Set(world.taken ?? [])
  const implemented: Record<string, Record<string, (...args: never[]) => unknown>> = {
    projects: {
      loadNamespaceForCaller: async () => ({
        credential: world.record,
        workspace,
        role: world.role,
        project: world.project === false ? null : project,
      }),
    },
    artifacts: {
      slugTaken: async (projectId: string, slug: string) => projectId === project.id && taken.has(slug),
      create: async (command: CreateArtifactCommand) => {
        if (taken.has(command.artifact.slug)) return { ok: false, reason: 'slug_taken' }
        taken.add(command.artifact.slug)
        return { ok: true }
      },
    },
    idempotency: { find: async () => null },
    credentials: { touch: () => {}, rejected: () => {} },
  }
  const recorder = (store: string) =>
    new Proxy(
      {},
      {
        get: (_, method: string) => {
          const run = implemented[store]?.[method]
          if (!run) throw new Error(`${store}.${method} is not expected here`)
          return (...args: never[]) => {
            calls.push(`${store}.${method}`)
            return run(...args)
          }
        },
      },
    )
  let next = 0
  return {
    policy: tablePolicy,
    clock: { now: () => new Date('2025-02-01T00:00:00.000Z') },
    config: { webUrl: 'https://quire.test', apiUrl: 'https://api.quire.test', limits: { contentBytes: 64 }, version: 'test' },
    ids: { next: (prefix: string) => `${prefix}_01jc00000000000000000000${String(++next).padStart(2, '0')}` },
    sha256: async (text: string) => createHash('sha256').update(text, 'utf8').digest('hex'),
    projects: recorder('projects'),
    artifacts: recorder('artifacts'),
    idempotency: recorder('idempotency'),
    credentials: recorder('credentials'),
  } as unknown as CoreDeps
}

const bearer: Caller = { credential: { secretHash: 'a'.repeat(64) }, surface: 'api', requestId: 'req-1' }
const anonymous: Caller = { credential: null, surface: 'api' }
const apiKey = (scopes: readonly string[]): CredentialRecord => ({ ...credential('ana@example.com'), kind: 'api_key', scopes })
const everyScope = ['artifacts:create', 'artifacts:access:write']
const owner: World = { role: 'owner', record: apiKey(everyScope) }

const body: CreateArtifactBody = {
  ownerUsername: 'ana',
  projectSlug: 'notes',
  slug: 'plan',
  type: 'md',
  title: 'Launch plan',
  content: '# Plan\n',
  changelog: 'First',
  access: { publicView: true, publicEdit: false, viewerEmails: ['Bob@Example.com'] },
}

/** The create, for real and as a dry run, each on a world of its own: their results and their store calls. */
async function both(world: World, input: CreateArtifactBody = body, caller: Caller = bearer) {
  const realCalls: string[] = []
  const dryCalls: string[] = []
  const real = await createArtifact(depsFor(world, realCalls), caller, input, 'key-1')
  const dry = await createArtifact(depsFor(world, dryCalls), caller, input, 'key-1', { dryRun: true })
  return { real, dry, realCalls, dryCalls }
}

/**
 * What a dry run may call: reads (the namespace load, the slug probes), marking the key as used,
 * and the trail of a refused credential, which the create leaves just the same.
 */
const reads = new Set(['projects.loadNamespaceForCaller', 'artifacts.slugTaken', 'credentials.touch', 'credentials.rejected'])

describe('createArtifact with dryRun', () => {
  it('answers what the create then makes, calling no store method that writes or reads the Idempotency-Key', async () => {
    const { real, dry, realCalls, dryCalls } = await both(owner)
    expect(dry.ok && dry.value).toEqual({
      dryRun: true,
      wouldCreate: {
        ownerUsername: 'ana',
        projectSlug: 'notes',
        slug: 'plan',
        url: 'https://quire.test/ana/notes/plan',
        type: 'md',
        title: 'Launch plan',
        description: '',
        versionNumber: 1,
        sha256: createHash('sha256').update('# Plan\n').digest('hex'),
        size: 7,
        changelog: 'First',
        access: { publicView: true, publicEdit: false, viewerEmails: ['bob@example.com'] },
      },
    })
    expect(dryCalls.filter((call) => !reads.has(call))).toEqual([])
    expect(dryCalls).toContain('artifacts.slugTaken')
    // The real create, on the same facts, writes what the dry run said.
    expect(realCalls).toContain('artifacts.create')
    expect(realCalls).toContain('idempotency.find')
    expect(real.ok && real.value.value).toMatchObject({
      ownerUsername: 'ana',
      projectSlug: 'notes',
      slug: 'plan',
      url: 'https://quire.test/ana/notes/plan',
    })
  })

  it('refuses as the create does, with the same failure, for every check', async () => {
    const cases: { name: string; world: World; input?: CreateArtifactBody; caller?: Caller; code: string }[] = [
      { name: 'anonymous', world: { role: null, record: null }, caller: anonymous, code: 'unauthenticated' },
      {
        name: 'a dead credential',
        world: { role: 'owner', record: { ...apiKey(everyScope), revokedAt: new Date(0) } },
        code: 'invalid_token',
      },
      { name: 'not a member', world: { role: null, record: apiKey(everyScope) }, code: 'not_found' },
      { name: 'no create scope', world: { role: 'owner', record: apiKey(['artifacts:read']) }, code: 'insufficient_scope' },
      {
        name: 'setting access without its scope',
        world: { role: 'owner', record: apiKey(['artifacts:create']) },
        code: 'insufficient_scope',
      },
      { name: 'setting access as a member', world: { role: 'member', record: apiKey(everyScope) }, code: 'forbidden' },
      { name: 'no such project', world: { ...owner, project: false }, code: 'not_found' },
      { name: 'content over the limit', world: owner, input: { ...body, content: 'x'.repeat(65) }, code: 'payload_too_large' },
      {
        name: 'a repeated viewer email',
        world: owner,
        input: { ...body, access: { ...body.access, viewerEmails: ['a@x.io', 'A@x.io'] } },
        code: 'validation_failed',
      },
      { name: 'a taken slug', world: { ...owner, taken: ['plan'] }, code: 'slug_taken' },
    ]
    for (const c of cases) {
      const { real, dry, dryCalls } = await both(c.world, c.input, c.caller)
      expect(real.ok, c.name).toBe(false)
      expect(dry, c.name).toEqual(real)
      if (!dry.ok) expect(dry.error.code, c.name).toBe(c.code)
      expect(
        dryCalls.filter((call) => !reads.has(call)),
        c.name,
      ).toEqual([])
    }
  })

  it('a member creating with the default access needs no access right, for real or as a dry run', async () => {
    const member: World = { role: 'member', record: apiKey(['artifacts:create']) }
    const { real, dry } = await both(member, { ...body, access: { publicView: false, publicEdit: false } })
    expect(real.ok).toBe(true)
    expect(dry.ok && dry.value).toMatchObject({
      dryRun: true,
      wouldCreate: { access: { publicView: false, publicEdit: false, viewerEmails: [] } },
    })
  })
})

describe('free artifact slugs instead of a taken one', () => {
  it('the 409 slug_taken names up to three free slugs of the project, the title first, for the create and its dry run', async () => {
    const { real, dry } = await both({ ...owner, taken: ['plan', 'plan-2'] })
    const expected = {
      code: 'slug_taken',
      message: 'An artifact `plan` already exists in `ana/notes`.',
      meta: { suggestions: ['launch-plan', 'plan-launch', 'plan-3'] },
    }
    expect(!real.ok && real.error).toEqual(expected)
    expect(!dry.ok && dry.error).toEqual(expected)
  })

  it('skips the candidates that are taken too', async () => {
    const { dry } = await both({ ...owner, taken: ['plan', 'launch-plan', 'plan-launch', 'plan-2'] })
    expect(!dry.ok && dry.error.meta).toEqual({ suggestions: ['plan-3', 'plan-4', 'plan-5'] })
  })

  it('the availability check and the URL preview offer them when the slug is taken, and none when it is free', async () => {
    const world: World = { role: 'member', record: apiKey(['artifacts:read']), taken: ['plan', 'plan-3'] }
    const path = { owner: 'ana', projectSlug: 'notes', slug: 'plan' }
    const check = await checkArtifactSlug(depsFor(world, []), bearer, path)
    expect(check.ok && check.value).toEqual({
      ownerUsername: 'ana',
      projectSlug: 'notes',
      slug: 'plan',
      available: false,
      reason: 'taken',
      suggestions: ['plan-2', 'plan-4', 'plan-5'],
    })
    const preview = await previewArtifactUrl(depsFor(world, []), bearer, path)
    expect(preview.ok && preview.value).toMatchObject({
      url: 'https://quire.test/ana/notes/plan',
      reason: 'taken',
      suggestions: ['plan-2', 'plan-4', 'plan-5'],
    })
    const free = await checkArtifactSlug(depsFor(world, []), bearer, { ...path, slug: 'fresh' })
    expect(free.ok && free.value).toEqual({ ownerUsername: 'ana', projectSlug: 'notes', slug: 'fresh', available: true })
    const invalid = await checkArtifactSlug(depsFor(world, []), bearer, { ...path, slug: 'Not_Valid' })
    expect(invalid.ok && invalid.value).toEqual({
      ownerUsername: 'ana',
      projectSlug: 'notes',
      slug: 'Not_Valid',
      available: false,
      reason: 'invalid',
    })
  })
})
