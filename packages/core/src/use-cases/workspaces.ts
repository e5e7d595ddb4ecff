import type { Artifact } from '../contract/schemas/artifact.ts'
import type { AuditEvent, WorkspaceAuditQuery } from '../contract/schemas/audit.ts'
import type { PageOf, PageQuery } from '../contract/schemas/common.ts'
import type { Project } from '../contract/schemas/project.ts'
import type { CreateWorkspaceBody, Member, Workspace } from '../contract/schemas/workspace.ts'
import { actorOf, viaOf } from '../domain/audit.ts'
import { retentionAt } from '../domain/plans.ts'
import type { Caller } from '../domain/principal.ts'
import { fail, ok, type Result } from '../domain/result.ts'
import { slugProblem } from '../domain/rules.ts'
import type { MembershipRecord, WorkspaceSummary } from '../ports/records.ts'
import { admitAccount } from './access.ts'
import { admitWorkspace } from './artifact-gate.ts'
import { presentAuditEvent } from './audit-events.ts'
import type { CoreDeps } from './deps.ts'
import { idempotencyDraft, planIdempotency, replay, replayAfterRace, type Written } from './idempotency.ts'
import { idKey, pageOfIds, pageRequest, toPage } from './paging.ts'
import { presentArtifact, presentProject } from './present.ts'

export function presentWorkspace(record: WorkspaceSummary): Workspace {
  return {
    id: record.id,
    slug: record.slug,
    name: record.name,
    kind: record.kind,
    plan: record.plan,
    role: record.role,
    createdAt: record.createdAt.toISOString(),
  }
}

function presentMember(record: MembershipRecord): Member {
  return {
    userId: record.userId,
    username: record.username,
    email: record.email,
    role: record.role,
    joinedAt: record.joinedAt.toISOString(),
  }
}

/** The workspaces the caller belongs to, with the caller's role in each. */
export async function listWorkspaces(deps: CoreDeps, caller: Caller, query: PageQuery): Promise<Result<PageOf<Workspace>>> {
  const account = await admitAccount(deps, caller, 'workspace.read')
  if (!account.ok) return account
  return pageOfIds(query, 'ws', (page) => deps.workspaces.listForUser(account.value.userId, page), presentWorkspace)
}

/** Creates a team workspace owned by the caller. Its slug shares one namespace with usernames. */
export async function createWorkspace(
  deps: CoreDeps,
  caller: Caller,
  body: CreateWorkspaceBody,
  idempotencyKey?: string,
): Promise<Result<Written<Workspace>>> {
  const account = await admitAccount(deps, caller, 'workspace.create')
  if (!account.ok) return account
  const { principal, userId } = account.value
  const problem = slugProblem(body.slug, 'owner')
  if (problem) {
    return fail('validation_failed', `The workspace slug \`${body.slug}\` is ${problem}.`, {
      errors: [{ path: '/body/slug', message: `is ${problem}` }],
    })
  }
  const plan = await planIdempotency(deps, principal, idempotencyKey, 'createWorkspace', body)
  const earlier = await replay<Workspace>(deps, plan)
  if (earlier) return earlier

  const at = deps.clock.now()
  const workspace = { id: deps.ids.next('ws'), slug: body.slug, name: body.name, createdAt: at }
  const presented = presentWorkspace({ ...workspace, kind: 'team', plan: 'free', role: 'owner' })
  const outcome = await deps.workspaces.create({
    workspace,
    ownerId: userId,
    guard: { credentialId: principal.kind === 'anonymous' ? null : principal.credentialId, at },
    audit: {
      id: deps.ids.next('evt'),
      at,
      action: 'workspace.created',
      actor: actorOf(principal),
      via: viaOf(principal, caller),
      workspaceId: workspace.id,
      artifactId: null,
      data: { workspaceId: workspace.id, slug: workspace.slug, name: workspace.name },
    },
    idempotency: idempotencyDraft(plan, 201, presented, at),
  })
  if (outcome.ok) return ok({ value: presented, replayed: false })
  if (outcome.reason === 'idempotency_taken') return replayAfterRace<Workspace>(deps, plan)
  if (outcome.reason === 'slug_taken') return fail('slug_taken', `The name \`${body.slug}\` is taken by a user or workspace.`)
  return fail('forbidden', 'Your credential changed while creating the workspace; nothing was written.')
}

/** A workspace's members (any member may see who else is in). */
export async function listWorkspaceMembers(
  deps: CoreDeps,
  caller: Caller,
  workspaceId: string,
  query: PageQuery,
): Promise<Result<PageOf<Member>>> {
  const ctx = await deps.workspaces.loadForCaller({ credential: caller.credential, workspaceId })
  const admitted = admitWorkspace(deps, caller, ctx, 'workspace.members.read')
  if (!admitted.ok) return admitted
  const page = pageRequest(query, idKey('usr'))
  if (!page.ok) return page
  const rows = await deps.workspaces.listMembers(admitted.value.workspace.id, page.value)
  return ok(toPage(rows, page.value, (r) => r.userId, presentMember))
}

/** A workspace's projects, newest first. */
export async function listWorkspaceProjects(
  deps: CoreDeps,
  caller: Caller,
  workspaceId: string,
  query: PageQuery,
): Promise<Result<PageOf<Project>>> {
  const ctx = await deps.workspaces.loadForCaller({ credential: caller.credential, workspaceId })
  const admitted = admitWorkspace(deps, caller, ctx, 'project.read')
  if (!admitted.ok) return admitted
  return pageOfIds(
    query,
    'prj',
    (page) => deps.projects.listForWorkspace(admitted.value.workspace.id, page),
    (r) => presentProject(r, deps.config.webUrl),
  )
}

/** The artifacts (not deleted) of a workspace's projects, newest first. */
export async function listWorkspaceArtifacts(
  deps: CoreDeps,
  caller: Caller,
  workspaceId: string,
  query: PageQuery,
): Promise<Result<PageOf<Artifact>>> {
  const ctx = await deps.workspaces.loadForCaller({ credential: caller.credential, workspaceId })
  const admitted = admitWorkspace(deps, caller, ctx, 'artifact.read')
  if (!admitted.ok) return admitted
  return pageOfIds(
    query,
    'art',
    (page) => deps.artifacts.listForWorkspace({ workspaceId: admitted.value.workspace.id }, page),
    (r) => presentArtifact(r, deps.config.webUrl),
  )
}

/** A workspace's audit events, newest first, within its plan's retention (one kind only, with `action`). */
export async function listWorkspaceAuditEvents(
  deps: CoreDeps,
  caller: Caller,
  workspaceId: string,
  query: WorkspaceAuditQuery,
): Promise<Result<PageOf<AuditEvent>>> {
  const ctx = await deps.workspaces.loadForCaller({ credential: caller.credential, workspaceId })
  const admitted = admitWorkspace(deps, caller, ctx, 'audit.read')
  if (!admitted.ok) return admitted
  const retention = retentionAt(deps.clock.now())
  return pageOfIds(
    query,
    'evt',
    (page) => deps.audit.listForWorkspace(admitted.value.workspace.id, page, retention, query.action),
    presentAuditEvent,
  )
}
