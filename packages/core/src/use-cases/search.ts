import type { PageOf } from '../contract/schemas/common.ts'
import type { SearchHit, SearchQuery } from '../contract/schemas/search.ts'
import { canonicalJson } from '../domain/hash.ts'
import { type Caller, userOf } from '../domain/principal.ts'
import { ok, type Result } from '../domain/result.ts'
import { searchSnippets } from '../domain/search-snippets.ts'
import { parseSearchQuery } from '../domain/search-text.ts'
import type { SearchResume } from '../ports/search.ts'
import { admitAccount } from './access.ts'
import type { CoreDeps } from './deps.ts'
import { pageRequest, toPage } from './paging.ts'
import { presentArtifact } from './present.ts'

const DEFAULT_LIMIT = 20

/**
 * A cursor names the search it belongs to (a fingerprint of the query and its filters), then the
 * score and artifact of the last hit: a cursor of another search is refused, not misread.
 */
const RESUME = /^([0-9a-f]{12})~([0-9][0-9.e+-]{0,30})~(art_[0-9a-z]{26})$/

function resumeOf(key: string | null): SearchResume | null {
  const match = key === null ? null : RESUME.exec(key)
  return match ? { score: match[2] ?? '', artifactId: match[3] ?? '' } : null
}

/**
 * Finds the artifacts the caller may read by their text, best match first. What the caller may read
 * is the store's to apply inside the one query that matches, ranks and pages (`SearchStore`); the
 * credential must carry `artifacts:read`, and an agent searches as its person.
 */
export async function searchArtifacts(deps: CoreDeps, caller: Caller, query: SearchQuery): Promise<Result<PageOf<SearchHit>>> {
  const account = await admitAccount(deps, caller, 'artifact.read')
  if (!account.ok) return account
  const plan = parseSearchQuery(query.q)
  if (!plan.ok) return plan
  const { cursor, limit, ...asked } = query
  const fingerprint = (await deps.sha256(canonicalJson({ ...asked, versions: asked.versions ?? 'latest' }))).slice(0, 12)
  const page = pageRequest(
    { limit: limit ?? DEFAULT_LIMIT, ...(cursor === undefined ? {} : { cursor }) },
    (key) => key.startsWith(`${fingerprint}~`) && resumeOf(key) !== null,
  )
  if (!page.ok) return page
  const user = userOf(account.value.principal)
  const [projectOwner, projectSlug] = query.project?.split('/') ?? []
  const { rows, stems } = await deps.search.find({
    userId: account.value.userId,
    viewerEmail: user?.emailVerified ? user.email.toLowerCase() : null,
    plan: plan.value,
    ...(query.owner === undefined ? {} : { owner: query.owner }),
    ...(projectOwner && projectSlug ? { project: { owner: projectOwner, slug: projectSlug } } : {}),
    ...(query.type === undefined ? {} : { type: query.type }),
    ...(query.updatedAfter === undefined ? {} : { updatedAfter: new Date(query.updatedAfter) }),
    allVersions: query.versions === 'all',
    limit: page.value.limit,
    after: resumeOf(page.value.after),
  })
  const highlighter = { stems, substrings: plan.value.highlightSubstrings }
  return ok(
    toPage(
      rows,
      page.value,
      (row) => `${fingerprint}~${row.scoreKey}~${row.artifact.id}`,
      (row): SearchHit => ({
        artifact: presentArtifact(row.artifact, deps.config.webUrl),
        version: row.version,
        score: row.score,
        snippets: searchSnippets(row.source, highlighter),
      }),
    ),
  )
}
