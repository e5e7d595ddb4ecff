import type { AppendVersionBody, RestoreVersionBody, Version } from '../contract/schemas/version.ts'
import { unifiedDiff } from '../diff/unified-diff.ts'
import { type AuditAction, actorOf, viaOf } from '../domain/audit.ts'
import { sha256Hex } from '../domain/hash.ts'
import type { Caller, Principal } from '../domain/principal.ts'
import { fail, ok, type Result } from '../domain/result.ts'
import type { ArtifactRecord, VersionRecord } from '../ports/records.ts'
import { admitArtifact } from './artifact-gate.ts'
import { checkContentSize } from './create-artifact.ts'
import type { CoreDeps } from './deps.ts'
import { type IdempotencyPlan, idempotencyDraft, planIdempotency, replay, replayAfterRace, type Written } from './idempotency.ts'
import { presentVersion } from './present.ts'

/**
 * The 409 a caller gets when the artifact moved on: nothing was written, and the problem shows
 * exactly what the caller missed (the diff from the version it expected to the head).
 */
async function versionConflict<T>(deps: CoreDeps, artifact: ArtifactRecord, expected: number, latest: number): Promise<Result<T>> {
  let diff: string | null = null
  if (expected < latest) {
    const rows = await deps.artifacts.contents(artifact.id, [expected, latest])
    const from = rows.find((r) => r.number === expected)
    const to = rows.find((r) => r.number === latest)
    if (from && to) diff = unifiedDiff(from.body, to.body, { fromLabel: `v${expected}`, toLabel: `v${latest}` }).text
  }
  return fail(
    'version_conflict',
    `The artifact is at version ${latest}, not ${expected}. Nothing was written; merge and retry with expectedLatestVersion ${latest}.`,
    {
      meta: { latestVersion: latest, expectedLatestVersion: expected, diff },
    },
  )
}

interface NewHead {
  readonly principal: Principal
  readonly artifact: ArtifactRecord
  readonly expected: number
  readonly sha256: string
  readonly size: number
  readonly content: string | null
  readonly changelog: string
  readonly restoredFrom: number | null
  readonly plan: IdempotencyPlan | null
}

type WriteHead = { readonly done: Result<Written<Version>> } | { readonly conflict: number }

/** One conditional write of a new head version with its audit event (and idempotency record). */
async function writeHead(deps: CoreDeps, caller: Caller, head: NewHead): Promise<WriteHead> {
  const at = deps.clock.now()
  const actor = actorOf(head.principal)
  const number = head.expected + 1
  const version: VersionRecord = {
    artifactId: head.artifact.id,
    number,
    sha256: head.sha256,
    size: head.size,
    changelog: head.changelog,
    restoredFrom: head.restoredFrom,
    createdAt: at,
    createdBy: actor,
  }
  const presented = presentVersion(version)
  const action: AuditAction = head.restoredFrom === null ? 'artifact.version_created' : 'artifact.restored'
  const outcome = await deps.artifacts.append({
    artifactId: head.artifact.id,
    expectedLatestVersion: head.expected,
    version,
    content: head.content,
    audit: {
      id: deps.ids.next('evt'),
      at,
      action,
      actor,
      via: viaOf(head.principal, caller),
      workspaceId: head.artifact.workspaceId,
      artifactId: head.artifact.id,
      data: { versionNumber: number, sha256: head.sha256, size: head.size, restoredFrom: head.restoredFrom },
    },
    idempotency: idempotencyDraft(head.plan, 201, presented, at),
  })
  if (outcome.ok) return { done: ok({ value: presented, replayed: false }) }
  if (outcome.reason === 'conflict') return { conflict: outcome.latestVersion }
  if (outcome.reason === 'idempotency_taken') return { done: await replayAfterRace<Version>(deps, head.plan) }
  return { done: fail('not_found', 'No such artifact.') }
}

/** Appends an immutable version, conditional on `expectedLatestVersion`. */
export async function appendVersion(
  deps: CoreDeps,
  caller: Caller,
  artifactId: string,
  body: AppendVersionBody,
  idempotencyKey?: string,
): Promise<Result<Written<Version>>> {
  const ctx = await deps.artifacts.loadForCaller({ credential: caller.credential, target: { id: artifactId } })
  const admitted = admitArtifact(deps, caller, ctx, 'artifact.update')
  if (!admitted.ok) return admitted
  const { principal, artifact } = admitted.value
  const expected = body.expectedLatestVersion
  if (expected === undefined) {
    return fail('precondition_required', `Send expectedLatestVersion (the artifact is at version ${artifact.latestVersion}).`, {
      meta: { latestVersion: artifact.latestVersion },
    })
  }
  const size = checkContentSize(deps, body.content)
  if (!size.ok) return size
  const plan = await planIdempotency(principal, idempotencyKey, 'appendVersion', { artifactId, ...body })
  const earlier = await replay<Version>(deps, plan)
  if (earlier) return earlier
  if (expected !== artifact.latestVersion) return versionConflict(deps, artifact, expected, artifact.latestVersion)

  const written = await writeHead(deps, caller, {
    principal,
    artifact,
    expected,
    sha256: await sha256Hex(body.content),
    size: size.value,
    content: body.content,
    changelog: body.changelog ?? '',
    restoredFrom: null,
    plan,
  })
  if ('done' in written) return written.done
  const raced = await replay<Version>(deps, plan)
  return raced ?? versionConflict(deps, artifact, expected, written.conflict)
}

const RESTORE_ATTEMPTS = 3

/** Appends a new head with the content of version N (no new content is stored). */
export async function restoreVersion(
  deps: CoreDeps,
  caller: Caller,
  artifactId: string,
  versionNumber: number,
  body: RestoreVersionBody | undefined,
  idempotencyKey?: string,
): Promise<Result<Written<Version>>> {
  const ctx = await deps.artifacts.loadForCaller({ credential: caller.credential, target: { id: artifactId }, version: versionNumber })
  const admitted = admitArtifact(deps, caller, ctx, 'artifact.update')
  if (!admitted.ok) return admitted
  const { principal, artifact } = admitted.value
  const source = ctx.version
  if (source === null) return fail('not_found', `Version ${versionNumber} does not exist (latest is ${artifact.latestVersion}).`)
  const plan = await planIdempotency(principal, idempotencyKey, 'restoreVersion', { artifactId, versionNumber, ...body })
  const earlier = await replay<Version>(deps, plan)
  if (earlier) return earlier

  const explicit = body?.expectedLatestVersion
  if (explicit !== undefined && explicit !== artifact.latestVersion)
    return versionConflict(deps, artifact, explicit, artifact.latestVersion)
  let expected = artifact.latestVersion
  for (let attempt = 1; ; attempt++) {
    const written = await writeHead(deps, caller, {
      principal,
      artifact,
      expected,
      sha256: source.sha256,
      size: source.size,
      content: null,
      changelog: body?.changelog ?? `Restored version ${versionNumber}`,
      restoredFrom: versionNumber,
      plan,
    })
    if ('done' in written) return written.done
    const raced = await replay<Version>(deps, plan)
    if (raced) return raced
    // Without an explicit expectation the caller asked for "restore onto whatever is latest".
    if (explicit !== undefined || attempt >= RESTORE_ATTEMPTS) return versionConflict(deps, artifact, expected, written.conflict)
    expected = written.conflict
  }
}
