import type { SearchRequest, SearchRow, SearchStore, SubstringAlternative } from '@quire/core'
import { type Kysely, type RawBuilder, sql } from 'kysely'
import { CUSTOM_PLAN } from '../prepared-pool.ts'
import { artifactFrom, type Row } from '../rows.ts'
import type { Database } from '../schema.ts'
import { artifactColumns } from './fragments.ts'

/** Characters of a hit's content its snippets are cut from (the index reads as far: `quire_search_document`). */
const SNIPPET_SOURCE_CHARS = 200_000

/** `text` as an ILIKE pattern that finds it anywhere, its wildcards taken literally. */
function containing(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
}

function alternative(alt: SubstringAlternative): RawBuilder<unknown> {
  const parts = alt.substrings.map((s) => sql`s.residue ILIKE ${containing(s)}::text`)
  if (alt.fullText !== null) parts.push(sql`s.document @@ websearch_to_tsquery('english', ${alt.fullText}::text)`)
  const all = sql.join(parts, sql` AND `)
  return alt.negated ? sql`NOT (${all})` : sql`(${all})`
}

/** What the index must match: the full-text clauses as one tsquery, each substring clause as its alternatives. */
function matchOf(request: SearchRequest): RawBuilder<unknown> {
  const { plan } = request
  const conditions = plan.substringClauses.map((clause) => sql`(${sql.join(clause.map(alternative), sql` OR `)})`)
  if (plan.fullText !== null) conditions.unshift(sql`s.document @@ websearch_to_tsquery('english', ${plan.fullText}::text)`)
  return sql.join(conditions, sql` AND `)
}

/** The filters on the artifact row, and the rule that it is live. */
function filtersOf(request: SearchRequest): RawBuilder<unknown> {
  const filters: RawBuilder<unknown>[] = [sql`a.deleted_at IS NULL`]
  if (!request.allVersions) filters.push(sql`s.number = a.latest_version`)
  if (request.owner !== undefined) filters.push(sql`a.workspace_id = (SELECT id FROM workspaces WHERE slug = ${request.owner}::text)`)
  if (request.project !== undefined) {
    filters.push(sql`a.project_id = (SELECT p.id FROM projects p JOIN workspaces pw ON pw.id = p.workspace_id
      WHERE pw.slug = ${request.project.owner}::text AND p.slug = ${request.project.slug}::text)`)
  }
  if (request.type !== undefined) filters.push(sql`a.type = ${request.type}::text`)
  if (request.updatedAfter !== undefined) filters.push(sql`a.updated_at > ${request.updatedAfter}::timestamptz`)
  return sql.join(filters, sql` AND `)
}

/**
 * One search in one statement. What the caller may read is two branches of the same query, never
 * a filter after ranking: (1) index rows of the caller's workspaces (`search_versions.workspace_id`,
 * so the index can meet the match; an array, computed once, so that the planner filters the
 * match's rows by it rather than joining memberships to every row), and (2) artifacts whose allowlist holds the caller's verified
 * email (their GIN index) outside those workspaces. Only then are hits ranked (`ts_rank_cd`, title
 * above description above content, scaled down for long documents), paged by (score, id), and only
 * the page's rows joined to their content for snippets (and, once, the stems of the query's words).
 */
async function find(db: Kysely<Database>, request: SearchRequest): Promise<{ rows: SearchRow[]; stems: string[] }> {
  const match = matchOf(request)
  const filters = filtersOf(request)
  // Full text cannot rank a substring term (a CJK word inside a run, part of an identifier): one
  // found in the title counts as a title word would, in the description as a description word.
  const bonuses = request.plan.highlightSubstrings.map(
    (s) =>
      sql` + CASE WHEN a.title ILIKE ${containing(s)}::text THEN 0.1 WHEN a.description ILIKE ${containing(s)}::text THEN 0.04 ELSE 0 END`,
  )
  const score = sql`(ts_rank_cd(s.document, websearch_to_tsquery('english', ${request.plan.rankText}::text), 1)${sql.join(bonuses, sql``)})::real`
  const mine = sql`SELECT workspace_id FROM memberships WHERE user_id = ${request.userId}::text`
  const members = sql`SELECT a.id, s.number, ${score} AS score
    FROM search_versions s JOIN artifacts a ON a.id = s.artifact_id
    WHERE s.workspace_id = ANY (ARRAY(${mine})) AND ${match} AND ${filters}`
  const shared =
    request.viewerEmail === null
      ? null
      : sql`SELECT a.id, s.number, ${score} AS score
    FROM artifacts a JOIN search_versions s ON s.artifact_id = a.id
    WHERE a.viewer_emails @> ARRAY[${request.viewerEmail}::text] AND a.workspace_id NOT IN (${mine}) AND ${match} AND ${filters}`
  const matched = shared === null ? members : sql`${members} UNION ALL ${shared}`
  // With every version searched, an artifact is one hit: its best-matching version, the newest of equals.
  const hits = request.allVersions
    ? sql`SELECT DISTINCT ON (m.id) m.id, m.number, m.score FROM (${matched}) m ORDER BY m.id, m.score DESC, m.number DESC`
    : matched
  const after = request.after
  const resume =
    after === null
      ? sql`true`
      : sql`(h.score < ${after.score}::real OR (h.score = ${after.score}::real AND h.id < ${after.artifactId}::text))`
  const words = request.plan.highlightWords.join(' ')
  // Planned for each call (CUSTOM_PLAN): how many rows the words match decides which index leads.
  const { rows } = await sql<
    Row & { h_number: number; h_score: number; h_score_key: string; h_body: string; h_stems: string[] }
  >`${sql.raw(CUSTOM_PLAN)}
    SELECT ${artifactColumns}, top.number AS h_number, top.score AS h_score, top.score::text AS h_score_key,
      left(c.body, ${SNIPPET_SOURCE_CHARS}::int) AS h_body,
      (SELECT tsvector_to_array(to_tsvector('english', ${words}::text))) AS h_stems
    FROM (SELECT h.id, h.number, h.score FROM (${hits}) h WHERE ${resume}
      ORDER BY h.score DESC, h.id DESC LIMIT ${request.limit + 1}::int) top
    JOIN artifacts a ON a.id = top.id
    JOIN workspaces w ON w.id = a.workspace_id
    JOIN projects p ON p.id = a.project_id
    JOIN versions v ON v.artifact_id = top.id AND v.number = top.number
    JOIN contents c ON c.sha256 = v.content_sha256
    ORDER BY top.score DESC, top.id DESC`.execute(db)
  const stems = rows[0]?.h_stems ?? []
  return {
    rows: rows.flatMap((r) => {
      const artifact = artifactFrom(r)
      if (!artifact) return []
      return [
        {
          artifact,
          version: r.h_number,
          score: Number(r.h_score),
          scoreKey: r.h_score_key,
          source: { title: artifact.title, description: artifact.description, content: r.h_body },
        },
      ]
    }),
    stems,
  }
}

export function searchStore(db: Kysely<Database>): SearchStore {
  return { find: (request) => find(db, request) }
}
