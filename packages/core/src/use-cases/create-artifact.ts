import type { Artifact, CreateArtifactBody } from '../contract/schemas/artifact.ts'
import { actorOf, viaOf } from '../domain/audit.ts'
import type { Caller } from '../domain/principal.ts'
import { fail, ok, type Result } from '../domain/result.ts'
import { utf8Length } from '../domain/rules.ts'
import { normalizeViewerEmails } from '../domain/sharing-rules.ts'
import type { ArtifactRecord } from '../ports/records.ts'
import { admitNamespace } from './artifact-gate.ts'
import type { CoreDeps } from './deps.ts'
import { idempotencyDraft, planIdempotency, replay, replayAfterRace, type Written } from './idempotency.ts'
import { presentArtifact } from './present.ts'

/** Refuses content over the configured size. */
export function checkContentSize(deps: CoreDeps, content: string): Result<number> {
  const size = utf8Length(content)
  const max = deps.config.limits.contentBytes
  if (size > max) return fail('payload_too_large', `The content is ${size} bytes; the limit is ${max} bytes per version.`)
  return ok(size)
}

/** Creates an artifact and its first version, with one audit event, in one transaction. */
export async function createArtifact(
  deps: CoreDeps,
  caller: Caller,
  body: CreateArtifactBody,
  idempotencyKey?: string,
): Promise<Result<Written<Artifact>>> {
  const ctx = await deps.projects.loadNamespaceForCaller({
    credential: caller.credential,
    owner: body.ownerUsername,
    projectSlug: body.projectSlug,
  })
  const admitted = admitNamespace(deps, caller, ctx, 'artifact.create', body.ownerUsername)
  if (!admitted.ok) return admitted
  const { principal, workspace } = admitted.value
  const project = ctx.project
  if (project === null) return fail('not_found', `No project \`${body.projectSlug}\` under \`${body.ownerUsername}\`.`)
  const size = checkContentSize(deps, body.content)
  if (!size.ok) return size
  const viewerEmails = normalizeViewerEmails(body.access.viewerEmails ?? [], '/body/access/viewerEmails')
  if (!viewerEmails.ok) return viewerEmails

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
    viewerEmails: viewerEmails.value,
    latestVersion: 1,
    createdAt: at,
    updatedAt: at,
    deletedAt: null,
    createdBy: actor,
  }
  const presented = presentArtifact(artifact, deps.config.webUrl)
  const outcome = await deps.artifacts.create({
    artifact,
    version: {
      artifactId: artifact.id,
      number: 1,
      sha256,
      size: size.value,
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
  if (outcome.reason === 'slug_taken') {
    return fail('slug_taken', `An artifact \`${body.slug}\` already exists in \`${body.ownerUsername}/${body.projectSlug}\`.`)
  }
  return fail('not_found', 'The project is gone.')
}
