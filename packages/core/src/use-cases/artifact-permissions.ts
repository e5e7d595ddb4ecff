import type { Action } from '../contract/actions.ts'
import type { Artifact } from '../contract/schemas/artifact.ts'
import type { Resource } from '../domain/policy.ts'
import type { Caller, Principal } from '../domain/principal.ts'
import type { Failure, Result } from '../domain/result.ts'
import { ok } from '../domain/result.ts'
import type { ArtifactTarget } from '../ports/stores.ts'
import { authorize } from './access.ts'
import { admitArtifact, artifactResource } from './artifact-gate.ts'
import type { CoreDeps } from './deps.ts'
import { presentArtifact } from './present.ts'

/** What may be done to an artifact beyond reading it: the actions an owner's controls start. */
export const artifactPermissionActions = [
  'artifact.update',
  'artifact.delete',
  'artifact.share',
  'artifact.access.read',
  'artifact.access.write',
  'audit.read',
] as const

export type ArtifactPermissionAction = (typeof artifactPermissionActions)[number]

/** An artifact the caller may read, and what else the caller may do with it now. */
export interface ArtifactPermissions {
  readonly artifact: Artifact
  /** Whether the caller may take each action (the answer the action's own operation would get). */
  readonly may: Readonly<Record<ArtifactPermissionAction, boolean>>
  /** For each action the caller may not take, the failure its operation answers with (403, 404…). */
  readonly refusals: Readonly<Partial<Record<ArtifactPermissionAction, Failure>>>
}

/**
 * Reads an artifact (as `getArtifact` does: the same refusal when the caller may not read it) and
 * asks the one policy, on the same facts, about every other action. A page shows an owner's
 * controls from this, so the web app holds no rule of its own about who may edit, share or delete;
 * the operation behind each control still decides again when it runs.
 */
export async function getArtifactPermissions(deps: CoreDeps, caller: Caller, target: ArtifactTarget): Promise<Result<ArtifactPermissions>> {
  const ctx = await deps.artifacts.loadForCaller({ credential: caller.credential, target })
  const admitted = admitArtifact(deps, caller, ctx, 'artifact.read')
  if (!admitted.ok) return admitted
  const { principal, artifact } = admitted.value
  const answers = permissionsOn(deps, principal, artifactPermissionActions, artifactResource(artifact, ctx.role))
  return ok({ artifact: presentArtifact(artifact, deps.config.webUrl), ...answers })
}

/**
 * The one policy asked about each of `actions` on one resource: whether the caller may take it,
 * and for each it may not, the failure its operation answers with. The pages' controls (an
 * artifact's, a namespace's) are drawn from this.
 */
export function permissionsOn<A extends Action>(
  deps: CoreDeps,
  principal: Principal,
  actions: readonly A[],
  resource: Resource,
): { may: Record<A, boolean>; refusals: Partial<Record<A, Failure>> } {
  const may = {} as Record<A, boolean>
  const refusals: Partial<Record<A, Failure>> = {}
  for (const action of actions) {
    const allowed = authorize(deps, principal, action, resource)
    may[action] = allowed.ok
    if (!allowed.ok) refusals[action] = allowed.error
  }
  return { may, refusals }
}
