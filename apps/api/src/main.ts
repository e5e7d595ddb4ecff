import { edgeOptions } from '@quire/http-edge'
import { buildApp } from '@quire/rest'
import { operatorSocketPath, startAuditPruning, startOperatorSocket, startRuntime } from '@quire/runtime'
import { readEnv } from './env.ts'

const env = readEnv()
const runtime = await startRuntime(env, { deliverWebhooks: true })
const app = await buildApp(runtime, {
  logger: { level: env.LOG_LEVEL },
  logRequests: env.LOG_REQUESTS,
  serverUrl: runtime.deps.config.apiUrl,
  eventsHeartbeatSeconds: env.EVENTS_HEARTBEAT_SECONDS,
  ...edgeOptions(env),
})

// On the embedded database, operator commands (`pnpm admin`) reach the database through us.
const operator = runtime.database.kind === 'pglite' ? await startOperatorSocket(runtime, operatorSocketPath(env)) : null

// Audit events past their plan's retention are deleted hourly by default (every process may try;
// one prunes at a time).
const pruning =
  env.AUDIT_PRUNE_INTERVAL_MS > 0 ? startAuditPruning(runtime, { intervalMs: env.AUDIT_PRUNE_INTERVAL_MS, log: app.log }) : null

/**
 * SIGTERM/SIGINT: stop accepting connections, let the requests in flight finish (each answered
 * with `Connection: close`), then close the database and exit 0. Requests still running after
 * SHUTDOWN_TIMEOUT_MS are cut off, and the exit code is 1.
 */
let closing = false
async function shutdown(signal: string): Promise<void> {
  if (closing) return
  closing = true
  app.log.info({ signal, timeoutMs: env.SHUTDOWN_TIMEOUT_MS }, 'shutting down: finishing in-flight requests')
  let cutOff = false
  const deadline = setTimeout(() => {
    cutOff = true
    app.log.error({ timeoutMs: env.SHUTDOWN_TIMEOUT_MS }, 'shutdown timed out: closing the connections still open')
    app.server.closeAllConnections()
    // Whatever still hangs after that (the database, say) does not keep the process alive.
    setTimeout(() => process.exit(1), 2_000).unref()
  }, env.SHUTDOWN_TIMEOUT_MS)
  // No pruning run starts any more; one in progress ends before the database closes.
  await Promise.all([app.close(), pruning?.stop()])
  clearTimeout(deadline)
  await operator?.close()
  await runtime.close()
  process.exit(cutOff ? 1 : 0)
}
process.on('SIGINT', () => void shutdown('SIGINT'))
process.on('SIGTERM', () => void shutdown('SIGTERM'))

await app.listen({ port: env.API_PORT, host: env.API_HOST })
const where = runtime.database.kind === 'postgres' ? 'PostgreSQL' : `embedded PGlite in ${env.QUIRE_DATA_DIR}`
app.log.info(`Quire API on http://${env.API_HOST}:${env.API_PORT} (database: ${where}); docs at /docs`)
