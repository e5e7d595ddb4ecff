import { type Kysely, sql } from 'kysely'
import { indexUnindexedVersions } from '../search-index.ts'

/**
 * Search (issue 32): one index row per version, written in the transaction of the version.
 *
 * - `quire_search_document(title, description, content)`: the words of a version, weighted title
 *   (A) above description (B) above content (C), in the `english` configuration. Content is
 *   bounded to its first 200,000 characters: a tsvector cannot exceed 1 MB, and positions stop at
 *   16,383 anyway. One function, so that writes, the backfill and a bulk load index alike.
 * - `search_versions`: the row of each version (`document` under GIN for full text; `residue`,
 *   what full text does not split well, under a trigram GIN for substring search). The head,
 *   deletion and access are read from `artifacts` by each search, so they are never stale here.
 * - `artifacts_by_viewer_email`: the artifacts shared with an email, for the searches of the
 *   people on allowlists (`viewer_emails @> ARRAY[email]`).
 * - `pg_trgm` is a trusted extension (PostgreSQL 13+): the database owner may create it. PGlite
 *   loads it at start (storage's `openDatabase`).
 */
const statements = [
  `CREATE EXTENSION IF NOT EXISTS pg_trgm`,
  `CREATE FUNCTION quire_search_document(title text, description text, content text) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN setweight(to_tsvector('english'::regconfig, title), 'A')
      || setweight(to_tsvector('english'::regconfig, description), 'B')
      || setweight(to_tsvector('english'::regconfig, left(content, 200000)), 'C')`,
  `CREATE TABLE search_versions (
    artifact_id text COLLATE "C" NOT NULL,
    number integer NOT NULL,
    workspace_id text COLLATE "C" NOT NULL,
    document tsvector NOT NULL,
    residue text COLLATE "C" NOT NULL,
    PRIMARY KEY (artifact_id, number)
  )`,
  `CREATE INDEX search_versions_document ON search_versions USING gin (document)`,
  `CREATE INDEX search_versions_residue ON search_versions USING gin (residue gin_trgm_ops)`,
  `CREATE INDEX search_versions_by_workspace ON search_versions (workspace_id)`,
  `CREATE INDEX artifacts_by_viewer_email ON artifacts USING gin (viewer_emails) WHERE deleted_at IS NULL`,
]

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db)
  await indexUnindexedVersions(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw('DROP INDEX artifacts_by_viewer_email').execute(db)
  await sql.raw('DROP TABLE search_versions').execute(db)
  await sql.raw('DROP FUNCTION quire_search_document(text, text, text)').execute(db)
}
