import { createHash } from 'node:crypto'
import type { PostgresCursor, PostgresPool, PostgresPoolClient } from 'kysely'
import type pg from 'pg'

/**
 * A pg pool whose clients run every parameterised statement as a named prepared statement.
 * PostgreSQL then parses and plans each distinct statement once per connection instead of on
 * every call: for Quire's one-round-trip reads (several joins) planning costs several times the
 * execution (measured: 1.1 ms planning against 0.16 ms execution). Statements without
 * parameters (DDL, BEGIN/COMMIT) run unnamed, as usual.
 */
const names = new Map<string, string>()

/**
 * The session setting that makes a prepared statement's one plan stick. By default PostgreSQL
 * plans the first five executions for their values, then keeps doing so for as long as its
 * estimate of the generic plan is dearer than theirs — for the one-statement read, whose arrays
 * of one element it estimates at ten rows, that is forever: measured on 2,000 artifacts, 455–655 µs
 * of PostgreSQL CPU per execution (replanning each time) against 100–160 µs with the generic plan,
 * which is the same nested loop of index scans (checked with 200,000 credentials and artifacts).
 * Quire's statements are keyed lookups and index-ordered pages whose cursors and optional filters
 * are separate statement texts (`pastCursor` in stores/paging.ts), so one generic plan is right for
 * every value; bench/scale checks that every read stays flat up to a million artifacts, and
 * test/paging-plans.test.ts the plan of each page. Behind a transaction-pooling proxy
 * nothing is prepared and nothing is set (DATABASE_PREPARED_STATEMENTS=false).
 */
export const genericPlans = 'SET plan_cache_mode = force_generic_plan'

/** A stable name per statement text (statements are few: they come from code, not input). */
export function statementName(text: string): string {
  let name = names.get(text)
  if (name === undefined) {
    name = `q_${createHash('sha1').update(text).digest('base64url')}`
    names.set(text, name)
  }
  return name
}

export function preparingPool(pool: pg.Pool): PostgresPool {
  function query(client: pg.PoolClient, textOrCursor: string | PostgresCursor<unknown>, parameters?: ReadonlyArray<unknown>): unknown {
    if (typeof textOrCursor !== 'string') return client.query(textOrCursor as never)
    if (!parameters || parameters.length === 0) return client.query(textOrCursor)
    return client.query({ name: statementName(textOrCursor), text: textOrCursor, values: parameters as unknown[] })
  }
  return {
    options: pool.options,
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect()
      return {
        processID: (client as unknown as { processID?: number }).processID,
        query: ((textOrCursor: string | PostgresCursor<unknown>, parameters?: ReadonlyArray<unknown>) =>
          query(client, textOrCursor, parameters)) as PostgresPoolClient['query'],
        release: (destroy?: boolean) => client.release(destroy),
      } as PostgresPoolClient
    },
    end: () => pool.end(),
  }
}
