import type { PresentedCredential } from '../domain/principal.ts'
import type { CoreStores } from '../ports/core-stores.ts'
import type { ArtifactAccess, ArtifactContext, ArtifactRecord, ContentRecord } from '../ports/records.ts'
import type { ArtifactStore } from '../ports/stores.ts'
import type { CoreDeps } from './deps.ts'

/**
 * The stores as ONE request sees them. A web page runs several operations (the document page: what
 * the person may do, then the content; the home page: three listings), and each operation admits
 * its caller by loading the credential and the artifact, namespace or workspace it acts on. Through
 * this view each such fact is loaded once per request: a credential by its hash, an artifact by its
 * path or its id (a load by path also answers the loads by id), a version or its content from the
 * artifact already loaded (versions never change), a namespace, a workspace. Every operation still
 * runs its own `decide()` on those facts, so authorization is the REST call's by construction.
 *
 * Any call that may change a fact (every store method not listed as a read below, which includes
 * every method a store gains later) forgets all that was loaded, before and after it runs: what
 * follows a write in the same request reads afresh, and a write is guarded in its own statement
 * (the credential still live, the grant still held, the head still the one read) whatever was read
 * before it. REST and MCP run one operation per request and use the stores directly.
 */
export function requestScope(deps: CoreDeps): CoreDeps {
  const loaded = new Map<string, Promise<unknown>>()
  /** Counts what was forgotten: a load that began before a write must not file its answer after it. */
  let generation = 0
  const forget = (): void => {
    generation += 1
    loaded.clear()
  }
  /** The value loaded under `key` in this request, or what `load` answers (kept; a failure is not). */
  const once = <T>(key: string, load: () => Promise<T>): Promise<T> => {
    const known = loaded.get(key) as Promise<T> | undefined
    if (known !== undefined) return known
    const loading = load()
    loaded.set(key, loading)
    loading.catch(() => {
      if (loaded.get(key) === loading) loaded.delete(key)
    })
    return loading
  }

  const { artifacts, credentials, projects, workspaces } = deps
  const artifactById = (credential: PresentedCredential | null, id: string): Promise<ArtifactContext> =>
    once(`artifact\n${hashOf(credential)}\nid\n${id}`, () => artifacts.loadForCaller({ credential, target: { id } }))

  const loads: Loads = {
    credentials: {
      find: (credential) =>
        once(`credential\n${hashOf(credential)}\n${credential.sessionCookie === true}`, () => credentials.find(credential)),
    },
    artifacts: {
      loadForCaller: (query) => {
        if (query.includeDeleted === true) return artifacts.loadForCaller(query)
        const { credential, target } = query
        if ('id' in target) return artifactById(credential, target.id)
        return once(`artifact\n${hashOf(credential)}\npath\n${target.owner}\n${target.projectSlug}\n${target.slug}`, async () => {
          const began = generation
          const ctx = await artifacts.loadForCaller(query)
          // The same facts answer a later load of this artifact by id, in this request (unless a write came between).
          if (ctx.artifact !== null && began === generation)
            loaded.set(`artifact\n${hashOf(credential)}\nid\n${ctx.artifact.id}`, Promise.resolve(ctx))
          return ctx
        })
      },
      loadVersionForCaller: async (query) => {
        const ctx = await artifactById(query.credential, query.artifactId)
        const base = { credential: ctx.credential, artifact: ctx.artifact && accessOf(ctx.artifact), role: ctx.role }
        if (ctx.artifact === null || query.version === undefined) return { ...base, version: null }
        const content = await versionOf(artifacts, ctx.artifact, query.version)
        if (content === null) return { ...base, version: null }
        const { body: _body, ...version } = content
        return { ...base, version }
      },
      loadContentForCaller: async (query) => {
        const ctx = await artifactById(query.credential, query.artifactId)
        const base = { credential: ctx.credential, artifact: ctx.artifact && accessOf(ctx.artifact), role: ctx.role }
        if (ctx.artifact === null) return { ...base, version: null }
        return { ...base, version: await versionOf(artifacts, ctx.artifact, query.version) }
      },
    },
    projects: {
      loadNamespaceForCaller: (query) =>
        once(`namespace\n${hashOf(query.credential)}\n${query.owner}\n${query.projectSlug ?? ''}`, () =>
          projects.loadNamespaceForCaller(query),
        ),
    },
    workspaces: {
      loadForCaller: (query) => once(`workspace\n${hashOf(query.credential)}\n${query.workspaceId}`, () => workspaces.loadForCaller(query)),
    },
  }

  // One view of `deps`; a store's view is made the first time the request reaches for it.
  const stores = new Map<string, unknown>()
  return new Proxy(deps, {
    get(target, name, receiver) {
      const member = Reflect.get(target, name, receiver) as unknown
      if (typeof name !== 'string' || !Object.hasOwn(storeNames, name) || typeof member !== 'object' || member === null) return member
      let store = stores.get(name)
      if (store === undefined) {
        store = scopeStore(member, (loads as Record<string, object | undefined>)[name] ?? noLoads, readsOf[name] ?? noReads, forget)
        stores.set(name, store)
      }
      return store
    },
  })
}

const noLoads = {}
const noReads: ReadonlySet<string> = new Set()

/** The loads a request shares, by store. */
type Loads = {
  readonly credentials: Pick<CoreStores['credentials'], 'find'>
  readonly artifacts: Pick<ArtifactStore, 'loadForCaller' | 'loadVersionForCaller' | 'loadContentForCaller'>
  readonly projects: Pick<CoreStores['projects'], 'loadNamespaceForCaller'>
  readonly workspaces: Pick<CoreStores['workspaces'], 'loadForCaller'>
}

/**
 * Store methods that change nothing a load returns: they run as they are and keep what was loaded.
 * Any method not named here (or in `Loads`) forgets it.
 */
const reads: { readonly [S in keyof CoreStores]?: readonly (keyof CoreStores[S] & string)[] } = {
  // Bookkeeping in the background (last use, a refusal on the trail): no fact a load returns.
  credentials: ['touch', 'rejected'],
  artifacts: ['listForUser', 'listForWorkspace', 'listVersions', 'contents', 'slugTaken'],
  projects: ['listForUser', 'listForWorkspace', 'slugTaken'],
  workspaces: ['listForUser', 'listMembers'],
  audit: ['listForArtifact', 'listForAccount', 'listForWorkspace'],
  search: ['find'],
  // `changes` is left out on purpose: a follow reads and waits again and again, and each event is
  // put to the policy on what is loaded after it came, never on a load from before the wait.
  // The process's own memory of recent admissions; every write re-checks them in the database.
  admissions: ['get', 'remember', 'forget'],
  health: ['ping'],
}

/** The reads of each store, as sets. */
const readsOf: Readonly<Record<string, ReadonlySet<string>>> = Object.fromEntries(
  Object.entries(reads).map(([name, methods]) => [name, new Set<string>(methods)]),
)

/** Every store of `CoreStores` (a store added there must be named here: the type says so). */
const storeNames: { readonly [S in keyof CoreStores]: true } = {
  credentials: true,
  artifacts: true,
  projects: true,
  shareLinks: true,
  accounts: true,
  apiKeys: true,
  workspaces: true,
  invitations: true,
  signIn: true,
  oauth: true,
  agents: true,
  search: true,
  changes: true,
  webhooks: true,
  audit: true,
  idempotency: true,
  admissions: true,
  health: true,
}

/** One store through the scope: its shared loads, its reads as they are, anything else forgetting. */
function scopeStore<S extends object>(store: S, loads: object, pure: ReadonlySet<string>, forget: () => void): S {
  return new Proxy(store, {
    get(target, name, receiver) {
      if (typeof name === 'string' && Object.hasOwn(loads, name)) return (loads as Record<string, unknown>)[name]
      const member = Reflect.get(target, name, receiver) as unknown
      if (typeof member !== 'function') return member
      if (typeof name === 'string' && pure.has(name)) return member.bind(target)
      return async (...args: unknown[]) => {
        forget()
        try {
          return await member.apply(target, args)
        } finally {
          forget()
        }
      }
    },
  })
}

function hashOf(credential: PresentedCredential | null): string {
  return credential?.secretHash ?? '-'
}

/** What a version read knows of its artifact (`VersionContext` carries the access facts only). */
function accessOf(artifact: ArtifactRecord): ArtifactAccess {
  const { id, workspaceId, type, publicView, publicEdit, viewerEmails, latestVersion } = artifact
  return { id, workspaceId, type, publicView, publicEdit, viewerEmails, latestVersion }
}

/** A version of the artifact as loaded (`latest` is its head then), with its content; null when it has no such version. */
async function versionOf(artifacts: ArtifactStore, artifact: ArtifactAccess, version: number | 'latest'): Promise<ContentRecord | null> {
  const number = version === 'latest' ? artifact.latestVersion : version
  if (number < 1 || number > artifact.latestVersion) return null
  return (await artifacts.contents(artifact.id, [number]))[0] ?? null
}
