/**
 * Writing a new head version, for an append and a restore alike: the conditional write with its
 * audit event, the dry run's preview, the conflict's answer, and the one loop that retries them.
 */
import type { AuditAction } from '../contract/audit-actions.ts'
import { type DiffWithheld, MAX_VERSION_NUMBER, type Version, type VersionDryRun } from '../contract/schemas/version.ts'
import { unifiedDiff } from '../diff/unified-diff.ts'
import { actorOf, viaOf } from '../domain/audit.ts'
import { unseen } from '../domain/hidden.ts'
import type { Grant } from '../domain/policy.ts'
import type { Caller, Principal } from '../domain/principal.ts'
import { fail, ok, type Result } from '../domain/result.ts'
import type { ArtifactAccess, VersionRecord } from '../ports/records.ts'
import { guardOf } from './artifact-gate.ts'
import type { CoreDeps } from './deps.ts'
import { type IdempotencyPlan, idempotencyDraft, keyInUse, replay, type Written } from './idempotency.ts'
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

/** The version a write would append, and the admission and Idempotency-Key plan it rests on. */
export interface NewHead {
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

/** What one write of a head came to: an answer, or what `writeNewHead` does next. */
type WriteHead =
  | { readonly done: Result<Written<Version>> }
  | { readonly conflict: number }
  | { readonly refused: true }
  | { readonly keyTaken: true }

/** A write's answer: the version written (or replayed), or for a dry run what would have been written. */
export type HeadOutcome = Written<Version> | VersionDryRun

/**
 * A dry run's answer: the version the write would append and the diff from the head to its
 * content (or, for a caller who may not read the content, why the diff is left out). Given where
 * the real write would happen, after every one of its checks.
 */
async function preview(deps: CoreDeps, head: NewHead, withheld: DiffWithheld | null): Promise<Result<VersionDryRun>> {
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
  const source = head.restoredFrom
  const numbers = source === null ? [head.expected] : [head.expected, source]
  const rows = await deps.artifacts.contents(head.artifact.id, numbers)
  const from = rows.find((r) => r.number === head.expected)
  const to = head.content ?? rows.find((r) => r.number === source)?.body
  if (!from || to === undefined) return fail('not_found', unseen.artifact)
  const diff = unifiedDiff(from.body, to, { fromLabel: `v${head.expected}`, toLabel: `v${head.expected + 1}` })
  return ok({ ...answer, diff: diff.text, additions: diff.additions, deletions: diff.deletions })
}

/** One conditional write of a new head version with its audit event (and idempotency record). */
async function attemptWrite(deps: CoreDeps, caller: Caller, head: NewHead): Promise<WriteHead> {
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
  if (outcome.reason === 'idempotency_taken') return { keyTaken: true }
  if (outcome.reason === 'refused') return { refused: true }
  return { done: fail('not_found', unseen.artifact) }
}

/** What a fresh read of the artifact found: its head, and why a diff of its content is left out (if it is). */
export interface ReadFacts {
  readonly latest: number
  readonly withheld: DiffWithheld | null
}

/** A head ready to write, and the fresh read it rests on (null when it rests on a recent admission). */
export interface Draft {
  readonly head: NewHead
  readonly read: ReadFacts | null
}

/** What tells an append from a restore; `writeNewHead` does the rest. */
export interface HeadRequest {
  readonly artifactId: string
  /** Reads the artifact afresh and runs the operation's own checks: the head to write, or why not. */
  readonly read: () => Promise<Result<Draft>>
  /** The head built on a recent admission, without a read (an append's shortcut), when there is one. */
  readonly recent: (() => Promise<Result<Draft>>) | null
  /** Whether a conflict moves the write onto the new head (a restore with no expected version) rather than answering. */
  readonly followsHead: boolean
}

/** How often a restore with no expected version follows a head that moved under it (three writes in all). */
const HEAD_FOLLOWS = 2
/** How often a write refused after a fresh read reads again: the facts changed in between, so ask once more. */
const REREADS_AFTER_REFUSAL = 1

/**
 * Writes a new head, and owns every retry of it. A write that conflicts is answered from a fresh
 * read (or, for a restore with no expected version, follows the head a few times); a write that
 * is refused forgets the admission and reads again. Every turn first gives the earlier answer
 * under the Idempotency-Key, if there is one: a retry's, or a twin request's that won the race.
 */
export async function writeNewHead(
  deps: CoreDeps,
  caller: Caller,
  request: HeadRequest,
  options: WriteOptions,
): Promise<Result<HeadOutcome>> {
  let follows = 0
  let rereads = 0
  let keyTaken = false
  let next = await (request.recent ?? request.read)()
  for (;;) {
    if (!next.ok) return next
    const { read } = next.value
    let { head } = next.value
    const earlier = await replay<Version>(deps, head.plan)
    if (earlier) return earlier
    if (keyTaken) return keyInUse()
    // A head built on a recent admission has no read to check against: the write's condition is the check.
    if (read) {
      if (request.followsHead && head.expected !== read.latest && follows < HEAD_FOLLOWS) {
        follows++
        head = { ...head, expected: read.latest }
      }
      if (head.expected !== read.latest) return versionConflict(deps, head.artifact, head.expected, read.latest, read.withheld)
      if (options.dryRun) return preview(deps, head, read.withheld)
    }
    const written = await attemptWrite(deps, caller, head)
    if ('done' in written) return written.done
    if ('keyTaken' in written) keyTaken = true
    else if ('conflict' in written) {
      // Answered (or followed) from the read's facts; a head built on a recent admission reads
      // first, as what the caller may see of the conflict is decided on fresh facts.
      next = read ? ok({ head, read: { ...read, latest: written.conflict } }) : await request.read()
    } else {
      // Refused: the facts behind the grant changed. Forget the admission and read them again.
      if (caller.credential) deps.admissions.forget(caller.credential, request.artifactId)
      if (read) {
        if (rereads === REREADS_AFTER_REFUSAL)
          return fail('forbidden', 'Your access to this artifact changed while writing; nothing was written.')
        rereads++
      }
      follows = 0
      next = await request.read()
    }
  }
}
