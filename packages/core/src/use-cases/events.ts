import type { ChangeEvent, EventBatch, EventsQuery } from '../contract/schemas/events.ts'
import { unseen } from '../domain/hidden.ts'
import type { Caller } from '../domain/principal.ts'
import { fail, ok, type Result } from '../domain/result.ts'
import type { ChangeRecord, ChangeScope } from '../ports/changes.ts'
import type { ArtifactRecord } from '../ports/records.ts'
import type { ArtifactTarget } from '../ports/stores.ts'
import { admitEvenDeleted, admitNamespace, admitWorkspace } from './artifact-gate.ts'
import type { CoreDeps } from './deps.ts'

const DEFAULT_LIMIT = 100

/** What a transport adds to a follow: the caller going away ends the wait at once. */
export interface FollowOptions {
  readonly signal?: AbortSignal | undefined
}

const ARTIFACT_ID = /^art_[0-9a-z]{26}$/

function artifactTarget(reference: string): ArtifactTarget | null {
  if (ARTIFACT_ID.test(reference)) return { id: reference }
  const [owner, projectSlug, slug, ...rest] = reference.split('/')
  return owner && projectSlug && slug && rest.length === 0 ? { owner, projectSlug, slug } : null
}

function refused(path: string, message: string): Result<never> {
  return fail('validation_failed', message, { errors: [{ path, message }] })
}

/**
 * What the follow names, admitted as its reads are: an artifact to whoever may read it (a deleted
 * one, by id, to whoever could delete it, for its last events); a project or a workspace to its
 * members, whose every artifact they may read. Run at every call, so a follow whose credential was
 * revoked or whose access went away ends with that refusal.
 */
export async function admitFollow(
  deps: CoreDeps,
  caller: Caller,
  query: Pick<EventsQuery, 'artifact' | 'project' | 'workspace'>,
  at = '/query',
): Promise<Result<ChangeScope>> {
  // Following takes a credential: there is no one to tell when access ends, and nothing to follow anonymously that polling does not do.
  if (caller.credential === null)
    return fail('unauthenticated', 'Following changes takes a credential: send `Authorization: Bearer <token>`.')
  const named = (['artifact', 'project', 'workspace'] as const).filter((name) => query[name] !== undefined)
  if (named.length !== 1)
    return refused(at, 'Name exactly one of `artifact` (an id or owner/project/slug), `project` (owner/project) or `workspace` (an id).')
  if (query.artifact !== undefined) {
    const target = artifactTarget(query.artifact)
    if (target === null) return refused(`${at}/artifact`, 'must be an artifact id (art_…) or a path owner/project/slug')
    const ctx = await deps.artifacts.loadForCaller(
      'id' in target ? { credential: caller.credential, target, includeDeleted: true } : { credential: caller.credential, target },
    )
    const admitted = admitEvenDeleted(deps, caller, ctx, 'artifact.read')
    return admitted.ok ? ok({ artifactId: admitted.value.artifact.id }) : admitted
  }
  if (query.project !== undefined) {
    const [owner, projectSlug, ...rest] = query.project.split('/')
    if (!owner || !projectSlug || rest.length > 0) return refused(`${at}/project`, 'must be a project path owner/project')
    const ctx = await deps.projects.loadNamespaceForCaller({ credential: caller.credential, owner, projectSlug })
    const admitted = admitNamespace(deps, caller, ctx, 'artifact.read')
    if (!admitted.ok) return admitted.error.code === 'not_found' ? fail('not_found', unseen.project) : admitted
    return ctx.project === null ? fail('not_found', unseen.project) : ok({ projectId: ctx.project.id })
  }
  const ctx = await deps.workspaces.loadForCaller({ credential: caller.credential, workspaceId: query.workspace ?? '' })
  const admitted = admitWorkspace(deps, caller, ctx, 'artifact.read')
  return admitted.ok ? ok({ workspaceId: admitted.value.workspace.id }) : admitted
}

export function presentChange(change: ChangeRecord, artifact: ArtifactRecord): ChangeEvent {
  return {
    id: String(change.position),
    kind: change.kind,
    at: change.at.toISOString(),
    artifactId: change.artifactId,
    path: `${artifact.ownerSlug}/${artifact.projectSlug}/${artifact.slug}`,
    projectId: change.projectId,
    workspaceId: change.workspaceId,
    versionNumber: change.versionNumber,
    actor: change.actor,
  }
}

/**
 * Who may see an event: whoever may read its artifact now (a deleted artifact's, whoever could
 * delete it), asked of the one policy per artifact. Null when the follower may not; a refused
 * credential (revoked, expired) is the refusal of the whole call.
 */
type Visibility = (change: ChangeRecord) => Promise<Result<ChangeEvent | null>>

function visibility(deps: CoreDeps, caller: Caller): Visibility {
  const seen = new Map<string, Result<ArtifactRecord | null>>()
  return async (change) => {
    let artifact = seen.get(change.artifactId)
    if (artifact === undefined) {
      const ctx = await deps.artifacts.loadForCaller({
        credential: caller.credential,
        target: { id: change.artifactId },
        includeDeleted: true,
      })
      const admitted = admitEvenDeleted(deps, caller, ctx, 'artifact.read')
      const refusedCredential = !admitted.ok && (admitted.error.code === 'invalid_token' || admitted.error.code === 'unauthenticated')
      artifact = admitted.ok ? ok(admitted.value.artifact) : refusedCredential ? admitted : ok(null)
      seen.set(change.artifactId, artifact)
    }
    if (!artifact.ok) return artifact
    return ok(artifact.value === null ? null : presentChange(change, artifact.value))
  }
}

/**
 * The changes of an artifact, a project or a workspace after an event id, oldest first, each one
 * only if the follower may read its artifact at that moment; waiting up to `wait` seconds for a
 * first one (a long poll). Without `after`, from now on. The answer's `cursor` goes past the events
 * the follower may not see, so they are never read again.
 */
export async function listEvents(
  deps: CoreDeps,
  caller: Caller,
  query: EventsQuery,
  options: FollowOptions = {},
): Promise<Result<EventBatch>> {
  const scope = await admitFollow(deps, caller, query)
  if (!scope.ok) return scope
  const limit = query.limit ?? DEFAULT_LIMIT
  const deadline = performance.now() + (query.wait ?? 0) * 1000
  const now = await deps.changes.after(scope.value, 0, 0)
  let position = now.head
  if (query.after !== undefined) {
    position = Number(query.after)
    if (position > now.head)
      return fail('invalid_cursor', `No event ${query.after} yet: the newest is ${now.head}. Resume from an id this server gave.`)
  }
  const visible = visibility(deps, caller)
  for (;;) {
    const read = await deps.changes.after(scope.value, position, limit)
    const events: ChangeEvent[] = []
    for (const change of read.rows) {
      const event = await visible(change)
      if (!event.ok) return event
      if (event.value !== null) events.push(event.value)
    }
    const more = read.rows.length === limit
    position = read.rows.at(-1)?.position ?? Math.max(position, read.head)
    const remaining = deadline - performance.now()
    if (events.length > 0 || remaining <= 0 || options.signal?.aborted) return ok({ events, cursor: String(position), more })
    if (!more) await deps.changes.wait(scope.value, position, remaining, options.signal)
  }
}
