import type { Plan } from '../contract/schemas/account.ts'

/** How many days of audit history each plan keeps (SPEC "Limits"). */
export const auditRetentionDays: Readonly<Record<Plan, number>> = Object.freeze({ free: 7, pro: 90, team: 365 })

/**
 * What audit reads and the pruner need to apply retention: the present moment (the injected
 * clock's, so tests move the clock, not the calendar) and the days each plan keeps. An event
 * outside its workspace's plan's window is never returned, and the pruner deletes it.
 */
export interface Retention {
  readonly now: Date
  readonly days: Readonly<Record<Plan, number>>
}

export function retentionAt(now: Date): Retention {
  return { now, days: auditRetentionDays }
}
