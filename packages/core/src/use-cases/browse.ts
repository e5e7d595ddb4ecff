import type { Artifact } from '../contract/schemas/artifact.ts'
import type { PageOf, PageQuery } from '../contract/schemas/common.ts'
import type { Project } from '../contract/schemas/project.ts'
import { unseen } from '../domain/hidden.ts'
import type { Role } from '../domain/policy.ts'
import type { Caller } from '../domain/principal.ts'
import { fail, ok, type Result } from '../domain/result.ts'
import { authorize, principalOf } from './access.ts'
import { artifactResource, workspaceResource } from './artifact-gate.ts'
import type { CoreDeps } from './deps.ts'
import { idKey, pageRequest, toPage } from './paging.ts'
import { presentArtifact, presentProject } from './present.ts'

export type NamespaceOwner =
  | { readonly slug: string; readonly member: null }
  | {
      readonly slug: string
      readonly member: { readonly workspaceId: string; readonly name: string; readonly kind: 'personal' | 'team'; readonly role: Role }
    }

/** A namespace (or one of its projects) as a visitor may browse it. */
export interface NamespaceListing {
  /** The namespace: its slug, and for members only its id, name, kind and the caller's role (a visitor sees the slug the URL already holds). */
  readonly owner: NamespaceOwner
  /** The project asked for: in full for members; for a visitor only its slug is known. */
  readonly project: Project | { readonly slug: string } | null
  readonly artifacts: PageOf<Artifact>
}

/**
 * The artifacts of a namespace, or of one of its projects, that the caller may see: a member
 * lists them all; anyone else (a stranger, an anonymous visitor) lists the public ones, each
 * still put to the policy. A namespace or project where a visitor may see nothing is a 404, the
 * same as one that does not exist, so private names never leak.
 */
export async function browseNamespace(
  deps: CoreDeps,
  caller: Caller,
  path: { owner: string; projectSlug?: string },
  query: PageQuery,
): Promise<Result<NamespaceListing>> {
  const ctx = await deps.projects.loadNamespaceForCaller({
    credential: caller.credential,
    owner: path.owner,
    ...(path.projectSlug === undefined ? {} : { projectSlug: path.projectSlug }),
  })
  const principal = principalOf(deps, caller, ctx.credential)
  if (!principal.ok) return principal
  const hidden = path.projectSlug === undefined ? unseen.namespace : unseen.project
  const { workspace } = ctx
  if (workspace === null || (path.projectSlug !== undefined && ctx.project === null)) return fail('not_found', hidden)
  const page = pageRequest(query, idKey('art'))
  if (!page.ok) return page

  const member = authorize(deps, principal.value, 'artifact.read', workspaceResource(workspace, ctx.role)).ok
  const rows = await deps.artifacts.listForWorkspace(
    { workspaceId: workspace.id, ...(ctx.project ? { projectId: ctx.project.id } : {}), publicOnly: !member },
    page.value,
  )
  const listed = toPage(
    rows,
    page.value,
    (r) => r.id,
    (r) => r,
  )
  // Members read everything here; for anyone else the policy has the last word on each artifact.
  const visible = member
    ? listed.items
    : listed.items.filter((r) => authorize(deps, principal.value, 'artifact.read', artifactResource(r, null)).ok)
  if (!member && visible.length === 0 && page.value.after === null) return fail('not_found', hidden)
  return ok({
    owner:
      member && ctx.role !== null
        ? { slug: workspace.slug, member: { workspaceId: workspace.id, name: workspace.name, kind: workspace.kind, role: ctx.role } }
        : { slug: workspace.slug, member: null },
    project: ctx.project === null ? null : member ? presentProject(ctx.project, deps.config.webUrl) : { slug: ctx.project.slug },
    artifacts: { items: visible.map((r) => presentArtifact(r, deps.config.webUrl)), nextCursor: listed.nextCursor },
  })
}
