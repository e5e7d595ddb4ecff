import type { RawQuery } from './database.ts'

/** A key's count in its current window, and the milliseconds until that window ends. */
export interface RateLimitCount {
  readonly current: number
  readonly ttl: number
}

type Callback = (error: Error | null, result?: RateLimitCount) => void

/** The store contract of `@fastify/rate-limit` (structurally; storage depends on no web framework). */
export interface RateLimitStore {
  /** Counts one hit for `key` and reports the window's count; a window of `timeWindow` ms starts when none is running. */
  incr(key: string, callback: Callback, timeWindow: number, max: number): void
  /** The current count without counting a hit. */
  read(key: string, callback: Callback, timeWindow: number, max: number): void
  /** The store for a route with its own limits (the plugin passes them, with `routeInfo`): the same table, keys of its own. */
  child(routeOptions: object): RateLimitStore
}

/**
 * What the plugin constructs with `new` (it passes its settings, which this store does not need);
 * `prefix` keeps another limit's keys apart in the same table.
 */
export type RateLimitStoreClass = new (settings?: unknown, prefix?: string) => RateLimitStore

/**
 * One statement per hit, atomic under any concurrency: the row lock of `ON CONFLICT DO UPDATE`
 * serialises hits on one key across every process, and the window restarts in the same statement
 * once it has ended. Time is the database's, so processes with skewed clocks agree.
 */
const countHit = `INSERT INTO rate_limits AS r (key, hits, resets_at)
  VALUES ($1, 1, now() + $2::integer * interval '1 millisecond')
  ON CONFLICT (key) DO UPDATE SET
    hits = CASE WHEN r.resets_at <= now() THEN 1 ELSE r.hits + 1 END,
    resets_at = CASE WHEN r.resets_at <= now() THEN EXCLUDED.resets_at ELSE r.resets_at END
  RETURNING hits, ceil(extract(epoch FROM r.resets_at - now()) * 1000)::integer AS ttl`

const readCount = `SELECT hits, ceil(extract(epoch FROM resets_at - now()) * 1000)::integer AS ttl
  FROM rate_limits WHERE key = $1 AND resets_at > now()`

/** Ended windows are deleted in batches, a batch every `pruneEvery` hits a process counts. */
const pruneEnded = `DELETE FROM rate_limits WHERE key IN (
  SELECT key FROM rate_limits WHERE resets_at < now() LIMIT 1000)`

interface Row {
  readonly hits: number
  readonly ttl: number
}

/**
 * A `@fastify/rate-limit` store over the `rate_limits` table, for several API processes on one
 * PostgreSQL: they enforce one limit per key instead of one each. Pass the returned class as the
 * plugin's `store` option.
 */
export function postgresRateLimitStore(
  database: { readonly query: RawQuery },
  options: { readonly pruneEvery?: number } = {},
): RateLimitStoreClass {
  const pruneEvery = options.pruneEvery ?? 1000
  let hitsSincePrune = 0

  const prune = () => {
    hitsSincePrune = 0
    // Best effort: an ended window left behind is restarted by the next hit on its key anyway.
    database.query(pruneEnded, []).catch(() => {})
  }

  class PostgresRateLimitStore implements RateLimitStore {
    readonly #prefix: string

    constructor(_settings?: unknown, prefix = '') {
      this.#prefix = prefix
    }

    incr(key: string, callback: Callback, timeWindow: number): void {
      if (++hitsSincePrune >= pruneEvery) prune()
      database.query<Row>(countHit, [this.#prefix + key, Math.max(1, Math.ceil(timeWindow))]).then(
        ([row]) =>
          row ? callback(null, { current: row.hits, ttl: Math.max(0, row.ttl) }) : callback(new Error('rate limit: no row counted')),
        (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
      )
    }

    read(key: string, callback: Callback): void {
      database.query<Row>(readCount, [this.#prefix + key]).then(
        ([row]) => callback(null, row ? { current: row.hits, ttl: Math.max(0, row.ttl) } : { current: 0, ttl: 0 }),
        (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
      )
    }

    child(routeOptions: object): RateLimitStore {
      const route = (routeOptions as { readonly routeInfo?: { readonly method?: unknown; readonly url?: unknown } }).routeInfo
      return new PostgresRateLimitStore(undefined, `${this.#prefix}${String(route?.method ?? '')}${String(route?.url ?? '')}-`)
    }
  }
  return PostgresRateLimitStore
}
