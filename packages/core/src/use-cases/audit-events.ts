import type { AuditEvent, AuditQuery } from '../contract/schemas/audit.ts'
import type { PageOf } from '../contract/schemas/common.ts'
import type { AuditEventDraft } from '../domain/audit.ts'
import { retentionAt } from '../domain/plans.ts'
import type { Caller } from '../domain/principal.ts'
import type { Result } from '../domain/result.ts'
import { admitAccount } from './access.ts'
import { admitArtifact } from './artifact-gate.ts'
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
 * Audit events, newest first. With `artifactId`, the artifact's events, for members of its
 * workspace (they may not know a private artifact exists otherwise: 404). Without it, the
 * caller's account-level events: what the caller did, and what happened in their personal workspace.
 * Events older than their workspace plan's retention are never returned; `action` keeps one kind.
 */
export async function listAuditEvents(deps: CoreDeps, caller: Caller, query: AuditQuery): Promise<Result<PageOf<AuditEvent>>> {
  if (query.artifactId !== undefined) {
    const ctx = await deps.artifacts.loadForCaller({ credential: caller.credential, target: { id: query.artifactId } })
    const admitted = admitArtifact(deps, caller, ctx, 'audit.read')
    if (!admitted.ok) return admitted
    const artifactId = admitted.value.artifact.id
    const retention = retentionAt(deps.clock.now())
    return pageOfIds(query, 'evt', (page) => deps.audit.listForArtifact(artifactId, page, retention, query.action), presentAuditEvent)
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
