import type { PageOf, PageQuery } from '../contract/schemas/common.ts'
import {
  type ArtifactChanges,
  CHANGES_DIFF_MAX_BYTES,
  type ChangesQuery,
  type Version,
  type VersionContent,
  type VersionDiff,
} from '../contract/schemas/version.ts'
import { type UnifiedDiff, unifiedDiff } from '../diff/unified-diff.ts'
import type { Caller } from '../domain/principal.ts'
import { fail, ok, type Result } from '../domain/result.ts'
import { utf8, utf8Length } from '../domain/rules.ts'
import { admitArtifact } from './artifact-gate.ts'
import type { CoreDeps } from './deps.ts'
import { numberKey, pageRequest, toPage } from './paging.ts'
import { presentVersion } from './present.ts'

/** A content read, with what HTTP caching needs to know. */
export interface ContentRead {
  readonly content: VersionContent
  readonly sha256: string
  readonly versionNumber: number
  /** True when a version number was given: the response can never change. */
  readonly pinned: boolean
  /** True when anyone may read it (shared caches may keep it). */
  readonly publicView: boolean
}

/**
 * Reads the source of a version (the latest when none is given) in one round trip with the
 * credential and the access facts.
 */
export async function getContent(
  deps: CoreDeps,
  caller: Caller,
  input: { artifactId: string; version?: number | undefined },
): Promise<Result<ContentRead>> {
  const ctx = await deps.artifacts.loadContentForCaller({
    credential: caller.credential,
    artifactId: input.artifactId,
    version: input.version ?? 'latest',
  })
  const admitted = admitArtifact(deps, caller, ctx, 'artifact.read')
  if (!admitted.ok) return admitted
  const { artifact } = admitted.value
  const version = ctx.version
  if (version === null) return fail('not_found', `Version ${input.version} does not exist (latest is ${artifact.latestVersion}).`)
  const base = {
    sha256: version.sha256,
    versionNumber: version.number,
    pinned: input.version !== undefined,
    publicView: artifact.publicView,
  }
  return ok({
    ...base,
    content: {
      artifactId: artifact.id,
      versionNumber: version.number,
      type: artifact.type,
      sha256: version.sha256,
      size: version.size,
      content: version.body,
      createdAt: version.createdAt.toISOString(),
    },
  })
}

/** Versions of an artifact, newest first. */
export async function listVersions(deps: CoreDeps, caller: Caller, artifactId: string, query: PageQuery): Promise<Result<PageOf<Version>>> {
  const page = pageRequest(query, numberKey)
  const ctx = await deps.artifacts.loadVersionForCaller({ credential: caller.credential, artifactId })
  const admitted = admitArtifact(deps, caller, ctx, 'artifact.read')
  if (!admitted.ok) return admitted
  if (!page.ok) return page
  const rows = await deps.artifacts.listVersions(artifactId, page.value)
  return ok(toPage(rows, page.value, (r) => String(r.number), presentVersion))
}

/** The unified diff from version `from` to version `to` of an admitted artifact: both read in one round trip. */
async function diffBetween(
  deps: CoreDeps,
  artifact: { readonly id: string; readonly latestVersion: number },
  from: number,
  to: number,
): Promise<Result<UnifiedDiff>> {
  const rows = await deps.artifacts.contents(artifact.id, [from, to])
  const old = rows.find((r) => r.number === from)
  const young = rows.find((r) => r.number === to)
  if (!old || !young) return fail('not_found', `Version ${old ? to : from} does not exist (latest is ${artifact.latestVersion}).`)
  return ok(unifiedDiff(old.body, young.body, { fromLabel: `v${from}`, toLabel: `v${to}` }))
}

/** Unified diff between two versions. */
export async function diffVersions(
  deps: CoreDeps,
  caller: Caller,
  input: { artifactId: string; from: number; to: number },
): Promise<Result<VersionDiff>> {
  const ctx = await deps.artifacts.loadVersionForCaller({ credential: caller.credential, artifactId: input.artifactId })
  const admitted = admitArtifact(deps, caller, ctx, 'artifact.read')
  if (!admitted.ok) return admitted
  const { artifact } = admitted.value
  const found = await diffBetween(deps, artifact, input.from, input.to)
  if (!found.ok) return found
  const diff = found.value
  return ok({
    artifactId: artifact.id,
    fromVersion: input.from,
    toVersion: input.to,
    diff: diff.text,
    additions: diff.additions,
    deletions: diff.deletions,
  })
}

/** The longest prefix of `text` made of whole lines that fits in `maxBytes` of UTF-8. */
export function capAtLine(text: string, maxBytes: number): { text: string; bytes: number; truncated: boolean } {
  // Counted without encoding first: most diffs fit, and then no copy of them is made.
  const length = utf8Length(text)
  if (length <= maxBytes) return { text, bytes: length, truncated: false }
  const bytes = utf8(text)
  const newline = bytes.lastIndexOf(0x0a, maxBytes - 1)
  return { text: new TextDecoder().decode(bytes.subarray(0, newline + 1)), bytes: bytes.length, truncated: true }
}

/**
 * Catch-up: the versions after `since` (newest first, one page of them) and the unified diff from
 * `since` to the head, capped at `CHANGES_DIFF_MAX_BYTES`. One admission, as every read of versions.
 */
export async function getArtifactChanges(
  deps: CoreDeps,
  caller: Caller,
  artifactId: string,
  query: ChangesQuery,
): Promise<Result<ArtifactChanges>> {
  const page = pageRequest(query, numberKey)
  const ctx = await deps.artifacts.loadVersionForCaller({ credential: caller.credential, artifactId })
  const admitted = admitArtifact(deps, caller, ctx, 'artifact.read')
  if (!admitted.ok) return admitted
  if (!page.ok) return page
  const { artifact } = admitted.value
  const latest = artifact.latestVersion
  if (query.since > latest) return fail('not_found', `Version ${query.since} does not exist (latest is ${latest}).`)
  // Newest first, stopping at `since`: a row at or below it ends the list, whatever the cursor.
  const rows = query.since === latest ? [] : await deps.artifacts.listVersions(artifact.id, page.value)
  const versions = toPage(
    rows.filter((r) => r.number > query.since),
    page.value,
    (r) => String(r.number),
    presentVersion,
  )
  let whole: UnifiedDiff = { text: '', additions: 0, deletions: 0 }
  if (query.since < latest) {
    const found = await diffBetween(deps, artifact, query.since, latest)
    if (!found.ok) return found
    whole = found.value
  }
  const capped = capAtLine(whole.text, CHANGES_DIFF_MAX_BYTES)
  return ok({
    artifactId: artifact.id,
    sinceVersion: query.since,
    latestVersion: latest,
    versions,
    diff: capped.text,
    additions: whole.additions,
    deletions: whole.deletions,
    diffBytes: capped.bytes,
    diffTruncated: capped.truncated,
  })
}
