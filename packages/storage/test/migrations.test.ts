import { testDatabase, testEngine } from '@quire/testing/test-database'
import { describe, expect, it } from 'vitest'
import { openDatabase } from '../src/database.ts'
import { migrateToLatest } from '../src/migrations/index.ts'

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
})
