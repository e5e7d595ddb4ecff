import type { Artifact, ArtifactRead, ArtifactSlugAvailability, DeletedArtifact, SlugPreview } from '../contract/schemas/artifact.ts'
import type { PageOf, PageQuery } from '../contract/schemas/common.ts'
import { actorOf, viaOf } from '../domain/audit.ts'
import { unseen } from '../domain/hidden.ts'
import type { Caller } from '../domain/principal.ts'
import { fail, ok, type Result } from '../domain/result.ts'
import { slugCandidates, slugProblem, suggestSlugs } from '../domain/rules.ts'
import type { ArtifactTarget } from '../ports/stores.ts'
import { admitAccount } from './access.ts'
import { admitArtifact, admitNamespace } from './artifact-gate.ts'
import type { CoreDeps } from './deps.ts'
import { pageOfIds } from './paging.ts'
import { artifactUrl, presentArtifact } from './present.ts'
import { previewFields } from './previews.ts'

/** Reads artifact metadata, by id or by path. */
export async function getArtifact(deps: CoreDeps, caller: Caller, target: ArtifactTarget): Promise<Result<ArtifactRead>> {
  const ctx = await deps.artifacts.loadForCaller({ credential: caller.credential, target })
  const admitted = admitArtifact(deps, caller, ctx, 'artifact.read')
  if (!admitted.ok) return admitted
  const { artifact } = admitted.value
  return ok({ ...presentArtifact(artifact, deps.config.webUrl), ...(await previewFields(deps, artifact, artifact.latestVersion)) })
}

/** Artifacts of every workspace the caller belongs to, newest first. */
export async function listMyArtifacts(deps: CoreDeps, caller: Caller, query: PageQuery): Promise<Result<PageOf<Artifact>>> {
  const account = await admitAccount(deps, caller, 'artifact.read')
  if (!account.ok) return account
  return pageOfIds(
    query,
    'art',
    (page) => deps.artifacts.listForUser(account.value.userId, page),
    (r) => presentArtifact(r, deps.config.webUrl),
  )
}

/** Soft-deletes an artifact: it disappears from every read; its versions and audit stay. */
export async function deleteArtifact(deps: CoreDeps, caller: Caller, artifactId: string): Promise<Result<DeletedArtifact>> {
  const ctx = await deps.artifacts.loadForCaller({ credential: caller.credential, target: { id: artifactId } })
  const admitted = admitArtifact(deps, caller, ctx, 'artifact.delete')
  if (!admitted.ok) return admitted
  const { principal, artifact } = admitted.value
  const at = deps.clock.now()
  const deleted = await deps.artifacts.softDelete({
    artifactId: artifact.id,
    at,
    audit: {
      id: deps.ids.next('evt'),
      at,
      action: 'artifact.deleted',
      actor: actorOf(principal),
      via: viaOf(principal, caller),
      workspaceId: artifact.workspaceId,
      artifactId: artifact.id,
      data: { slug: artifact.slug, projectSlug: artifact.projectSlug, latestVersion: artifact.latestVersion },
    },
  })
  if (!deleted) return fail('not_found', unseen.artifact)
  return ok({ id: artifact.id, deletedAt: at.toISOString() })
}

interface SlugCheck {
  readonly ownerUsername: string
  readonly projectSlug: string
  readonly slug: string
  readonly available: boolean
  readonly reason?: 'taken' | 'invalid' | 'reserved'
  readonly suggestions?: string[]
}

/** Free artifact slugs to offer instead of a taken one (`slugCandidates`), each checked in the project. */
export function freeArtifactSlugs(deps: CoreDeps, projectId: string, slug: string, title?: string): Promise<string[]> {
  return suggestSlugs(slugCandidates(slug, 'artifact', title), (name) => deps.artifacts.slugTaken(projectId, name))
}

async function checkSlug(deps: CoreDeps, caller: Caller, owner: string, projectSlug: string, slug: string): Promise<Result<SlugCheck>> {
  const ctx = await deps.projects.loadNamespaceForCaller({ credential: caller.credential, owner, projectSlug })
  const admitted = admitNamespace(deps, caller, ctx, 'project.read')
  if (!admitted.ok) return admitted
  if (ctx.project === null) return fail('not_found', unseen.project)
  const base = { ownerUsername: admitted.value.workspace.slug, projectSlug: ctx.project.slug, slug }
  const problem = slugProblem(slug, 'artifact')
  if (problem) return ok({ ...base, available: false, reason: problem })
  if (!(await deps.artifacts.slugTaken(ctx.project.id, slug))) return ok({ ...base, available: true })
  return ok({ ...base, available: false, reason: 'taken', suggestions: await freeArtifactSlugs(deps, ctx.project.id, slug) })
}

/** Whether an artifact slug is free in a project. */
export async function checkArtifactSlug(
  deps: CoreDeps,
  caller: Caller,
  path: { owner: string; projectSlug: string; slug: string },
): Promise<Result<ArtifactSlugAvailability>> {
  return checkSlug(deps, caller, path.owner, path.projectSlug, path.slug)
}

/** The URL an artifact would get, and whether its slug is free. */
export async function previewArtifactUrl(
  deps: CoreDeps,
  caller: Caller,
  path: { owner: string; projectSlug: string; slug: string },
): Promise<Result<SlugPreview>> {
  const check = await checkSlug(deps, caller, path.owner, path.projectSlug, path.slug)
  if (!check.ok) return check
  const c = check.value
  return ok({ url: artifactUrl(deps.config.webUrl, c.ownerUsername, c.projectSlug, c.slug), ...c })
}
