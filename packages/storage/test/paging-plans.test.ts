import type { PGlite } from '@electric-sql/pglite'
import { createArtifact, createProject, issueOperatorToken, retentionAt, sha256Hex } from '@quire/core'
import { testEngine } from '@quire/testing/test-database'
import { Kysely, type LogEvent, PostgresDialect, sql } from 'kysely'
import { PGliteDialect } from 'kysely-pglite-dialect'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createStores, type Database, queryThrough } from '../src/index.ts'
import type { TestDatabase } from '../src/testing.ts'
import { type Deps, openStores, writeLongHistory } from './fixtures.ts'

/**
 * The plans of the paged reads as a long-lived connection keeps them: every statement runs
 * prepared, and PostgreSQL soon plans it once for any parameters (the generic plan). Each test
 * takes the statement a store really sends, prepares it, forces the generic plan and reads
 * EXPLAIN ANALYZE: a page must be an index range, whatever the table holds besides.
 */
let handle: TestDatabase
let deps: Deps
let spy: Kysely<Database>
let sent: { sql: string; parameters: readonly unknown[] }[] = []

beforeAll(async () => {
  ;({ handle, deps } = await openStores())
  const log = (event: LogEvent) => {
    if (event.level === 'query') sent.push({ sql: event.query.sql, parameters: event.query.parameters })
  }
  spy =
    handle.kind === 'postgres'
      ? new Kysely<Database>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: handle.url ?? '', max: 1 }) }), log })
      : new Kysely<Database>({ dialect: new PGliteDialect(handle.pglite as PGlite), log })
})
afterAll(async () => {
  if (handle.kind === 'postgres') await spy.destroy()
  await handle.close()
})

interface PlanNode {
  'Node Type': string
  'Relation Name'?: string
  'Index Name'?: string
  'Index Cond'?: string
  'Actual Rows': number
  'Actual Loops': number
  'Rows Removed by Filter'?: number
  Plans?: PlanNode[]
}
const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)]

/** The one statement `read` sends through the stores, run under its generic plan with EXPLAIN ANALYZE: the plan's nodes. */
async function genericPlan(read: (stores: ReturnType<typeof createStores>) => Promise<unknown>): Promise<PlanNode[]> {
  sent = []
  await read(createStores({ db: spy, query: queryThrough(spy) }))
  expect(sent).toHaveLength(1)
  const [statement] = sent
  if (!statement) throw new Error('no statement sent')
  const values = sql.join(statement.parameters.map((p) => sql.lit(p instanceof Date ? p.toISOString() : p)))
  return handle.db.connection().execute(async (db) => {
    await sql.raw(`PREPARE paged AS ${statement.sql}`).execute(db)
    await sql`SET plan_cache_mode = force_generic_plan`.execute(db)
    try {
      const { rows } = await sql<{ 'QUERY PLAN': unknown }>`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE paged(${values})`.execute(db)
      const cell = rows[0]?.['QUERY PLAN']
      const plan = (typeof cell === 'string' ? JSON.parse(cell) : cell) as [{ Plan: PlanNode }]
      return nodes(plan[0].Plan)
    } finally {
      await sql`RESET plan_cache_mode`.execute(db)
      await sql`DEALLOCATE paged`.execute(db)
    }
  })
}

/** Rows a plan read from `table`, over every loop. */
const rowsRead = (plan: PlanNode[], table: string) =>
  plan
    .filter((n) => n['Relation Name'] === table)
    .reduce((sum, n) => sum + n['Actual Rows'] * n['Actual Loops'] + (n['Rows Removed by Filter'] ?? 0), 0)

async function person(slug: string) {
  const token = await issueOperatorToken(deps, { email: `${slug}-${Math.random().toString(36).slice(2, 8)}@example.com` })
  const caller = { credential: { secretHash: await sha256Hex(token.secret) }, surface: 'api' as const }
  const project = await createProject(deps, caller, { ownerUsername: token.user.username, slug, title: slug, icon: 'p' })
  if (!project.ok) throw new Error(project.error.message)
  const make = async (artifactSlug: string) => {
    const made = await createArtifact(deps, caller, {
      ownerUsername: token.user.username,
      projectSlug: slug,
      slug: artifactSlug,
      type: 'md',
      title: artifactSlug,
      content: `${artifactSlug}\n`,
      changelog: '',
      access: { publicView: false, publicEdit: false },
    })
    if (!made.ok) throw new Error(made.error.message)
    return made.value.value.id
  }
  return { user: token.user, make }
}

describe(`paged reads under their generic plan (${testEngine})`, () => {
  it('reads a deep page of a version list from the cursor on, not through every newer version', async () => {
    const owner = await person('versions')
    const artifactId = await owner.make('long')
    await writeLongHistory(handle, artifactId, 10_000)

    const page = await deps.artifacts.listVersions(artifactId, { limit: 20, after: '2000' })
    expect(page.map((v) => v.number)).toEqual(Array.from({ length: 21 }, (_, i) => 1999 - i))
    const plan = await genericPlan((stores) => stores.artifacts.listVersions(artifactId, { limit: 20, after: '2000' }))
    const scans = plan.filter((n) => n['Relation Name'] === 'versions')
    expect(scans).toHaveLength(1)
    // The cursor bounds the index scan: 21 entries read, not the 8,000 newer ones filtered away.
    expect(scans[0]?.['Index Cond']).toMatch(/number < /)
    expect(rowsRead(plan, 'versions')).toBe(21)
  })

  it.each([
    [2, 'few other owners', '7a'],
    [100, 'many other owners', '7b'],
  ])(
    "reads a person's artifacts from their workspaces' index, however many artifacts of %i newer workspaces there are (%s)",
    async (others, _, at) => {
      const key = (prefix: string, n: string) => sql.raw(`'${prefix}_${at}' || lpad(to_hex(${n}), 24, '0')`)
      const reader = await person('mine')
      const mine = [await reader.make('a'), await reader.make('b'), await reader.make('c')]
      // 5,000 artifacts of other workspaces, every one newer than the reader's (their ids sort after).
      const other = await person('theirs')
      const theirs = await other.make('seed')
      await sql`INSERT INTO workspaces (id, slug, kind, name, plan, created_at)
      SELECT ${key('wsp', 'n')}, ${sql.raw(`'team-${at}-'`)} || n, 'team', 'Team ' || n, 'free', now() FROM generate_series(1, ${others}::int) AS n`.execute(
        handle.db,
      )
      await sql`INSERT INTO projects (id, workspace_id, slug, title, description, icon, created_at, created_by_kind, created_by_id, created_by_label)
      SELECT ${key('prj', 'n')}, ${key('wsp', 'n')}, 'p', 'P', '', 'p', now(), 'operator', 'o', 'o'
      FROM generate_series(1, ${others}::int) AS n`.execute(handle.db)
      await sql`INSERT INTO artifacts (id, workspace_id, project_id, slug, type, title, description, public_view, public_edit,
        viewer_emails, latest_version, created_at, updated_at, deleted_at, created_by_kind, created_by_id, created_by_label)
      SELECT ${key('art', 'n')}, ${key('wsp', `n % ${others} + 1`)}, ${key('prj', `n % ${others} + 1`)},
        'x' || n, a.type, a.title, a.description, false, false, a.viewer_emails, 1, a.created_at, a.updated_at, NULL,
        a.created_by_kind, a.created_by_id, a.created_by_label
      FROM generate_series(1, 5000) AS n, (SELECT * FROM artifacts WHERE id = ${theirs}) AS a`.execute(handle.db)
      await sql`ANALYZE`.execute(handle.db)

      const first = await deps.artifacts.listForUser(reader.user.id, { limit: 2, after: null })
      expect(first.map((a) => a.id)).toEqual([...mine].reverse())
      const rest = await deps.artifacts.listForUser(reader.user.id, { limit: 2, after: mine[1] as string })
      expect(rest.map((a) => a.id)).toEqual([mine[0]])
      for (const after of [null, mine[2] as string]) {
        const plan = await genericPlan((stores) => stores.artifacts.listForUser(reader.user.id, { limit: 2, after }))
        // One workspace: at most a page and one (3) of its artifacts read, none of the others' 5,000.
        expect(rowsRead(plan, 'artifacts')).toBeLessThanOrEqual(3)
        expect(plan.some((n) => n['Index Name'] === 'artifacts_by_workspace')).toBe(true)
      }
      // The reader's workspace listed alone (its page, its project's page) reads only its own artifacts too.
      const { rows } = await sql<{ workspace_id: string; project_id: string }>`SELECT workspace_id, project_id FROM artifacts
        WHERE id = ${mine[0]}`.execute(handle.db)
      const workspace = { workspaceId: rows[0]?.workspace_id ?? '' }
      const project = { ...workspace, projectId: rows[0]?.project_id ?? '' }
      for (const scope of [workspace, project]) {
        const page = await deps.artifacts.listForWorkspace(scope, { limit: 2, after: null })
        expect(page.map((a) => a.id)).toEqual([...mine].reverse())
        for (const after of [null, mine[2] as string]) {
          const plan = await genericPlan((stores) => stores.artifacts.listForWorkspace(scope, { limit: 2, after }))
          expect(rowsRead(plan, 'artifacts')).toBeLessThanOrEqual(3)
        }
      }
    },
  )

  it('bounds every other keyset page by its cursor in the generic plan', async () => {
    const reader = await person('audit')
    const artifactId = await reader.make('trail')
    await sql`INSERT INTO audit_events (id, at, action, actor_kind, actor_id, actor_label, via_surface, workspace_id, artifact_id, data)
      SELECT 'evt_0' || lpad(to_hex(n), 25, '0'), now(), 'artifact.version_created', 'operator', 'o', 'o', 'operator',
        a.workspace_id, a.id, '{}'
      FROM generate_series(1, 5000) AS n, (SELECT * FROM artifacts WHERE id = ${artifactId}) AS a`.execute(handle.db)
    await sql`ANALYZE audit_events`.execute(handle.db)
    const after = `evt_0${(2000).toString(16).padStart(25, '0')}`
    const plan = await genericPlan((stores) => stores.audit.listForArtifact(artifactId, { limit: 10, after }, retentionAt(new Date())))
    const scans = plan.filter((n) => n['Relation Name'] === 'audit_events')
    expect(scans[0]?.['Index Cond']).toMatch(/id < /)
    expect(rowsRead(plan, 'audit_events')).toBeLessThanOrEqual(11)
  })
})
