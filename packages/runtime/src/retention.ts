import { expireIdempotencyRecords, pruneAuditEvents } from '@quire/core'
import type { Runtime } from './container.ts'

/** The few logger methods the schedule writes with (Fastify's pino logger has them). */
export interface PruneLog {
  info(details: object, message: string): void
  debug(details: object, message: string): void
  error(details: object, message: string): void
}

export interface AuditPruning {
  /** No run starts after this; resolves once a run in progress has ended. */
  stop(): Promise<void>
}

/**
 * Deletes what is past its retention: the audit events past their plan's, and the idempotency
 * records past their window (a day). Once shortly after start (`firstRunMs`,
 * at most `intervalMs`) and then `intervalMs` after each run ends, so runs never overlap in this
 * process; across processes the pruner's advisory lock lets one run at a time. A failed run is
 * logged and the schedule goes on. The timers are unref'd: they never keep the process alive.
 */
export function startAuditPruning(
  runtime: Pick<Runtime, 'operator'>,
  options: { intervalMs: number; log: PruneLog; firstRunMs?: number },
): AuditPruning {
  const { intervalMs, log } = options
  let stopped = false
  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> | null = null

  async function run(): Promise<void> {
    const started = performance.now()
    try {
      const { pruned, skipped } = await pruneAuditEvents(runtime.operator)
      const details = { pruned, skipped, ms: Math.round(performance.now() - started) }
      if (pruned > 0) log.info(details, 'audit retention: pruned old events')
      else log.debug(details, skipped ? 'audit retention: another process is pruning' : 'audit retention: nothing to prune')
    } catch (error) {
      log.error({ err: error }, 'audit retention: pruning failed; trying again at the next interval')
    }
    try {
      const expired = await expireIdempotencyRecords(runtime.operator)
      if (expired > 0) log.info({ expired }, 'idempotency: expired records past the window')
    } catch (error) {
      log.error({ err: error }, 'idempotency: expiring records failed; trying again at the next interval')
    }
  }

  function schedule(delayMs: number): void {
    timer = setTimeout(() => {
      running = run().finally(() => {
        running = null
        if (!stopped) schedule(intervalMs)
      })
    }, delayMs)
    timer.unref()
  }

  schedule(Math.min(options.firstRunMs ?? 10_000, intervalMs))
  return {
    async stop() {
      stopped = true
      clearTimeout(timer)
      await running
    },
  }
}
