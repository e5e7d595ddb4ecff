import { sharingOperations } from '../contract/operations/sharing.ts'
import type { AccessDryRun, ArtifactAccessSettings, UpdateAccessBody } from '../contract/schemas/access.ts'
import { actorOf, viaOf } from '../domain/audit.ts'
import { unseen } from '../domain/hidden.ts'
import type { Caller } from '../domain/principal.ts'
import { fail, ok, type Result } from '../domain/result.ts'
import { normalizeViewerEmails } from '../domain/sharing-rules.ts'
import type { AccessSettingsRecord, ArtifactRecord } from '../ports/records.ts'
import { type AlsoNeeded, admitArtifact, allowedToo, artifactResource, guardOf } from './artifact-gate.ts'
import type { CoreDeps } from './deps.ts'

function present(artifact: Pick<ArtifactRecord, 'id' | 'updatedAt'>, settings: AccessSettingsRecord): ArtifactAccessSettings {
  return {
    artifactId: artifact.id,
    publicView: settings.publicView,
    publicEdit: settings.publicEdit,
    viewerEmails: [...settings.viewerEmails],
    updatedAt: artifact.updatedAt.toISOString(),
  }
}

const accessFields = ['publicView', 'publicEdit', 'viewerEmails'] as const

/** What a change of access would do: the settings now, the ones it would leave, and which fields differ. */
function previewAccess(artifact: Pick<ArtifactRecord, 'id'> & AccessSettingsRecord, settings: AccessSettingsRecord): AccessDryRun {
  const current = { publicView: artifact.publicView, publicEdit: artifact.publicEdit, viewerEmails: [...artifact.viewerEmails] }
  const wouldBe = { ...settings, viewerEmails: [...settings.viewerEmails] }
  const changed = accessFields.filter((field) => JSON.stringify(current[field]) !== JSON.stringify(wouldBe[field]))
  return { dryRun: true, artifactId: artifact.id, current, wouldBe, changed }
}

/** An artifact's access settings. */
export async function getArtifactAccess(deps: CoreDeps, caller: Caller, artifactId: string): Promise<Result<ArtifactAccessSettings>> {
  const ctx = await deps.artifacts.loadForCaller({ credential: caller.credential, target: { id: artifactId } })
  const admitted = admitArtifact(deps, caller, ctx, 'artifact.access.read')
  if (!admitted.ok) return admitted
  return ok(present(admitted.value.artifact, admitted.value.artifact))
}

/** A change of access, and its dry run, answer the whole settings: they need what reading them needs (the row's `alsoNeeds`). */
const answersSettings: AlsoNeeded = {
  actions: sharingOperations.updateArtifactAccess.alsoNeeds,
  because: 'Changing access answers the whole settings (the allowlist included), so it needs what reading them needs.',
}

/** Reading, opened to more people (`publicView` turned on, an address new to the allowlist). */
const opensReading: AlsoNeeded = {
  actions: ['artifact.read'],
  because: 'This change lets more people read the artifact, so it needs what reading it needs.',
}

/** Appending, opened to every signed-in caller (`publicEdit` turned on). */
const opensWriting: AlsoNeeded = {
  actions: ['artifact.update'],
  because: 'This change lets every signed-in caller append versions, so it needs what appending needs.',
}

/**
 * What a change opens that the settings now keep closed: it needs what it opens, as a share link
 * never grants more than its creator may do. Closing needs nothing more.
 */
function opened(now: AccessSettingsRecord, next: AccessSettingsRecord): AlsoNeeded[] {
  const readers = (next.publicView && !now.publicView) || next.viewerEmails.some((email) => !now.viewerEmails.includes(email))
  const writers = next.publicEdit && !now.publicEdit
  return [...(readers ? [opensReading] : []), ...(writers ? [opensWriting] : [])]
}

/**
 * Changes who may see and edit an artifact. Fields left out keep their value; the change and its
 * `artifact.access_changed` event are one statement, guarded by the facts the decision rested on.
 */
export async function updateArtifactAccess(
  deps: CoreDeps,
  caller: Caller,
  artifactId: string,
  body: UpdateAccessBody,
  options: { readonly dryRun?: boolean } = {},
): Promise<Result<ArtifactAccessSettings | AccessDryRun>> {
  const ctx = await deps.artifacts.loadForCaller({ credential: caller.credential, target: { id: artifactId } })
  const admitted = admitArtifact(deps, caller, ctx, 'artifact.access.write', answersSettings)
  if (!admitted.ok) return admitted
  const { principal, artifact, grant } = admitted.value
  const emails = body.viewerEmails === undefined ? ok([...artifact.viewerEmails]) : normalizeViewerEmails(body.viewerEmails)
  if (!emails.ok) return emails
  const settings: AccessSettingsRecord = {
    publicView: body.publicView ?? artifact.publicView,
    publicEdit: body.publicEdit ?? artifact.publicEdit,
    viewerEmails: emails.value,
  }
  for (const also of opened(artifact, settings)) {
    const allowed = allowedToo(deps, principal, artifactResource(artifact, ctx.role), also)
    if (!allowed.ok) return allowed
  }
  // Every check above is the write's own; a dry run stops here, before the guarded write.
  if (options.dryRun) return ok(previewAccess(artifact, settings))
  const at = deps.clock.now()
  const outcome = await deps.artifacts.updateAccess({
    artifactId: artifact.id,
    guard: guardOf(principal, grant, at),
    settings,
    audit: {
      id: deps.ids.next('evt'),
      at,
      action: 'artifact.access_changed',
      actor: actorOf(principal),
      via: viaOf(principal, caller),
      workspaceId: artifact.workspaceId,
      artifactId: artifact.id,
      data: { changed: Object.keys(body).sort(), ...settings },
    },
  })
  if (outcome.ok) return ok(present({ id: artifact.id, updatedAt: at }, settings))
  if (outcome.reason === 'refused') return fail('forbidden', 'Your access to this artifact changed; nothing was written.')
  return fail('not_found', unseen.artifact)
}
