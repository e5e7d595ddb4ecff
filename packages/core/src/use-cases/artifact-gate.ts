import type { Action } from '../contract/actions.ts'
import type { DiffWithheld } from '../contract/schemas/version.ts'
import { unseen } from '../domain/hidden.ts'
import type { Grant, Resource, Role } from '../domain/policy.ts'
import { type Caller, type Principal, userOf } from '../domain/principal.ts'
import { type Failure, fail, ok, type Result } from '../domain/result.ts'
import type { WorkspaceContext } from '../ports/accounts.ts'
import type { ArtifactAccess, ArtifactContext, ArtifactRecord, NamespaceContext, WorkspaceRecord } from '../ports/records.ts'
import type { WriteGuard } from '../ports/stores.ts'
import { authorize, principalOf } from './access.ts'
import type { CoreDeps } from './deps.ts'
import { type HandOffPlace, withHandOff } from './hand-off.ts'

const account: HandOffPlace = { kind: 'account' }

export function artifactResource(artifact: ArtifactAccess, role: Role | null): Resource {
  return {
    type: 'artifact',
    id: artifact.id,
    workspaceId: artifact.workspaceId,
    role,
    publicView: artifact.publicView,
    publicEdit: artifact.publicEdit,
    viewerEmails: artifact.viewerEmails,
  }
}

export function workspaceResource(workspace: WorkspaceRecord, role: Role | null): Resource {
  return { type: 'workspace', id: workspace.id, role }
}

export interface AdmittedArtifact<A extends ArtifactAccess> {
  readonly principal: Principal
  readonly artifact: A
  readonly grant: Grant
}

/**
 * What a call's answer or effect also gives (its row's `alsoNeeds`, or what its input adds): the
 * actions the caller must be allowed too, and why, in words the refusal starts with.
 */
export interface AlsoNeeded {
  readonly actions: readonly Action[]
  readonly because: string
}

/** A call whose answer and effect give nothing beyond its own action. */
const nothingElse: AlsoNeeded = { actions: [], because: '' }

/**
 * The gate for artifact-scoped calls: an invalid credential is a 401 whatever the artifact;
 * a missing (or deleted) artifact is a 404; then the policy decides the call's action (whose grant
 * guards the write) and, on the same facts, each action the call also needs: the first refusal is
 * the answer, in the policy's words after the reason.
 */
export function admitArtifact<A extends ArtifactAccess>(
  deps: CoreDeps,
  caller: Caller,
  ctx: ArtifactContext<A>,
  action: Action,
  also: AlsoNeeded = nothingElse,
): Result<AdmittedArtifact<A>> {
  const principal = principalOf(deps, caller, ctx.credential)
  if (!principal.ok) return principal
  if (ctx.artifact === null) return fail('not_found', unseen.artifact)
  const resource = artifactResource(ctx.artifact, ctx.role)
  const allowed = authorize(deps, principal.value, action, resource)
  if (!allowed.ok) return refused(deps, principal.value, allowed.error, action, placeOf(ctx.artifact))
  const too = allowedToo(deps, principal.value, resource, also)
  if (!too.ok) return refused(deps, principal.value, too.error, action, placeOf(ctx.artifact))
  return ok({ principal: principal.value, artifact: ctx.artifact, grant: allowed.value })
}

/**
 * The gate for what stays readable of a soft-deleted artifact (its audit trail, the events of its
 * life). A live artifact is `admitArtifact`'s. A deleted one still exists for those who could
 * delete it, its workspace's owners and admins: the policy's `artifact.delete` decision says who
 * they are, by role (a key of theirs that lacks `artifacts:delete` is still theirs, and is refused
 * further on only if it lacks the scope `action` needs, as before the deletion). To everyone else a
 * deleted artifact is the 404 of one that never existed.
 */
export function admitEvenDeleted(
  deps: CoreDeps,
  caller: Caller,
  ctx: ArtifactContext,
  action: Action,
): Result<AdmittedArtifact<ArtifactRecord>> {
  const artifact = ctx.artifact
  if (artifact !== null && artifact.deletedAt !== null) {
    const principal = principalOf(deps, caller, ctx.credential)
    if (!principal.ok) return principal
    const hidden = deletedHidden(deps, principal.value, artifact, ctx.role)
    if (hidden !== null) return hidden
  }
  return admitArtifact(deps, caller, ctx, action)
}

/** A deleted artifact is the 404 of one that never existed, but to those who could delete it. */
function deletedHidden(
  deps: Pick<CoreDeps, 'policy'>,
  principal: Principal,
  artifact: ArtifactRecord,
  role: Role | null,
): Result<never> | null {
  const couldDelete = deps.policy.decide(principal, 'artifact.delete', artifactResource(artifact, role))
  if (couldDelete.allow || couldDelete.code === 'insufficient_scope') return null
  return fail('not_found', unseen.artifact, { reason: `the artifact is deleted and the caller could not delete it: ${couldDelete.reason}` })
}

/**
 * The same rule for a principal with no credential to load (a webhook's owner, put to the policy
 * as the person with every scope): whether it may do `action` on the artifact as it is now.
 */
export function mayReadEvenDeleted(
  deps: Pick<CoreDeps, 'policy'>,
  principal: Principal,
  artifact: ArtifactRecord,
  role: Role | null,
  action: Action,
): Result<true> {
  if (artifact.deletedAt !== null) {
    const hidden = deletedHidden(deps, principal, artifact, role)
    if (hidden !== null) return hidden
  }
  const decided = deps.policy.decide(principal, action, artifactResource(artifact, role))
  return decided.allow ? ok(true) : fail(decided.code, decided.reason)
}

/** Where an artifact lives, for a hand-off page (only a full record has its names). */
function placeOf(artifact: ArtifactAccess | ArtifactRecord): HandOffPlace {
  return 'ownerSlug' in artifact
    ? { kind: 'artifact', owner: artifact.ownerSlug, project: artifact.projectSlug, slug: artifact.slug }
    : account
}

/** A refusal as the caller gets it: an agent's missing scope with what it can do next. */
function refused(deps: CoreDeps, principal: Principal, failure: Failure, action: Action, place: HandOffPlace): Result<never> {
  return { ok: false, error: withHandOff(deps.config, principal, failure, action, place) }
}

/**
 * Asks the one policy for each action a call also needs, on the facts it was admitted on (the
 * artifact as loaded, the caller's role): the first refusal, the policy's code and scope after the
 * words saying why the call needs it.
 */
export function allowedToo(deps: CoreDeps, principal: Principal, resource: Resource, also: AlsoNeeded): Result<true> {
  for (const further of also.actions) {
    const too = authorize(deps, principal, further, resource)
    if (!too.ok) return { ok: false, error: { ...too.error, message: `${also.because} ${too.error.message}` } }
  }
  return ok(true)
}

/**
 * What a write may show of an artifact's content (a diff, a preview, the change a conflict
 * missed): only what reading it would. Null when the caller may read the content; else the words
 * the answer carries instead. The one policy decides, on the facts the write was admitted on.
 */
export function contentWithheld(deps: CoreDeps, principal: Principal, artifact: ArtifactAccess, role: Role | null): DiffWithheld | null {
  const read = authorize(deps, principal, 'artifact.read', artifactResource(artifact, role))
  if (read.ok) return null
  const { scope } = read.error
  return scope
    ? { detail: `The diff shows the artifact's content, which this credential may not read: it needs ${scope}.`, scope }
    : { detail: "The diff shows the artifact's content, which you may not read." }
}

export interface AdmittedNamespace {
  readonly principal: Principal
  readonly workspace: WorkspaceRecord
  /** What the caller's role there grants: a write re-checks it. */
  readonly grant: Grant
}

/** The gate for namespace-scoped calls (projects, slug checks). */
export function admitNamespace(deps: CoreDeps, caller: Caller, ctx: NamespaceContext, action: Action): Result<AdmittedNamespace> {
  const principal = principalOf(deps, caller, ctx.credential)
  if (!principal.ok) return principal
  // A namespace that does not exist is one the caller has no relation to: the policy answers
  // (401 for anonymous callers, 404 for everyone else), so existence never leaks.
  const resource: Resource = ctx.workspace ? workspaceResource(ctx.workspace, ctx.role) : { type: 'workspace', id: '', role: null }
  const allowed = authorize(deps, principal.value, action, resource)
  if (!allowed.ok)
    return allowed.error.code === 'not_found'
      ? fail('not_found', unseen.namespace)
      : refused(deps, principal.value, allowed.error, action, account)
  if (ctx.workspace === null) return fail('not_found', unseen.namespace)
  return ok({ principal: principal.value, workspace: ctx.workspace, grant: allowed.value })
}

/** The gate for calls on a workspace by id: non-members (and ids that name nothing) get a 404. */
export function admitWorkspace(deps: CoreDeps, caller: Caller, ctx: WorkspaceContext, action: Action): Result<AdmittedNamespace> {
  const principal = principalOf(deps, caller, ctx.credential)
  if (!principal.ok) return principal
  const resource: Resource = ctx.workspace ? workspaceResource(ctx.workspace, ctx.role) : { type: 'workspace', id: '', role: null }
  const allowed = authorize(deps, principal.value, action, resource)
  if (!allowed.ok)
    return allowed.error.code === 'not_found'
      ? fail('not_found', unseen.workspace)
      : refused(deps, principal.value, allowed.error, action, { kind: 'workspace', id: ctx.workspace?.id ?? '' })
  if (ctx.workspace === null) return fail('not_found', unseen.workspace)
  return ok({ principal: principal.value, workspace: ctx.workspace, grant: allowed.value })
}

/** What a write re-checks in the database: the credential is still live and the grant still holds. */
export function guardOf(principal: Principal, grant: Grant, at: Date): WriteGuard {
  const user = userOf(principal)
  return { credentialId: principal.kind === 'anonymous' ? null : principal.credentialId, userId: user?.id ?? null, grant, at }
}
