/**
 * `requestScope`: the stores as one web request sees them. Each fact a use-case admits its caller
 * on (a credential, an artifact by path or id, a version of it, a namespace, a workspace) is
 * loaded once per request; every call that may change a fact forgets all of it. The stores here
 * count the calls that reach them; the web app's page tests run the same scope against the
 * database.
 */
import { describe, expect, it } from 'vitest'
import { type ArtifactContext, type ContentRecord, type CoreDeps, type PresentedCredential, requestScope } from '../src/index.ts'
import { artifact, credential } from './fixtures.ts'

const record = credential('ana@example.com')

const ana: PresentedCredential = { secretHash: 'a'.repeat(64), sessionCookie: true }
const bob: PresentedCredential = { secretHash: 'b'.repeat(64) }
const byPath = { owner: 'ana', projectSlug: 'notes', slug: 'plan' }

function content(number: number): ContentRecord {
  return {
    artifactId: artifact.id,
    number,
    sha256: String(number).repeat(64).slice(0, 64),
    size: 5,
    changelog: '',
    restoredFrom: null,
    createdAt: artifact.createdAt,
    createdBy: artifact.createdBy,
    body: `v${number}`,
  } as ContentRecord
}

/** Stores that answer from the records above and count every call that reaches them, by method. */
function countingStores(options: { failLoads?: number; slowLoads?: boolean } = {}) {
  const calls: string[] = []
  let failures = options.failLoads ?? 0
  const count = (name: string) => calls.push(name)
  /** Counts the call, then answers `value`. */
  const counted = <T>(name: string, value: T): T => {
    count(name)
    return value
  }
  const deps = {
    credentials: {
      find: async (_credential: PresentedCredential) => counted('credentials.find', record),
      touch: () => count('credentials.touch'),
      rejected: () => count('credentials.rejected'),
    },
    artifacts: {
      loadForCaller: async (query: { target: { id: string } | typeof byPath }): Promise<ArtifactContext> => {
        count('artifacts.loadForCaller')
        if (options.slowLoads) await new Promise((resolve) => setTimeout(resolve, 5))
        if (failures > 0) {
          failures -= 1
          throw new Error('connection lost')
        }
        const found = 'id' in query.target ? query.target.id === artifact.id : query.target.slug === artifact.slug
        return { credential: record, artifact: found ? artifact : null, role: 'owner' }
      },
      loadVersionForCaller: async () => {
        count('artifacts.loadVersionForCaller')
        throw new Error('the scope answers version loads from the artifact it loaded')
      },
      loadContentForCaller: async () => {
        count('artifacts.loadContentForCaller')
        throw new Error('the scope answers content loads from the artifact it loaded')
      },
      contents: async (_id: string, numbers: readonly number[]) => counted('artifacts.contents', numbers.map(content)),
      listVersions: async () => counted('artifacts.listVersions', []),
      append: async () => counted('artifacts.append', { ok: true }),
    },
    projects: {
      loadNamespaceForCaller: async () =>
        counted('projects.loadNamespaceForCaller', { credential: record, workspace: null, role: null, project: null }),
    },
    workspaces: {
      loadForCaller: async () => counted('workspaces.loadForCaller', { credential: record, workspace: null, role: null }),
      listForUser: async () => counted('workspaces.listForUser', []),
    },
    shareLinks: {
      create: async () => counted('shareLinks.create', { ok: true }),
    },
    config: { webUrl: 'https://quire.test' },
  }
  return { deps: deps as unknown as CoreDeps, calls }
}

describe('requestScope', () => {
  it('looks a credential up once per request, by hash and by how it was presented', async () => {
    const { deps, calls } = countingStores()
    const scope = requestScope(deps)
    await Promise.all([scope.credentials.find(ana), scope.credentials.find(ana), scope.credentials.find({ ...ana })])
    await scope.credentials.find(bob)
    // A session secret sent as a bearer token is another presentation: the store is asked again.
    await scope.credentials.find({ secretHash: ana.secretHash })
    expect(calls).toEqual(['credentials.find', 'credentials.find', 'credentials.find'])
  })

  it('loads an artifact once: by path, then by id, then a version and its content from the same load', async () => {
    const { deps, calls } = countingStores()
    const scope = requestScope(deps)
    const first = await scope.artifacts.loadForCaller({ credential: ana, target: byPath })
    const again = await scope.artifacts.loadForCaller({ credential: ana, target: { id: artifact.id } })
    expect(again).toBe(first)

    const head = await scope.artifacts.loadVersionForCaller({ credential: ana, artifactId: artifact.id })
    expect(head.version).toBeNull()
    // A version read carries the access facts only, as the store's own version read does.
    expect(head.artifact).toEqual({
      id: artifact.id,
      workspaceId: artifact.workspaceId,
      type: 'md',
      publicView: false,
      publicEdit: false,
      viewerEmails: artifact.viewerEmails,
      latestVersion: 3,
    })
    expect(head.role).toBe('owner')
    expect(head.credential).toBe(record)

    const pinned = await scope.artifacts.loadVersionForCaller({ credential: ana, artifactId: artifact.id, version: 2 })
    expect(pinned.version).toMatchObject({ number: 2 })
    expect(pinned.version).not.toHaveProperty('body')
    const latest = await scope.artifacts.loadContentForCaller({ credential: ana, artifactId: artifact.id, version: 'latest' })
    expect(latest.version).toMatchObject({ number: 3, body: 'v3' })
    const beyond = await scope.artifacts.loadContentForCaller({ credential: ana, artifactId: artifact.id, version: 4 })
    expect(beyond.version).toBeNull()

    expect(calls).toEqual(['artifacts.loadForCaller', 'artifacts.contents', 'artifacts.contents'])
  })

  it('keeps what each credential loaded apart', async () => {
    const { deps, calls } = countingStores()
    const scope = requestScope(deps)
    await scope.artifacts.loadForCaller({ credential: ana, target: byPath })
    await scope.artifacts.loadForCaller({ credential: bob, target: { id: artifact.id } })
    await scope.artifacts.loadForCaller({ credential: null, target: { id: artifact.id } })
    expect(calls).toEqual(['artifacts.loadForCaller', 'artifacts.loadForCaller', 'artifacts.loadForCaller'])
  })

  it('asks the store again for a path that found nothing by id, and for a deleted artifact every time', async () => {
    const { deps, calls } = countingStores()
    const scope = requestScope(deps)
    const missing = await scope.artifacts.loadForCaller({ credential: ana, target: { ...byPath, slug: 'gone' } })
    expect(missing.artifact).toBeNull()
    await scope.artifacts.loadForCaller({ credential: ana, target: { id: artifact.id } })
    await scope.artifacts.loadForCaller({ credential: ana, target: { id: artifact.id }, includeDeleted: true })
    await scope.artifacts.loadForCaller({ credential: ana, target: { id: artifact.id }, includeDeleted: true })
    expect(calls).toEqual(['artifacts.loadForCaller', 'artifacts.loadForCaller', 'artifacts.loadForCaller', 'artifacts.loadForCaller'])
  })

  it('forgets everything at a write, of any store, and keeps it across reads', async () => {
    const { deps, calls } = countingStores()
    const scope = requestScope(deps)
    await scope.credentials.find(ana)
    await scope.artifacts.loadForCaller({ credential: ana, target: byPath })
    await scope.workspaces.loadForCaller({ credential: ana, workspaceId: artifact.workspaceId })
    // Reads that change nothing keep what was loaded.
    await scope.artifacts.listVersions(artifact.id, { limit: 10, after: null })
    await scope.workspaces.listForUser('usr_01jc0000000000000000000001', { limit: 10, after: null })
    scope.credentials.touch('crd_01jc0000000000000000000001', new Date())
    await scope.credentials.find(ana)
    await scope.artifacts.loadForCaller({ credential: ana, target: { id: artifact.id } })
    expect(calls.filter((c) => c.startsWith('credentials.find') || c.endsWith('ForCaller'))).toEqual([
      'credentials.find',
      'artifacts.loadForCaller',
      'workspaces.loadForCaller',
    ])

    calls.length = 0
    await (scope.artifacts.append as unknown as () => Promise<unknown>)()
    await scope.artifacts.loadForCaller({ credential: ana, target: { id: artifact.id } })
    await scope.credentials.find(ana)
    // A store method the scope does not name as a read (here a share link's creation) forgets too.
    await (scope.shareLinks.create as unknown as () => Promise<unknown>)()
    await scope.artifacts.loadForCaller({ credential: ana, target: { id: artifact.id } })
    await scope.workspaces.loadForCaller({ credential: ana, workspaceId: artifact.workspaceId })
    expect(calls).toEqual([
      'artifacts.append',
      'artifacts.loadForCaller',
      'credentials.find',
      'shareLinks.create',
      'artifacts.loadForCaller',
      'workspaces.loadForCaller',
    ])
  })

  it('a load that a write overtakes files nothing after it', async () => {
    // The load answers after the write has finished (and forgotten all): its answer is not kept.
    const { deps, calls } = countingStores({ slowLoads: true })
    const scope = requestScope(deps)
    const loading = scope.artifacts.loadForCaller({ credential: ana, target: byPath })
    const writing = (scope.artifacts.append as unknown as () => Promise<unknown>)()
    await Promise.all([loading, writing])
    await scope.artifacts.loadForCaller({ credential: ana, target: { id: artifact.id } })
    await scope.artifacts.loadForCaller({ credential: ana, target: byPath })
    expect(calls).toEqual(['artifacts.loadForCaller', 'artifacts.append', 'artifacts.loadForCaller', 'artifacts.loadForCaller'])
  })

  it('does not keep a load that failed', async () => {
    const { deps, calls } = countingStores({ failLoads: 1 })
    const scope = requestScope(deps)
    await expect(scope.artifacts.loadForCaller({ credential: ana, target: byPath })).rejects.toThrow('connection lost')
    const retried = await scope.artifacts.loadForCaller({ credential: ana, target: byPath })
    expect(retried.artifact?.id).toBe(artifact.id)
    expect(calls).toEqual(['artifacts.loadForCaller', 'artifacts.loadForCaller'])
  })

  it('belongs to one request: another scope loads for itself, and the stores themselves keep nothing', async () => {
    const { deps, calls } = countingStores()
    await requestScope(deps).artifacts.loadForCaller({ credential: ana, target: byPath })
    await requestScope(deps).artifacts.loadForCaller({ credential: ana, target: byPath })
    await deps.artifacts.loadForCaller({ credential: ana, target: byPath })
    expect(calls).toEqual(['artifacts.loadForCaller', 'artifacts.loadForCaller', 'artifacts.loadForCaller'])
  })
})
