import type { PageOf, PageQuery } from '../contract/schemas/common.ts'
import type { Version, VersionContent, VersionDiff } from '../contract/schemas/version.ts'
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
