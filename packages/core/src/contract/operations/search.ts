import { defineOperation } from '../operation.ts'
import { Page } from '../schemas/common.ts'
import { SearchHit, SearchQuery } from '../schemas/search.ts'

export const searchOperations = {
  searchArtifacts: defineOperation({
    method: 'GET',
    path: '/api/search',
    summary: 'Search the artifacts the caller may read, by title, description and content, best match first',
    description:
      "Searches the artifacts of the caller's own namespace and workspaces, and those whose viewer allowlist holds the caller's verified email; artifacts that are only public (anyone with the link) are not listed in other people's searches. An agent searches as its person. The access rule is part of the query that ranks and pages, so every page is full and nothing hidden is counted. A new version, a deletion or an access change shows in the very next search. Searches are not audited; they count against the caller's rate limit.",
    tags: ['search', 'artifacts'],
    action: 'artifact.read',
    anonymous: false,
    query: SearchQuery,
    success: { status: 200, schema: Page(SearchHit) },
    errors: ['insufficient_scope', 'invalid_cursor'],
    hints: { readOnly: true, destructive: false, idempotent: true },
  }),
} as const
