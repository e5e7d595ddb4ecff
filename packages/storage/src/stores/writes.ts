import type { IdempotencyDraft } from '@quire/core'
import { type RawBuilder, sql } from 'kysely'

/**
 * The idempotency record, written by the same statement as the change when `source` produced a
 * row, so that a retry replays exactly what was committed. Nothing when no key was sent.
 */
export function idempotencyFrom(source: string, draft: IdempotencyDraft | null): RawBuilder<unknown> | null {
  if (draft === null) return null
  return sql`INSERT INTO idempotency_keys (scope, key, request_hash, status, response, created_at)
    SELECT ${draft.scope}::text, ${draft.key}::text, ${draft.requestHash}::text, ${draft.status}::int, ${JSON.stringify(draft.response)}::jsonb,
      ${draft.at}::timestamptz FROM ${sql.table(source)}`
}

/** Joins data-modifying CTEs: `WITH a AS (…), b AS (…)`; null entries are skipped. */
export function withClauses(clauses: ReadonlyArray<readonly [string, RawBuilder<unknown> | null]>): RawBuilder<unknown> {
  const parts = clauses
    .filter((c): c is readonly [string, RawBuilder<unknown>] => c[1] !== null)
    .map(([name, q]) => sql`${sql.id(name)} AS (${q})`)
  return sql`WITH ${sql.join(parts, sql`, `)}`
}
