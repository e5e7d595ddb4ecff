import { testDatabase, testEngine } from '@quire/testing/test-database'
import { CompiledQuery } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDatabase } from '../src/database.ts'
import { statementName } from '../src/prepared-pool.ts'
import { callerReadStatement } from '../src/stores/version-reads.ts'
import type { TestDatabase } from '../src/testing.ts'

const setting = "SELECT current_setting('plan_cache_mode') AS setting WHERE $1::int = 1"

// PostgreSQL's plan cache only: PGlite runs every statement unnamed, planned for its values.
describe.skipIf(testEngine !== 'postgres')('prepared statements on PostgreSQL', () => {
  let handle: TestDatabase
  beforeAll(async () => {
    handle = await testDatabase({ poolSize: 2 })
  })
  afterAll(async () => {
    await handle?.close()
  })

  it('are planned once per connection, generically: the one-statement read is never planned again', async () => {
    const plans = await handle.db.connection().execute(async (connection) => {
      // More than the five executions after which PostgreSQL would otherwise weigh custom plans against the generic one.
      for (let i = 0; i < 8; i++) await connection.executeQuery(CompiledQuery.raw(callerReadStatement, [[null], [`art_${i}`], [1]]))
      const { rows } = await connection.executeQuery<{ generic_plans: string; custom_plans: string }>(
        CompiledQuery.raw('SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = $1', [
          statementName(callerReadStatement),
        ]),
      )
      return rows[0]
    })
    expect(Number(plans?.generic_plans)).toBe(8)
    expect(Number(plans?.custom_plans)).toBe(0)
    expect(await handle.query<{ setting: string }>(setting, [1])).toEqual([{ setting: 'force_generic_plan' }])
  })

  it('leave the session alone behind a transaction-pooling proxy, where nothing is prepared', async () => {
    const unprepared = await openDatabase({ kind: 'postgres', url: handle.url ?? '', poolSize: 1, preparedStatements: false })
    try {
      expect(await unprepared.query<{ setting: string }>(setting, [1])).toEqual([{ setting: 'auto' }])
    } finally {
      await unprepared.close()
    }
  })
})
