import type { PageOf, PageQuery } from '../contract/schemas/common.ts'
import {
  type ArtifactChanges,
  CHANGES_DIFF_MAX_BYTES,
  type ChangesQuery,
  type Version,
  type VersionContent,
  type VersionDiff,
} from '../contract/schemas/version.ts'
import { unifiedDiff } from '../diff/unified-diff.ts'
import type { Caller } from '../domain/principal.ts'
import { fail, ok, type Result } from '../domain/result.ts'
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
  const rows = await deps.artifacts.contents(artifact.id, [input.from, input.to])
  const from = rows.find((r) => r.number === input.from)
  const to = rows.find((r) => r.number === input.to)
  const missing = from ? (to ? null : input.to) : input.from
  if (missing !== null || !from || !to) {
    return fail('not_found', `Version ${missing} does not exist (latest is ${artifact.latestVersion}).`)
  }
  const diff = unifiedDiff(from.body, to.body, { fromLabel: `v${from.number}`, toLabel: `v${to.number}` })
  return ok({
    artifactId: artifact.id,
    fromVersion: from.number,
    toVersion: to.number,
    diff: diff.text,
    additions: diff.additions,
    deletions: diff.deletions,
  })
}

/** The longest prefix of `text` made of whole lines that fits in `maxBytes` of UTF-8. */
export function capAtLine(text: string, maxBytes: number): { text: string; bytes: number; truncated: boolean } {
  const bytes = new TextEncoder().encode(text)
  if (bytes.length <= maxBytes) return { text, bytes: bytes.length, truncated: false }
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
  let whole = { text: '', additions: 0, deletions: 0 }
  if (query.since < latest) {
    const contents = await deps.artifacts.contents(artifact.id, [query.since, latest])
    const from = contents.find((r) => r.number === query.since)
    const to = contents.find((r) => r.number === latest)
    if (!from || !to) return fail('not_found', `Version ${query.since} does not exist (latest is ${latest}).`)
    whole = unifiedDiff(from.body, to.body, { fromLabel: `v${from.number}`, toLabel: `v${to.number}` })
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
