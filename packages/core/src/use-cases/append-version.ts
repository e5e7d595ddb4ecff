import type { AuditAction } from '../contract/audit-actions.ts'
import {
  type AppendVersionBody,
  type DiffWithheld,
  MAX_VERSION_NUMBER,
  type RestoreVersionBody,
  type Version,
  type VersionDryRun,
} from '../contract/schemas/version.ts'
import { unifiedDiff } from '../diff/unified-diff.ts'
import { actorOf, viaOf } from '../domain/audit.ts'
import { unseen } from '../domain/hidden.ts'
import type { Grant } from '../domain/policy.ts'
import type { Caller, Principal } from '../domain/principal.ts'
import { fail, ok, type Result } from '../domain/result.ts'
import type { Admission } from '../ports/admissions.ts'
import type { ArtifactAccess, VersionRecord } from '../ports/records.ts'
import { admitArtifact, contentWithheld, guardOf } from './artifact-gate.ts'
import { checkContentSize } from './create-artifact.ts'
import type { CoreDeps } from './deps.ts'
import { type IdempotencyPlan, idempotencyDraft, planIdempotency, replay, replayAfterRace, type Written } from './idempotency.ts'
import { presentVersion } from './present.ts'

/**
 * The 409 a caller gets when the artifact moved on: nothing was written, and the problem shows
 * exactly what the caller missed (the diff from the version it expected to the head), when the
 * caller may read the content; else it says why the diff is left out (`withheld`).
 */
async function versionConflict<T>(
  deps: CoreDeps,
  artifact: ArtifactAccess,
  expected: number,
  latest: number,
  withheld: DiffWithheld | null,
): Promise<Result<T>> {
  const message = `The artifact is at version ${latest}, not ${expected}. Nothing was written; merge and retry with expectedLatestVersion ${latest}.`
  const known = { latestVersion: latest, expectedLatestVersion: expected }
  if (withheld) return fail('version_conflict', message, { meta: { ...known, diffWithheld: withheld } })
  let diff: string | null = null
  if (expected < latest) {
    const rows = await deps.artifacts.contents(artifact.id, [expected, latest])
    const from = rows.find((r) => r.number === expected)
    const to = rows.find((r) => r.number === latest)
    if (from && to) diff = unifiedDiff(from.body, to.body, { fromLabel: `v${expected}`, toLabel: `v${latest}` }).text
  }
  return fail('version_conflict', message, { meta: { ...known, diff } })
}

/** No version can follow the highest version number (the column's range): refused, never overflowed. */
function lastVersionReached<T>(expected: number): Result<T> | null {
  if (expected < MAX_VERSION_NUMBER) return null
  return fail(
    'version_conflict',
    `The artifact has reached the highest version number (${MAX_VERSION_NUMBER}): no version can follow it. Nothing was written.`,
    { meta: { latestVersion: expected } },
  )
}

/** How a write runs: for real, or as a dry run that runs every check and writes nothing. */
export interface WriteOptions {
  readonly dryRun?: boolean
}

interface NewHead {
  readonly principal: Principal
  readonly artifact: ArtifactAccess
  readonly grant: Grant
  readonly expected: number
  readonly sha256: string
  readonly size: number
  readonly content: string | null
  readonly changelog: string
  readonly restoredFrom: number | null
  readonly plan: IdempotencyPlan | null
}

type WriteHead = { readonly done: Result<Written<Version>> } | { readonly conflict: number } | { readonly refused: true }

/** A write's answer: the version written (or replayed), or for a dry run what would have been written. */
export type HeadOutcome = Written<Version> | VersionDryRun

/**
 * A dry run's answer: the version the write would append and the diff from the head to its
 * content (or, for a caller who may not read the content, why the diff is left out). Called where
 * the real write would call `writeHead`, after every one of its checks.
 */
async function preview(
  deps: CoreDeps,
  head: NewHead,
  sourceNumber: number | null,
  withheld: DiffWithheld | null,
): Promise<Result<VersionDryRun>> {
  const full = lastVersionReached<VersionDryRun>(head.expected)
  if (full) return full
  const answer = {
    dryRun: true as const,
    artifactId: head.artifact.id,
    wouldCreate: {
      versionNumber: head.expected + 1,
      sha256: head.sha256,
      size: head.size,
      changelog: head.changelog,
      restoredFrom: head.restoredFrom,
    },
    fromVersion: head.expected,
  }
  if (withheld) return ok({ ...answer, diffWithheld: withheld })
  const numbers = sourceNumber === null ? [head.expected] : [head.expected, sourceNumber]
  const rows = await deps.artifacts.contents(head.artifact.id, numbers)
  const from = rows.find((r) => r.number === head.expected)
  const to = head.content ?? rows.find((r) => r.number === sourceNumber)?.body
  if (!from || to === undefined) return fail('not_found', unseen.artifact)
  const diff = unifiedDiff(from.body, to, { fromLabel: `v${head.expected}`, toLabel: `v${head.expected + 1}` })
  return ok({ ...answer, diff: diff.text, additions: diff.additions, deletions: diff.deletions })
}

/** One conditional write of a new head version with its audit event (and idempotency record). */
async function writeHead(deps: CoreDeps, caller: Caller, head: NewHead): Promise<WriteHead> {
  const full = lastVersionReached<Written<Version>>(head.expected)
  if (full) return { done: full }
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
    guard: guardOf(head.principal, head.grant, at),
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
  if (outcome.reason === 'refused') return { refused: true }
  return { done: fail('not_found', unseen.artifact) }
}

/** Appends an immutable version, conditional on `expectedLatestVersion`. */
export async function appendVersion(
  deps: CoreDeps,
  caller: Caller,
  artifactId: string,
  body: AppendVersionBody,
  idempotencyKey?: string,
  options: WriteOptions = {},
  attempt = 1,
): Promise<Result<HeadOutcome>> {
  // A caller who was just admitted to write this artifact skips the read: the write's guard
  // re-checks what the admission rested on, and any change sends us down the full path. A dry
  // run has no write to guard, so it always takes the authoritative read, as does a conflict:
  // what it may show of the content is decided on fresh facts.
  const recent = caller.credential && !options.dryRun ? deps.admissions.get(caller.credential, artifactId, 'artifact.update') : undefined
  // A dry run neither reads nor stores the Idempotency-Key: it is not the write the key names.
  const key = options.dryRun ? undefined : idempotencyKey
  if (recent && body.expectedLatestVersion !== undefined) {
    const head = await headOf(deps, recent, body, key)
    if ('ok' in head) return head
    const written = await writeHead(deps, caller, head)
    if ('done' in written) return written.done
    if ('refused' in written) {
      if (caller.credential) deps.admissions.forget(caller.credential, artifactId)
    } else {
      const raced = await replay<Version>(deps, head.plan)
      if (raced) return raced
    }
  }
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
  const head = await headOf(deps, admitted.value, body, key)
  if ('ok' in head) return head
  if (body.expectedLatestVersion !== artifact.latestVersion)
    return versionConflict(deps, artifact, body.expectedLatestVersion, artifact.latestVersion, withheld)
  if (options.dryRun) return preview(deps, head, null, withheld)
  const written = await writeHead(deps, caller, head)
  if ('done' in written) return written.done
  if ('conflict' in written) {
    const raced = await replay<Version>(deps, head.plan)
    return raced ?? versionConflict(deps, artifact, head.expected, written.conflict, withheld)
  }
  // Refused right after an authoritative read: the facts changed in between. Ask once more.
  if (caller.credential) deps.admissions.forget(caller.credential, artifactId)
  if (attempt < 2) return appendVersion(deps, caller, artifactId, body, idempotencyKey, options, attempt + 1)
  return fail('forbidden', 'Your access to this artifact changed while writing; nothing was written.')
}

/**
 * What an append checks before it writes: the content's size, and an earlier answer to the same
 * Idempotency-Key (returned as it was). Else the head it would write.
 */
async function headOf(
  deps: CoreDeps,
  admission: Admission,
  body: AppendVersionBody,
  idempotencyKey: string | undefined,
): Promise<Result<Written<Version>> | NewHead> {
  const { principal, artifact, grant } = admission
  const size = checkContentSize(deps, body.content)
  if (!size.ok) return size
  const plan = await planIdempotency(deps, principal, idempotencyKey, 'appendVersion', { artifactId: artifact.id, ...body })
  const earlier = await replay<Version>(deps, plan)
  if (earlier) return earlier
  return {
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
  options: WriteOptions = {},
  refusals = 0,
): Promise<Result<HeadOutcome>> {
  const ctx = await deps.artifacts.loadVersionForCaller({ credential: caller.credential, artifactId, version: versionNumber })
  const admitted = admitArtifact(deps, caller, ctx, 'artifact.update')
  if (!admitted.ok) return admitted
  const { principal, artifact, grant } = admitted.value
  const withheld = contentWithheld(deps, principal, artifact, ctx.role)
  const source = ctx.version
  if (source === null) return fail('not_found', `Version ${versionNumber} does not exist (latest is ${artifact.latestVersion}).`)
  // A dry run neither reads nor stores the Idempotency-Key: it is not the write the key names.
  const plan = await planIdempotency(deps, principal, options.dryRun ? undefined : idempotencyKey, 'restoreVersion', {
    artifactId,
    versionNumber,
    ...body,
  })
  const earlier = await replay<Version>(deps, plan)
  if (earlier) return earlier

  const explicit = body?.expectedLatestVersion
  if (explicit !== undefined && explicit !== artifact.latestVersion)
    return versionConflict(deps, artifact, explicit, artifact.latestVersion, withheld)
  let expected = artifact.latestVersion
  for (let attempt = 1; ; attempt++) {
    const head: NewHead = {
      principal,
      artifact,
      grant,
      expected,
      sha256: source.sha256,
      size: source.size,
      content: null,
      changelog: body?.changelog ?? `Restored version ${versionNumber}`,
      restoredFrom: versionNumber,
      plan,
    }
    if (options.dryRun) return preview(deps, head, versionNumber, withheld)
    const written = await writeHead(deps, caller, head)
    if ('done' in written) return written.done
    if ('refused' in written) {
      if (refusals < 1) return restoreVersion(deps, caller, artifactId, versionNumber, body, idempotencyKey, options, refusals + 1)
      return fail('forbidden', 'Your access to this artifact changed while writing; nothing was written.')
    }
    const raced = await replay<Version>(deps, plan)
    if (raced) return raced
    // Without an explicit expectation the caller asked for "restore onto whatever is latest".
    if (explicit !== undefined || attempt >= RESTORE_ATTEMPTS) return versionConflict(deps, artifact, expected, written.conflict, withheld)
    expected = written.conflict
  }
}
