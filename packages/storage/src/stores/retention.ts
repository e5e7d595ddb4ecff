import type { Retention } from '@quire/core'
import { type RawBuilder, sql } from 'kysely'

const DAY_MS = 86_400_000

/** Where each plan's window starts: `days` whole 24-hour days before `now`. */
function windowStarts(retention: Retention): Array<readonly [plan: string, start: Date]> {
  const now = retention.now.getTime()
  return Object.entries(retention.days).map(([plan, days]) => [plan, new Date(now - days * DAY_MS)] as const)
}

/**
 * The start of the retention window of `plan` (an SQL expression), as an SQL expression. The
 * days come from the caller as parameters (as the window starts they give), so the policy lives
 * in core alone. A plan without an entry gets NULL, which no comparison satisfies: its events
 * are neither read nor pruned (a `Record<Plan, number>` has an entry for every plan).
 */
export function windowStart(retention: Retention, plan: RawBuilder<unknown>): RawBuilder<unknown> {
  const arms = windowStarts(retention).map(([p, start]) => sql`WHEN ${p}::text THEN ${start}::timestamptz`)
  return sql`(CASE ${plan} ${sql.join(arms, sql` `)} END)`
}

/** The latest window start of all plans: nothing after it is ever past retention. */
export function latestWindowStart(retention: Retention): Date {
  return new Date(Math.max(...windowStarts(retention).map(([, start]) => start.getTime())))
}

/** The plan an event is kept by: its workspace's, and `free` for events of no (known) workspace. */
export function planOfEvent(event: string): RawBuilder<unknown> {
  return sql`COALESCE((SELECT w.plan FROM workspaces w WHERE w.id = ${sql.ref(`${event}.workspace_id`)}), 'free')`
}

/** The event (alias `event`) is within its workspace plan's retention at `retention.now`. */
export function retained(retention: Retention, event: string): RawBuilder<boolean> {
  return sql<boolean>`${sql.ref(`${event}.at`)} >= ${windowStart(retention, planOfEvent(event))}`
}
