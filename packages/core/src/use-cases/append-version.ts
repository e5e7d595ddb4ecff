import type { AppendVersionBody, RestoreVersionBody } from '../contract/schemas/version.ts'
import type { Caller } from '../domain/principal.ts'
import { fail, ok, type Result } from '../domain/result.ts'
import { checkContentSize } from '../domain/rules.ts'
import type { Admission } from '../ports/admissions.ts'
import { admitArtifact, contentWithheld } from './artifact-gate.ts'
import type { CoreDeps } from './deps.ts'
import { type Draft, type HeadOutcome, type NewHead, type ReadFacts, type WriteOptions, writeNewHead } from './head-write.ts'
import { planIdempotency } from './idempotency.ts'

/** Appends an immutable version, conditional on `expectedLatestVersion`. */
export async function appendVersion(
  deps: CoreDeps,
  caller: Caller,
  artifactId: string,
  body: AppendVersionBody,
  idempotencyKey?: string,
  options: WriteOptions = {},
): Promise<Result<HeadOutcome>> {
  // A dry run neither reads nor stores the Idempotency-Key: it is not the write the key names.
  const key = options.dryRun ? undefined : idempotencyKey
  // A caller who was just admitted to write this artifact skips the read: the write's guard
  // re-checks what the admission rested on, and any change sends us down the full path. A dry
  // run has no write to guard, so it always takes the authoritative read, as does a conflict:
  // what it may show of the content is decided on fresh facts.
  const recent =
    caller.credential && !options.dryRun && body.expectedLatestVersion !== undefined
      ? deps.admissions.get(caller.credential, artifactId, 'artifact.update')
      : undefined
  return writeNewHead(
    deps,
    caller,
    {
      artifactId,
      read: () => readForAppend(deps, caller, artifactId, body, key),
      recent: recent ? () => appendDraft(deps, recent, body, key, null) : null,
      followsHead: false,
    },
    options,
  )
}

/** An append's authoritative read: the caller admitted, the expected version sent, and the draft. */
async function readForAppend(
  deps: CoreDeps,
  caller: Caller,
  artifactId: string,
  body: AppendVersionBody,
  idempotencyKey: string | undefined,
): Promise<Result<Draft>> {
  const ctx = await deps.artifacts.loadVersionForCaller({ credential: caller.credential, artifactId })
  const admitted = admitArtifact(deps, caller, ctx, 'artifact.update')
  if (!admitted.ok) return admitted
  const { principal, artifact } = admitted.value
  if (body.expectedLatestVersion === undefined) {
    return fail('precondition_required', `Send expectedLatestVersion (the artifact is at version ${artifact.latestVersion}).`, {
      meta: { latestVersion: artifact.latestVersion },
    })
  }
  if (caller.credential) deps.admissions.remember(caller.credential, artifactId, 'artifact.update', admitted.value)
  const withheld = contentWithheld(deps, principal, artifact, ctx.role)
  return appendDraft(deps, admitted.value, body, idempotencyKey, { latest: artifact.latestVersion, withheld })
}

/** The head an append would write, once its content keeps to the size rule. */
async function appendDraft(
  deps: CoreDeps,
  admission: Admission,
  body: AppendVersionBody,
  idempotencyKey: string | undefined,
  read: ReadFacts | null,
): Promise<Result<Draft>> {
  const { principal, artifact, grant } = admission
  const size = checkContentSize(deps.config.limits, body.content)
  if (!size.ok) return size
  const plan = await planIdempotency(deps, principal, idempotencyKey, 'appendVersion', { artifactId: artifact.id, ...body })
  const head: NewHead = {
    principal,
    artifact,
    grant,
    expected: body.expectedLatestVersion ?? artifact.latestVersion,
    sha256: await deps.sha256(body.content),
    size: size.value,
    content: body.content,
    changelog: body.changelog ?? '',
    restoredFrom: null,
    plan,
  }
  return ok({ head, read })
}

/** Appends a new head with the content of version N (no new content is stored). */
export async function restoreVersion(
  deps: CoreDeps,
  caller: Caller,
  artifactId: string,
  versionNumber: number,
  body: RestoreVersionBody | undefined,
  idempotencyKey?: string,
  options: WriteOptions = {},
): Promise<Result<HeadOutcome>> {
  // A dry run neither reads nor stores the Idempotency-Key: it is not the write the key names.
  const key = options.dryRun ? undefined : idempotencyKey
  return writeNewHead(
    deps,
    caller,
    {
      artifactId,
      read: () => readForRestore(deps, caller, artifactId, versionNumber, body, key),
      recent: null,
      // Without an expected version the caller asked for "restore onto whatever is latest".
      followsHead: body?.expectedLatestVersion === undefined,
    },
    options,
  )
}

/** A restore's read: the caller admitted, the version to restore found, and the draft. */
async function readForRestore(
  deps: CoreDeps,
  caller: Caller,
  artifactId: string,
  versionNumber: number,
  body: RestoreVersionBody | undefined,
  idempotencyKey: string | undefined,
): Promise<Result<Draft>> {
  const ctx = await deps.artifacts.loadVersionForCaller({ credential: caller.credential, artifactId, version: versionNumber })
  const admitted = admitArtifact(deps, caller, ctx, 'artifact.update')
  if (!admitted.ok) return admitted
  const { principal, artifact, grant } = admitted.value
  const withheld = contentWithheld(deps, principal, artifact, ctx.role)
  const source = ctx.version
  if (source === null) return fail('not_found', `Version ${versionNumber} does not exist (latest is ${artifact.latestVersion}).`)
  const plan = await planIdempotency(deps, principal, idempotencyKey, 'restoreVersion', { artifactId, versionNumber, ...body })
  const head: NewHead = {
    principal,
    artifact,
    grant,
    expected: body?.expectedLatestVersion ?? artifact.latestVersion,
    sha256: source.sha256,
    size: source.size,
    content: null,
    changelog: body?.changelog ?? `Restored version ${versionNumber}`,
    restoredFrom: versionNumber,
    plan,
  }
  return ok({ head, read: { latest: artifact.latestVersion, withheld } })
}
