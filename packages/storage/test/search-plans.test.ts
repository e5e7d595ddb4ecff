import type { PGlite } from '@electric-sql/pglite'
import { issueOperatorToken, parseSearchQuery, type SearchRequest } from '@quire/core'
import { testEngine } from '@quire/testing/test-database'
import { Kysely, type LogEvent, PostgresDialect, sql } from 'kysely'
import { PGliteDialect } from 'kysely-pglite-dialect'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createStores, type Database, queryThrough } from '../src/index.ts'
import type { TestDatabase } from '../src/testing.ts'
import { type Deps, openStores } from './fixtures.ts'

/**
 * The plan of a search, as the store sends it (planned for its values), over 4,000 indexed
 * versions of 40 workspaces, the caller a member of one: the index finds the matches (full text
 * through `search_versions_document`, substrings through `search_versions_residue`), and only the
 * caller's candidates are ranked, never the table.
 */
let handle: TestDatabase
let deps: Deps
let spy: Kysely<Database>
let sent: { sql: string; parameters: readonly unknown[] }[] = []
let me: { id: string; email: string }

interface PlanNode {
  'Node Type': string
  'Relation Name'?: string
  'Index Name'?: string
  'Actual Rows': number
  'Actual Loops': number
  'Rows Removed by Filter'?: number
  Plans?: PlanNode[]
}
const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)]

beforeAll(async () => {
  ;({ handle, deps } = await openStores())
  const log = (event: LogEvent) => {
    if (event.level === 'query') sent.push({ sql: event.query.sql, parameters: event.query.parameters })
  }
  spy =
    handle.kind === 'postgres'
      ? new Kysely<Database>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: handle.url ?? '', max: 1 }) }), log })
      : new Kysely<Database>({ dialect: new PGliteDialect(handle.pglite as PGlite), log })
  const token = await issueOperatorToken(deps, { email: 'searcher@example.com' })
  me = { id: token.user.id, email: 'searcher@example.com' }
  const { db } = handle
  await sql`INSERT INTO workspaces (id, slug, kind, name, created_at)
    SELECT 'ws_plan' || w, 'plan-' || w, 'team', 'Plan ' || w, now() FROM generate_series(1, 40) w`.execute(db)
  await sql`INSERT INTO memberships (workspace_id, user_id, role, created_at) VALUES ('ws_plan1', ${me.id}, 'member', now())`.execute(db)
  await sql`INSERT INTO projects (id, workspace_id, slug, title, icon, created_at, created_by_kind, created_by_id, created_by_label)
    SELECT 'prj_plan' || w, 'ws_plan' || w, 'p', 'P', 'p', now(), 'user', 'u', 'u' FROM generate_series(1, 40) w`.execute(db)
  // Every document holds "common"; one in 400 holds "zyxrare"; each has an identifier of its own.
  await sql`CREATE TEMP TABLE plan_docs AS
    SELECT n, 1 + n % 40 AS w, 'art_plan' || lpad(n::text, 22, '0') AS id,
      'Common notes ' || md5(n::text) || ' ' || md5((n + 1)::text) || CASE WHEN n % 400 = 0 THEN ' zyxrare' ELSE '' END
        || ' ident_' || n AS body
    FROM generate_series(1, 4000) n`.execute(db)
  await sql`INSERT INTO contents (sha256, body, size, created_at) SELECT 'sha_plan' || n, body, length(body), now() FROM plan_docs`.execute(
    db,
  )
  await sql`INSERT INTO artifacts (id, workspace_id, project_id, slug, type, title, latest_version, created_at, updated_at,
      created_by_kind, created_by_id, created_by_label)
    SELECT id, 'ws_plan' || w, 'prj_plan' || w, 'a' || n, 'md', 'Note ' || n, 1, now(), now(), 'user', 'u', 'u' FROM plan_docs`.execute(db)
  await sql`INSERT INTO versions (artifact_id, number, content_sha256, size, created_at, created_by_kind, created_by_id, created_by_label)
    SELECT id, 1, 'sha_plan' || n, length(body), now(), 'user', 'u', 'u' FROM plan_docs`.execute(db)
  await sql`INSERT INTO search_versions (artifact_id, number, workspace_id, document, residue)
    SELECT id, 1, 'ws_plan' || w, quire_search_document('Note ' || n, '', body), 'ident_' || n FROM plan_docs`.execute(db)
  // As autovacuum leaves a table: statistics read, GIN pending lists merged.
  await sql`VACUUM ANALYZE`.execute(db)
}, 120_000)
afterAll(async () => {
  if (handle.kind === 'postgres') await spy.destroy()
  await handle.close()
})

/** The statement a search sends, run with EXPLAIN ANALYZE for its own values: the plan's nodes. */
async function searchPlan(q: string): Promise<PlanNode[]> {
  const plan = parseSearchQuery(q)
  if (!plan.ok) throw new Error(plan.error.message)
  const request: SearchRequest = { userId: me.id, viewerEmail: me.email, plan: plan.value, allVersions: false, limit: 20, after: null }
  sent = []
  await createStores({ db: spy, query: queryThrough(spy) }).search.find(request)
  expect(sent).toHaveLength(1)
  const [statement] = sent
  if (!statement) throw new Error('no statement sent')
  let text = statement.sql
  // Values in place of parameters, from the last ($10 before $1).
  for (let i = statement.parameters.length; i >= 1; i--) {
    const value = statement.parameters[i - 1]
    const literal = sql.lit(value instanceof Date ? value.toISOString() : value).compile(handle.db).sql
    text = text.replaceAll(`$${i}`, literal)
  }
  const { rows } = await sql<{ 'QUERY PLAN': unknown }>`EXPLAIN (ANALYZE, FORMAT JSON) ${sql.raw(text)}`.execute(handle.db)
  const cell = rows[0]?.['QUERY PLAN']
  const parsed = (typeof cell === 'string' ? JSON.parse(cell) : cell) as [{ Plan: PlanNode }]
  return nodes(parsed[0].Plan)
}

const scansOf = (plan: PlanNode[], table: string) => plan.filter((n) => n['Relation Name'] === table && n['Node Type'] === 'Seq Scan')
const indexesUsed = (plan: PlanNode[]) => new Set(plan.flatMap((n) => (n['Index Name'] ? [n['Index Name']] : [])))

describe(`the plan of a search (${testEngine})`, () => {
  it('finds a rare word through the full-text index, not by reading the table', async () => {
    const plan = await searchPlan('zyxrare')
    expect(scansOf(plan, 'search_versions')).toEqual([])
    expect(indexesUsed(plan)).toContain('search_versions_document')
  })

  it('finds an identifier through the trigram index', async () => {
    const plan = await searchPlan('ident_1201')
    expect(scansOf(plan, 'search_versions')).toEqual([])
    expect(indexesUsed(plan)).toContain('search_versions_residue')
  })

  it("ranks only the caller's matches when a word is everywhere: a hundred, not four thousand", async () => {
    const plan = await searchPlan('common')
    expect(scansOf(plan, 'search_versions')).toEqual([])
    // What is read of the index and ranked is the caller's workspace's share (how the planner
    // joins a table of 4,000 artifacts to it is its own choice).
    const rows = (table: string) =>
      plan.filter((n) => n['Relation Name'] === table).reduce((sum, n) => sum + n['Actual Rows'] * n['Actual Loops'], 0)
    expect(rows('search_versions')).toBeGreaterThanOrEqual(100)
    expect(rows('search_versions')).toBeLessThanOrEqual(200)
    const ranked = plan.find((n) => n['Node Type'] === 'Append')
    expect(ranked?.['Actual Rows']).toBe(100)
  })
})
