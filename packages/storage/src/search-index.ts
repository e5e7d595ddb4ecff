import { searchResidue } from '@quire/core'
import { type Kysely, type RawBuilder, sql } from 'kysely'

/*
 * The search index: one row per version (`search_versions`, migration 0010), written by the
 * statement that writes the version. A row holds only what never changes for that version: its
 * words (`document`, a weighted tsvector: title A, description B, content C, content bounded by
 * the SQL function `quire_search_document`) and its `residue` for substring search (the title, the
 * description and the identifiers and CJK runs of the content: core's `searchResidue`), under a
 * trigram index. What does change (the head, deletion, access) is read from the artifact row by
 * the search itself, so no write has to keep a copy fresh.
 */

/** The residue of a version: its title and description whole, then what `searchResidue` keeps of its content. */
export function residueOf(
  title: RawBuilder<unknown>,
  description: RawBuilder<unknown>,
  contentResidue: RawBuilder<unknown>,
): RawBuilder<string> {
  return sql<string>`concat_ws(E'\n', ${title}, ${description}, ${contentResidue})`
}

/**
 * The index row of a new version, inserted from the write's CTE `source`, which returns the
 * artifact's `id`, `workspace_id`, `title` and `description`. A version with new content is indexed
 * from that content; a restore copies the row of the version it restores (same text, same title).
 */
export function searchRowFrom(
  source: string,
  version: { readonly number: number; readonly restoredFrom: number | null },
  content: string | null,
): RawBuilder<unknown> {
  const src = sql.table(source)
  if (content === null) {
    return sql`INSERT INTO search_versions (artifact_id, number, workspace_id, document, residue)
      SELECT s.artifact_id, ${version.number}::int, s.workspace_id, s.document, s.residue
      FROM ${src} JOIN search_versions s ON s.artifact_id = ${src}.id AND s.number = ${version.restoredFrom}::int`
  }
  return sql`INSERT INTO search_versions (artifact_id, number, workspace_id, document, residue)
    SELECT ${src}.id, ${version.number}::int, ${src}.workspace_id,
      quire_search_document(${src}.title, ${src}.description, ${content}::text),
      ${residueOf(sql`${src}.title`, sql`${src}.description`, sql`${searchResidue(content)}::text`)}
    FROM ${src}`
}

/** Versions indexed per statement while (re)building the index. */
const BATCH = 200

/**
 * Indexes every version that has no index row yet, in batches (the migration that adds the index
 * runs it; a bulk load can too). The content of a batch is read once to compute its residue here;
 * its words are computed by the database. Returns how many versions it indexed.
 */
export async function indexUnindexedVersions(db: Kysely<unknown>, onProgress?: (indexed: number) => void): Promise<number> {
  let indexed = 0
  let after: { artifactId: string; number: number } | null = null
  for (;;) {
    const resume: RawBuilder<unknown> =
      after === null ? sql`true` : sql`(v.artifact_id, v.number) > (${after.artifactId}::text, ${after.number}::int)`
    const { rows } = await sql<{ artifact_id: string; number: number; body: string; indexed: boolean }>`
      SELECT v.artifact_id, v.number, c.body, s.artifact_id IS NOT NULL AS indexed
      FROM versions v
      JOIN contents c ON c.sha256 = v.content_sha256
      LEFT JOIN search_versions s ON s.artifact_id = v.artifact_id AND s.number = v.number
      WHERE ${resume}
      ORDER BY v.artifact_id, v.number LIMIT ${BATCH}`.execute(db)
    const last = rows.at(-1)
    if (!last) return indexed
    after = { artifactId: last.artifact_id, number: last.number }
    const todo = rows.filter((row) => !row.indexed)
    if (todo.length === 0) continue
    await sql`INSERT INTO search_versions (artifact_id, number, workspace_id, document, residue)
      SELECT x.artifact_id, x.number, a.workspace_id, quire_search_document(a.title, a.description, c.body),
        ${residueOf(sql`a.title`, sql`a.description`, sql`x.residue`)}
      FROM unnest(${todo.map((r) => r.artifact_id)}::text[], ${todo.map((r) => r.number)}::int[], ${todo.map((r) => searchResidue(r.body))}::text[])
        AS x(artifact_id, number, residue)
      JOIN artifacts a ON a.id = x.artifact_id
      JOIN versions v ON v.artifact_id = x.artifact_id AND v.number = x.number
      JOIN contents c ON c.sha256 = v.content_sha256
      ON CONFLICT DO NOTHING`.execute(db)
    indexed += todo.length
    onProgress?.(indexed)
  }
}
