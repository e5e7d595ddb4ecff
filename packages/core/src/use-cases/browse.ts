import type { Artifact } from '../contract/schemas/artifact.ts'
import type { PageOf, PageQuery } from '../contract/schemas/common.ts'
import type { Project } from '../contract/schemas/project.ts'
import { unseen } from '../domain/hidden.ts'
import type { Role } from '../domain/policy.ts'
import { type Caller, type Principal, userOf } from '../domain/principal.ts'
import { fail, ok, type Result } from '../domain/result.ts'
import type { ArtifactRecord, NamespaceContext, WorkspaceRecord } from '../ports/records.ts'
import type { PageRequest } from '../ports/stores.ts'
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

/** Where a listing looks: a namespace that exists, maybe narrowed to one of its projects. */
interface ListingPlace {
  readonly workspace: WorkspaceRecord
  readonly role: Role | null
  readonly project: NamespaceContext['project']
  /** The words of the 404 when the caller may see nothing there. */
  readonly hidden: string
}

interface VisibleArtifacts {
  /** The caller is a member of the namespace (and its credential may read artifacts): every artifact is listed. */
  readonly member: boolean
  readonly page: PageOf<ArtifactRecord>
}

/**
 * The artifacts of a namespace, or of one of its projects, that the caller may read; the one rule
 * of every listing by path (the web's owner and project pages, `listProjectArtifacts`). The policy
 * decides membership on the workspace: a member lists every artifact, a member whose credential
 * lacks the scope is refused with the policy's words. Anyone else (a stranger, an anonymous
 * visitor) lists those a visitor may read, the public ones and those allowlisting their verified
 * email, each still put to the policy. A place where a visitor may read nothing is a 404, the same
 * as one that does not exist, with or without a cursor, so private names never leak.
 */
async function visibleArtifacts(
  deps: CoreDeps,
  principal: Principal,
  place: ListingPlace,
  page: PageRequest,
): Promise<Result<VisibleArtifacts>> {
  const { workspace, project } = place
  const scope = { workspaceId: workspace.id, ...(project ? { projectId: project.id } : {}) }
  const membership = authorize(deps, principal, 'artifact.read', workspaceResource(workspace, place.role))
  if (membership.ok) {
    const rows = await deps.artifacts.listForWorkspace(scope, page)
    return ok({
      member: true,
      page: toPage(
        rows,
        page,
        (r) => r.id,
        (r) => r,
      ),
    })
  }
  // A member's credential that may not read artifacts hears so; anyone else is a visitor.
  if (membership.error.code !== 'not_found' && membership.error.code !== 'unauthenticated') return membership

  const user = userOf(principal)
  const visitor = { ...scope, publicOnly: true, ...(user?.emailVerified ? { viewerEmail: user.email.toLowerCase() } : {}) }
  const readable = async (at: PageRequest): Promise<Result<PageOf<ArtifactRecord>>> => {
    const listed = toPage(
      await deps.artifacts.listForWorkspace(visitor, at),
      at,
      (r) => r.id,
      (r) => r,
    )
    const items: ArtifactRecord[] = []
    for (const row of listed.items) {
      const read = authorize(deps, principal, 'artifact.read', artifactResource(row, null))
      if (read.ok) items.push(row)
      // A scope is the credential's, not the artifact's: one refused for it, all are.
      else if (read.error.code !== 'not_found') return read
    }
    return ok({ items, nextCursor: listed.nextCursor })
  }
  const listed = await readable(page)
  if (!listed.ok) return listed
  if (listed.value.items.length === 0) {
    // Past the end of what the visitor may read, or nothing at all: only the first page tells.
    const first = page.after === null ? listed : await readable({ ...page, after: null })
    if (!first.ok) return first
    if (first.value.items.length === 0) return fail('not_found', place.hidden)
  }
  return ok({ member: false, page: listed.value })
}

/** The artifacts of a namespace, or of one of its projects, that the caller may see (the web's owner and project pages). */
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

  const visible = await visibleArtifacts(deps, principal.value, { workspace, role: ctx.role, project: ctx.project, hidden }, page.value)
  if (!visible.ok) return visible
  const { member } = visible.value
  return ok({
    owner:
      member && ctx.role !== null
        ? { slug: workspace.slug, member: { workspaceId: workspace.id, name: workspace.name, kind: workspace.kind, role: ctx.role } }
        : { slug: workspace.slug, member: null },
    project: ctx.project === null ? null : member ? presentProject(ctx.project, deps.config.webUrl) : { slug: ctx.project.slug },
    artifacts: {
      items: visible.value.page.items.map((r) => presentArtifact(r, deps.config.webUrl)),
      nextCursor: visible.value.page.nextCursor,
    },
  })
}

/**
 * One project's artifacts that the caller may read, newest first: the project page's listing
 * (`visibleArtifacts`) for REST, the client, the CLI and MCP. An unknown owner or project and one
 * where the caller may read nothing answer the same 404.
 */
export async function listProjectArtifacts(
  deps: CoreDeps,
  caller: Caller,
  path: { owner: string; projectSlug: string },
  query: PageQuery,
): Promise<Result<PageOf<Artifact>>> {
  const ctx = await deps.projects.loadNamespaceForCaller({
    credential: caller.credential,
    owner: path.owner,
    projectSlug: path.projectSlug,
  })
  const principal = principalOf(deps, caller, ctx.credential)
  if (!principal.ok) return principal
  const page = pageRequest(query, idKey('art'))
  if (!page.ok) return page
  const { workspace, project } = ctx
  if (workspace === null || project === null) return fail('not_found', unseen.project)
  const visible = await visibleArtifacts(deps, principal.value, { workspace, role: ctx.role, project, hidden: unseen.project }, page.value)
  if (!visible.ok) return visible
  const { items, nextCursor } = visible.value.page
  return ok({ items: items.map((r) => presentArtifact(r, deps.config.webUrl)), nextCursor })
}
