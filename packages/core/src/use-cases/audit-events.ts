import type { AuditEvent, AuditQuery, AuditTrailPage } from '../contract/schemas/audit.ts'
import type { AuditEventDraft } from '../domain/audit.ts'
import { retentionAt } from '../domain/plans.ts'
import type { Caller } from '../domain/principal.ts'
import { ok, type Result } from '../domain/result.ts'
import type { ArtifactContext, ArtifactRecord } from '../ports/records.ts'
import { admitAccount } from './access.ts'
import { type AdmittedArtifact, admitEvenDeleted } from './artifact-gate.ts'
import type { CoreDeps } from './deps.ts'
import { pageOfIds } from './paging.ts'

export function presentAuditEvent(event: AuditEventDraft): AuditEvent {
  return {
    id: event.id,
    at: event.at.toISOString(),
    action: event.action,
    actor: event.actor,
    via: { surface: event.via.surface, credential: event.via.credential, credentialId: event.via.credentialId },
    workspaceId: event.workspaceId,
    artifactId: event.artifactId,
    data: { ...event.data },
  }
}

/**
 * The gate for an artifact's trail: a live artifact's is its workspace members' (`audit.read`); a
 * soft-deleted one's, its owners' and admins' (`admitEvenDeleted`).
 */
function admitTrail(deps: CoreDeps, caller: Caller, ctx: ArtifactContext): Result<AdmittedArtifact<ArtifactRecord>> {
  return admitEvenDeleted(deps, caller, ctx, 'audit.read')
}

/**
 * Audit events, newest first. With `artifactId`, the artifact's events, for members of its
 * workspace (they may not know a private artifact exists otherwise: 404); once it is deleted, for
 * its owners and admins only, and the page says it is deleted (`deletedArtifact`). Without it, the
 * caller's account-level events: what the caller did, and what happened in their personal workspace.
 * Events older than their workspace plan's retention are never returned; `action` keeps one kind.
 */
export async function listAuditEvents(deps: CoreDeps, caller: Caller, query: AuditQuery): Promise<Result<AuditTrailPage>> {
  if (query.artifactId !== undefined) {
    const ctx = await deps.artifacts.loadForCaller({
      credential: caller.credential,
      target: { id: query.artifactId },
      includeDeleted: true,
    })
    const admitted = admitTrail(deps, caller, ctx)
    if (!admitted.ok) return admitted
    const { artifact } = admitted.value
    const retention = retentionAt(deps.clock.now())
    const page = await pageOfIds(
      query,
      'evt',
      (p) => deps.audit.listForArtifact(artifact.id, p, retention, query.action),
      presentAuditEvent,
    )
    if (!page.ok || artifact.deletedAt === null) return page
    return ok({ ...page.value, deletedArtifact: { id: artifact.id, deletedAt: artifact.deletedAt.toISOString() } })
  }
  const account = await admitAccount(deps, caller, 'audit.read')
  if (!account.ok) return account
  const retention = retentionAt(deps.clock.now())
  return pageOfIds(
    query,
    'evt',
    (page) => deps.audit.listForAccount(account.value.userId, page, retention, query.action),
    presentAuditEvent,
  )
}
