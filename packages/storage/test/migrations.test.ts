import { testDatabase, testEngine } from '@quire/testing/test-database'
import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { openDatabase } from '../src/database.ts'
import { migrateTo, migrateToLatest } from '../src/migrations/index.ts'

describe('migrations', () => {
  it.runIf(testEngine === 'postgres')(
    'processes starting at once migrate one at a time: one applies every migration, the others find nothing to do, and no lock is left',
    async () => {
      const empty = await testDatabase({ empty: true, poolSize: 1 })
      const handles = await Promise.all([1, 2, 3].map(() => openDatabase({ kind: 'postgres', url: empty.url as string, poolSize: 2 })))
      try {
        const applied = await Promise.all(handles.map((h) => migrateToLatest(h.db)))
        const sizes = applied.map((names) => names.length).sort((a, b) => a - b)
        expect(sizes.slice(0, 2)).toEqual([0, 0])
        expect(sizes[2]).toBeGreaterThanOrEqual(7)
        const rows = await empty.query<{ n: number }>('SELECT count(*)::int AS n FROM kysely_migration', [])
        expect(rows[0]?.n).toBe(sizes[2])
        const locks = await empty.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
          [],
        )
        expect(locks[0]?.n).toBe(0)
        // Once more, on a migrated database: nothing to apply.
        expect(await migrateToLatest(empty.db)).toEqual([])
      } finally {
        await Promise.all(handles.map((h) => h.close()))
        await empty.close()
      }
    },
  )

  it.runIf(testEngine === 'pglite')('a fresh embedded database migrates, and a second run applies nothing', async () => {
    const handle = await openDatabase({ kind: 'pglite' })
    try {
      const names = await migrateToLatest(handle.db)
      expect(names[0]).toBe('0001-foundation')
      expect(await migrateToLatest(handle.db)).toEqual([])
    } finally {
      await handle.close()
    }
  })

  it('0008 names the agents registered before names existed, and their tokens, as new ones are named', async () => {
    const empty = testEngine === 'postgres' ? await testDatabase({ empty: true, poolSize: 1 }) : null
    const handle = empty ?? (await openDatabase({ kind: 'pglite' }))
    try {
      expect((await migrateTo(handle.db, '0007-agent-auth')).at(-1)).toBe('0007-agent-auth')
      const at = new Date('2026-11-01T00:00:00Z')
      await sql`INSERT INTO agent_registrations (id, type, post_claim_scopes, claim_token_hash, claim_expires_at, poll_interval_seconds, created_at)
        VALUES ('agt_01jc0000000000000000007f3k', 'anonymous', '{artifacts:read}', ${'a'.repeat(64)}, ${at}, 5, ${at})`.execute(handle.db)
      await sql`INSERT INTO credentials (id, kind, secret_hash, display_prefix, agent_id, scopes, expires_at, created_at)
        VALUES ('tok_01jc00000000000000000000aa', 'agent', ${'b'.repeat(64)}, 'qgt_abcd', 'agt_01jc0000000000000000007f3k', '{artifacts:read}', ${at}, ${at})`.execute(
        handle.db,
      )
      expect(await migrateToLatest(handle.db)).toContain('0008-agent-names')
      const agent = await sql<{ name: string; description: string | null }>`SELECT name, description FROM agent_registrations`.execute(
        handle.db,
      )
      expect(agent.rows).toEqual([{ name: 'Agent 7f3k', description: null }])
      const token = await sql<{ name: string }>`SELECT name FROM credentials WHERE kind = 'agent'`.execute(handle.db)
      expect(token.rows).toEqual([{ name: 'Agent 7f3k' }])
      // The column holds the rule from now on: a name is 1 to 80 characters.
      await expect(sql`UPDATE agent_registrations SET name = ${'x'.repeat(81)}`.execute(handle.db)).rejects.toThrow()
    } finally {
      await handle.close()
    }
  })
  it('0010 indexes every version written before search existed, in batches', async () => {
    const empty = testEngine === 'postgres' ? await testDatabase({ empty: true, poolSize: 1 }) : null
    const handle = empty ?? (await openDatabase({ kind: 'pglite' }))
    try {
      expect((await migrateTo(handle.db, '0009-agent-scope-requests')).at(-1)).toBe('0009-agent-scope-requests')
      const at = new Date('2026-11-01T00:00:00Z')
      await sql`INSERT INTO workspaces (id, slug, kind, name, created_at) VALUES ('ws_1', 'ada', 'personal', 'Ada', ${at})`.execute(
        handle.db,
      )
      await sql`INSERT INTO projects (id, workspace_id, slug, title, icon, created_at, created_by_kind, created_by_id, created_by_label)
        VALUES ('prj_1', 'ws_1', 'notes', 'Notes', 'x', ${at}, 'user', 'u', 'ada')`.execute(handle.db)
      await sql`INSERT INTO contents (sha256, body, size, created_at) VALUES
        ('s1', 'First draft about pelicans and ERR_CONN_RESET.', 10, ${at}), ('s2', 'Now about flamingos.', 10, ${at})`.execute(handle.db)
      // 250 artifacts (more than one batch), two versions each.
      await sql`INSERT INTO artifacts (id, workspace_id, project_id, slug, type, title, latest_version, created_at, updated_at,
          created_by_kind, created_by_id, created_by_label)
        SELECT 'art_' || n, 'ws_1', 'prj_1', 'a' || n, 'md', 'Birds ' || n, 2, ${at}, ${at}, 'user', 'u', 'ada' FROM generate_series(1, 250) n`.execute(
        handle.db,
      )
      await sql`INSERT INTO versions (artifact_id, number, content_sha256, size, created_at, created_by_kind, created_by_id, created_by_label)
        SELECT 'art_' || n, v, CASE v WHEN 1 THEN 's1' ELSE 's2' END, 10, ${at}, 'user', 'u', 'ada'
        FROM generate_series(1, 250) n, generate_series(1, 2) v`.execute(handle.db)
      expect(await migrateToLatest(handle.db)).toContain('0010-search')
      const indexed = await sql<{ n: number; pelicans: number; flamingos: number; residue: number }>`SELECT count(*)::int AS n,
          count(*) FILTER (WHERE document @@ websearch_to_tsquery('english', 'pelican'))::int AS pelicans,
          count(*) FILTER (WHERE number = 2 AND document @@ websearch_to_tsquery('english', 'flamingo birds'))::int AS flamingos,
          count(*) FILTER (WHERE residue LIKE '%ERR_CONN_RESET%')::int AS residue
        FROM search_versions`.execute(handle.db)
      expect(indexed.rows).toEqual([{ n: 500, pelicans: 250, flamingos: 250, residue: 250 }])
    } finally {
      await handle.close()
    }
  })
})
