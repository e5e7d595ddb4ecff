import type { ArtifactType } from '../contract/schemas/artifact.ts'
import type { SnippetSource } from '../domain/search-snippets.ts'
import type { SearchPlan } from '../domain/search-text.ts'
import type { ArtifactRecord } from './records.ts'

/** Where a page of hits resumes: past the hit with this score and artifact (best first, then newest). */
export interface SearchResume {
  /** The score as the index wrote it (text, so that it compares exactly). */
  readonly score: string
  readonly artifactId: string
}

/** One search, with who asks: the access rule is the store's to apply inside the query. */
export interface SearchRequest {
  /** The caller's account: its own namespace and its workspaces are searched. */
  readonly userId: string
  /** The caller's verified email (lower case), or null: artifacts whose viewer allowlist holds it are searched too. */
  readonly viewerEmail: string | null
  readonly plan: SearchPlan
  readonly owner?: string
  readonly project?: { readonly owner: string; readonly slug: string }
  readonly type?: ArtifactType
  readonly updatedAfter?: Date
  /** Every version, not only the latest: a hit is the artifact's best-matching version. */
  readonly allVersions: boolean
  readonly limit: number
  readonly after: SearchResume | null
}

/** One hit: the artifact, the version matched, its score, and the text its snippets are cut from. */
export interface SearchRow {
  readonly artifact: ArtifactRecord
  readonly version: number
  readonly score: number
  readonly scoreKey: string
  readonly source: SnippetSource
}

/**
 * The search index. The PostgreSQL adapter keeps it in the database, written in the transaction of
 * every version; a dedicated engine would implement the same port (docs/deploy.md).
 */
export interface SearchStore {
  /** Up to `limit + 1` hits, best first, and the stems of the plan's words (they mark matches in snippets). */
  find(request: SearchRequest): Promise<{ readonly rows: readonly SearchRow[]; readonly stems: readonly string[] }>
}
