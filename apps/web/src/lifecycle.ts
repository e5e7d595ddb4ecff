import type { FastifyBaseLogger, FastifyInstance } from 'fastify'

export interface ShutdownPlan {
  /** Servers to drain: they stop accepting, finish the requests in flight, then close. */
  readonly apps: readonly FastifyInstance[]
  /** Background work to stop while the servers drain (an audit-pruning run ends first). */
  readonly stopping?: readonly (() => Promise<void>)[]
  /** After the servers have closed: the operator socket, then the database. */
  readonly afterClose: () => Promise<void>
  readonly timeoutMs: number
  readonly log: FastifyBaseLogger
}

/**
 * SIGTERM/SIGINT: every server stops accepting connections and lets its requests in flight
 * finish, then the rest closes and the process exits 0. Requests still running after `timeoutMs`
 * are cut off, and the exit code is 1. (The API's own main.ts does the same for one server.)
 */
export function closeOnSignals(plan: ShutdownPlan): void {
  let closing = false
  async function shutdown(signal: string): Promise<void> {
    if (closing) return
    closing = true
    plan.log.info({ signal, timeoutMs: plan.timeoutMs }, 'shutting down: finishing in-flight requests')
    let cutOff = false
    const deadline = setTimeout(() => {
      cutOff = true
      plan.log.error({ timeoutMs: plan.timeoutMs }, 'shutdown timed out: closing the connections still open')
      for (const app of plan.apps) app.server.closeAllConnections()
      // Whatever still hangs after that (the database, say) does not keep the process alive.
      setTimeout(() => process.exit(1), 2_000).unref()
    }, plan.timeoutMs)
    await Promise.all([...plan.apps.map((app) => app.close()), ...(plan.stopping ?? []).map((stop) => stop())])
    clearTimeout(deadline)
    await plan.afterClose()
    process.exit(cutOff ? 1 : 0)
  }
  process.on('SIGINT', () => void shutdown('SIGINT'))
  process.on('SIGTERM', () => void shutdown('SIGTERM'))
}

/**
 * Listens, or ends the start with one line naming the setting when the port is taken (another
 * Quire, say), instead of a stack trace. `close` releases what was opened (the database).
 */
export async function listenOrExit(
  app: FastifyInstance,
  where: { port: number; host: string; setting: string },
  close: () => Promise<void>,
): Promise<void> {
  try {
    await app.listen({ port: where.port, host: where.host })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error
    process.stderr.write(
      `${where.host}:${where.port} is in use (${where.setting}): stop what listens there, or set ${where.setting} to another port.\n`,
    )
    await close().catch(() => {})
    process.exit(1)
  }
}
