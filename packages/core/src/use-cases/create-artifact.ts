import type { Artifact, ArtifactDryRun, CreateArtifactBody } from '../contract/schemas/artifact.ts'
import { actorOf, viaOf } from '../domain/audit.ts'
import { unseen } from '../domain/hidden.ts'
import type { Grant } from '../domain/policy.ts'
import type { Caller, Principal } from '../domain/principal.ts'
import type { Failure } from '../domain/result.ts'
import { fail, ok, type Result } from '../domain/result.ts'
import { checkContentSize } from '../domain/rules.ts'
import { normalizeViewerEmails } from '../domain/sharing-rules.ts'
import type { ArtifactRecord, ProjectRecord, WorkspaceRecord } from '../ports/records.ts'
import { authorize } from './access.ts'
import { admitNamespace, guardOf, workspaceResource } from './artifact-gate.ts'
import { freeArtifactSlugs } from './artifacts.ts'
import type { CoreDeps } from './deps.ts'
import type { WriteOptions } from './head-write.ts'
import { idempotencyDraft, planIdempotency, replay, replayAfterRace, type Written } from './idempotency.ts'
import { artifactUrl, presentArtifact } from './present.ts'

/** Whether a create payload asks for anything but the default access (private, no viewers). */
function accessIsSet(access: CreateArtifactBody['access']): boolean {
  return access.publicView || access.publicEdit || (access.viewerEmails?.length ?? 0) > 0
}

/** A refused access setting on create, saying what is missing and how to get on without it. */
function refusedAccess(error: Failure): Result<never> {
  const remedy = 'Create it with the default access (publicView and publicEdit false, no viewerEmails), or ask an owner or admin.'
  if (error.code === 'insufficient_scope')
    return fail(
      'insufficient_scope',
      `Setting access on create needs the \`artifacts:access:write\` scope, which this credential lacks. ${remedy}`,
      error.scope ? { scope: error.scope } : {},
    )
  if (error.code === 'forbidden')
    return fail('forbidden', `Setting access on create needs the right to change access (workspace owners and admins). ${remedy}`)
  return { ok: false, error }
}

/** What the create's checks settle: who writes, where, under which grant, and the content's size and allowlist. */
interface CheckedCreate {
  readonly principal: Principal
  readonly workspace: WorkspaceRecord
  readonly project: ProjectRecord
  readonly grant: Grant
  readonly size: number
  readonly viewerEmails: string[]
}

/** Every check of a create before its insert: the credential, the policy, the access setting, the project, the limits. */
async function checkCreate(deps: CoreDeps, caller: Caller, body: CreateArtifactBody): Promise<Result<CheckedCreate>> {
  const ctx = await deps.projects.loadNamespaceForCaller({
    credential: caller.credential,
    owner: body.ownerUsername,
    projectSlug: body.projectSlug,
  })
  const admitted = admitNamespace(deps, caller, ctx, 'artifact.create')
  if (!admitted.ok) return admitted
  const { principal, workspace } = admitted.value
  // Access other than the default (private, no viewers) is an access change: it needs exactly
  // what PATCH …/access needs, and the insert re-checks that grant, not merely the right to create.
  const setsAccess = accessIsSet(body.access)
  const allowed = setsAccess ? authorize(deps, principal, 'artifact.access.write', workspaceResource(workspace, ctx.role)) : null
  if (allowed && !allowed.ok) return refusedAccess(allowed.error)
  const grant = allowed?.value ?? admitted.value.grant
  const project = ctx.project
  if (project === null) return fail('not_found', unseen.project)
  const size = checkContentSize(deps.config.limits, body.content)
  if (!size.ok) return size
  const viewerEmails = normalizeViewerEmails(body.access.viewerEmails ?? [], '/body/access/viewerEmails')
  if (!viewerEmails.ok) return viewerEmails
  return ok({ principal, workspace, project, grant, size: size.value, viewerEmails: viewerEmails.value })
}

/** The 409 of a slug already live in the project, with free ones to use instead (the title considered). */
async function slugTaken(deps: CoreDeps, body: CreateArtifactBody, projectId: string): Promise<Result<never>> {
  const suggestions = await freeArtifactSlugs(deps, projectId, body.slug, body.title)
  return fail('slug_taken', `An artifact \`${body.slug}\` already exists in \`${body.ownerUsername}/${body.projectSlug}\`.`, {
    meta: { suggestions },
  })
}

/**
 * A dry run's answer, once every check of the create passed: the one check left is the insert's
 * own (the slug is free), asked here instead. Nothing is written, and no Idempotency-Key is read
 * or stored: a dry run is not the write the key names.
 */
async function previewCreate(deps: CoreDeps, body: CreateArtifactBody, checked: CheckedCreate): Promise<Result<ArtifactDryRun>> {
  const { workspace, project } = checked
  if (await deps.artifacts.slugTaken(project.id, body.slug)) return slugTaken(deps, body, project.id)
  return ok({
    dryRun: true,
    wouldCreate: {
      ownerUsername: workspace.slug,
      projectSlug: project.slug,
      slug: body.slug,
      url: artifactUrl(deps.config.webUrl, workspace.slug, project.slug, body.slug),
      type: body.type,
      title: body.title,
      description: body.description ?? '',
      versionNumber: 1,
      sha256: await deps.sha256(body.content),
      size: checked.size,
      changelog: body.changelog,
      access: { publicView: body.access.publicView, publicEdit: body.access.publicEdit, viewerEmails: checked.viewerEmails },
    },
  })
}

/** Creates an artifact and its first version, with one audit event, in one transaction. */
export function createArtifact(
  deps: CoreDeps,
  caller: Caller,
  body: CreateArtifactBody,
  idempotencyKey?: string,
): Promise<Result<Written<Artifact>>>
/** The same, or with `dryRun` every check of it and nothing written (`ArtifactDryRun`). */
export function createArtifact(
  deps: CoreDeps,
  caller: Caller,
  body: CreateArtifactBody,
  idempotencyKey: string | undefined,
  options: WriteOptions,
): Promise<Result<Written<Artifact> | ArtifactDryRun>>
export async function createArtifact(
  deps: CoreDeps,
  caller: Caller,
  body: CreateArtifactBody,
  idempotencyKey?: string,
  options: WriteOptions = {},
): Promise<Result<Written<Artifact> | ArtifactDryRun>> {
  const checked = await checkCreate(deps, caller, body)
  if (!checked.ok) return checked
  if (options.dryRun) return previewCreate(deps, body, checked.value)
  const { principal, workspace, project, grant } = checked.value

  const plan = await planIdempotency(deps, principal, idempotencyKey, 'createArtifact', body)
  const earlier = await replay<Artifact>(deps, plan)
  if (earlier) return earlier

  const at = deps.clock.now()
  const actor = actorOf(principal)
  const sha256 = await deps.sha256(body.content)
  const artifact: ArtifactRecord = {
    id: deps.ids.next('art'),
    workspaceId: workspace.id,
    ownerSlug: workspace.slug,
    projectId: project.id,
    projectSlug: project.slug,
    slug: body.slug,
    type: body.type,
    title: body.title,
    description: body.description ?? '',
    publicView: body.access.publicView,
    publicEdit: body.access.publicEdit,
    viewerEmails: checked.value.viewerEmails,
    latestVersion: 1,
    createdAt: at,
    updatedAt: at,
    deletedAt: null,
    createdBy: actor,
  }
  const presented = presentArtifact(artifact, deps.config.webUrl)
  const outcome = await deps.artifacts.create({
    artifact,
    guard: guardOf(principal, grant, at),
    version: {
      artifactId: artifact.id,
      number: 1,
      sha256,
      size: checked.value.size,
      changelog: body.changelog,
      restoredFrom: null,
      createdAt: at,
      createdBy: actor,
    },
    content: body.content,
    audit: {
      id: deps.ids.next('evt'),
      at,
      action: 'artifact.created',
      actor,
      via: viaOf(principal, caller),
      workspaceId: workspace.id,
      artifactId: artifact.id,
      data: { slug: artifact.slug, projectSlug: project.slug, type: artifact.type, versionNumber: 1, sha256 },
    },
    idempotency: idempotencyDraft(plan, 201, presented, at),
  })
  if (outcome.ok) return ok({ value: presented, replayed: false })
  if (outcome.reason === 'idempotency_taken') return replayAfterRace<Artifact>(deps, plan)
  if (outcome.reason === 'refused') return fail('forbidden', 'Your access to this namespace changed; nothing was written.')
  if (outcome.reason === 'slug_taken') return slugTaken(deps, body, project.id)
  return fail('not_found', 'The project is gone.')
}
