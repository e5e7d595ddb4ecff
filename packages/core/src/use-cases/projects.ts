import type { PageOf, PageQuery } from '../contract/schemas/common.ts'
import type { CreateProjectBody, Project, ProjectSlugAvailability } from '../contract/schemas/project.ts'
import { actorOf, viaOf } from '../domain/audit.ts'
import { unseen } from '../domain/hidden.ts'
import type { Caller } from '../domain/principal.ts'
import { fail, ok, type Result } from '../domain/result.ts'
import { slugCandidates, slugProblem, suggestSlugs } from '../domain/rules.ts'
import type { ProjectRecord } from '../ports/records.ts'
import { admitAccount } from './access.ts'
import { admitNamespace } from './artifact-gate.ts'
import type { CoreDeps } from './deps.ts'
import { idempotencyDraft, planIdempotency, replay, replayAfterRace, type Written } from './idempotency.ts'
import { pageOfIds } from './paging.ts'
import { presentProject } from './present.ts'

/** Creates a project in an owner namespace the caller may write to. */
export async function createProject(
  deps: CoreDeps,
  caller: Caller,
  body: CreateProjectBody,
  idempotencyKey?: string,
): Promise<Result<Written<Project>>> {
  const ctx = await deps.projects.loadNamespaceForCaller({ credential: caller.credential, owner: body.ownerUsername })
  const admitted = admitNamespace(deps, caller, ctx, 'project.create')
  if (!admitted.ok) return admitted
  const { principal, workspace } = admitted.value
  const problem = slugProblem(body.slug, 'project')
  if (problem) {
    const suggestions = problem === 'reserved' ? await freeProjectSlugs(deps, workspace.id, body.slug, body.title) : []
    return fail('validation_failed', `The project slug \`${body.slug}\` is ${problem}.`, {
      errors: [{ path: '/body/slug', message: `is ${problem}` }],
      ...(suggestions.length > 0 ? { meta: { suggestions } } : {}),
    })
  }
  const plan = await planIdempotency(deps, principal, idempotencyKey, 'createProject', body)
  const earlier = await replay<Project>(deps, plan)
  if (earlier) return earlier

  const at = deps.clock.now()
  const project: ProjectRecord = {
    id: deps.ids.next('prj'),
    workspaceId: workspace.id,
    ownerSlug: workspace.slug,
    slug: body.slug,
    title: body.title,
    description: body.description ?? '',
    icon: body.icon,
    createdAt: at,
    createdBy: actorOf(principal),
  }
  const presented = presentProject(project, deps.config.webUrl)
  const outcome = await deps.projects.create({
    project,
    audit: {
      id: deps.ids.next('evt'),
      at,
      action: 'project.created',
      actor: project.createdBy,
      via: viaOf(principal, caller),
      workspaceId: workspace.id,
      artifactId: null,
      data: { projectId: project.id, slug: project.slug, title: project.title },
    },
    idempotency: idempotencyDraft(plan, 201, presented, at),
  })
  if (outcome.ok) return ok({ value: presented, replayed: false })
  if (outcome.reason === 'idempotency_taken') return replayAfterRace<Project>(deps, plan)
  const suggestions = await freeProjectSlugs(deps, workspace.id, body.slug, body.title)
  return fail('slug_taken', `A project \`${body.slug}\` already exists under \`${workspace.slug}\`.`, {
    meta: { suggestions },
  })
}

/** Free project slugs to offer instead of a reserved or taken one (`slugCandidates`), each checked in the owner's namespace. */
function freeProjectSlugs(deps: CoreDeps, workspaceId: string, slug: string, title?: string): Promise<string[]> {
  return suggestSlugs(slugCandidates(slug, 'project', title), (name) => deps.projects.slugTaken(workspaceId, name))
}

/** Projects of every workspace the caller belongs to, newest first. */
export async function listMyProjects(deps: CoreDeps, caller: Caller, query: PageQuery): Promise<Result<PageOf<Project>>> {
  const account = await admitAccount(deps, caller, 'project.read')
  if (!account.ok) return account
  return pageOfIds(
    query,
    'prj',
    (page) => deps.projects.listForUser(account.value.userId, page),
    (r) => presentProject(r, deps.config.webUrl),
  )
}

/** Whether a project slug is free in an owner namespace. */
export async function checkProjectSlug(
  deps: CoreDeps,
  caller: Caller,
  path: { owner: string; slug: string },
): Promise<Result<ProjectSlugAvailability>> {
  const ctx = await deps.projects.loadNamespaceForCaller({ credential: caller.credential, owner: path.owner })
  const admitted = admitNamespace(deps, caller, ctx, 'project.read')
  if (!admitted.ok) return admitted
  const base = { ownerUsername: admitted.value.workspace.slug, slug: path.slug }
  const workspaceId = admitted.value.workspace.id
  const problem = slugProblem(path.slug, 'project')
  const reason = problem ?? ((await deps.projects.slugTaken(workspaceId, path.slug)) ? 'taken' : null)
  if (reason === null) return ok({ ...base, available: true })
  if (reason === 'invalid') return ok({ ...base, available: false, reason })
  return ok({ ...base, available: false, reason, suggestions: await freeProjectSlugs(deps, workspaceId, path.slug) })
}

/** Resolves a project from its owner and slug. */
export async function resolveProjectPath(
  deps: CoreDeps,
  caller: Caller,
  path: { owner: string; projectSlug: string },
): Promise<Result<Project>> {
  const ctx = await deps.projects.loadNamespaceForCaller({
    credential: caller.credential,
    owner: path.owner,
    projectSlug: path.projectSlug,
  })
  const admitted = admitNamespace(deps, caller, ctx, 'project.read')
  if (!admitted.ok) return admitted
  if (ctx.project === null) return fail('not_found', unseen.project)
  return ok(presentProject(ctx.project, deps.config.webUrl))
}
