import { edgeOptions } from '@quire/http-edge'
import { buildApp } from '@quire/rest'
import { operatorSocketPath, settingsOrExit, startAuditPruning, startOperatorSocket, startRuntime } from '@quire/runtime'
import { buildWebApp } from '@quire/site'
import { readServerEnv } from './env.ts'
import { closeOnSignals } from './lifecycle.ts'
import { serverWebAppOptions } from './options.ts'
import { sessionSecretOf } from './session-secret.ts'

/**
 * `pnpm start`: the API (API_PORT, 3000) and the web app (WEB_PORT, 3001) in one process on one
 * runtime, because the embedded database belongs to one process. On PostgreSQL the two also run
 * apart (apps/api/src/main.ts and apps/web/src/main.ts), as many of each as needed.
 */
const { runtime: apiEnv, web: webEnv } = settingsOrExit(() => readServerEnv())
const runtime = await startRuntime(apiEnv, { deliverWebhooks: true })

// The API's public address is the runtime's (the audience its tokens are bound to), said once.
const apiUrl = runtime.deps.config.apiUrl
let api: Awaited<ReturnType<typeof buildApp>>
let web: Awaited<ReturnType<typeof buildWebApp>>
try {
  api = await buildApp(runtime, {
    logger: { level: apiEnv.LOG_LEVEL },
    logRequests: apiEnv.LOG_REQUESTS,
    serverUrl: apiUrl,
    eventsHeartbeatSeconds: apiEnv.EVENTS_HEARTBEAT_SECONDS,
    ...edgeOptions(apiEnv),
  })
  web = await buildWebApp(runtime, { ...serverWebAppOptions(webEnv, apiEnv, sessionSecretOf(webEnv)), apiUrl: webEnv.API_URL ?? apiUrl })
} catch (error) {
  // A refused configuration (the development provider in production, say) still releases the database.
  await runtime.close()
  throw error
}

// On the embedded database, operator commands (`pnpm admin`) reach the database through us.
const operator = runtime.database.kind === 'pglite' ? await startOperatorSocket(runtime, operatorSocketPath(apiEnv)) : null
const pruning =
  apiEnv.AUDIT_PRUNE_INTERVAL_MS > 0 ? startAuditPruning(runtime, { intervalMs: apiEnv.AUDIT_PRUNE_INTERVAL_MS, log: api.log }) : null

closeOnSignals({
  apps: [api, web],
  stopping: pruning ? [() => pruning.stop()] : [],
  afterClose: async () => {
    await operator?.close()
    await runtime.close()
  },
  timeoutMs: apiEnv.SHUTDOWN_TIMEOUT_MS,
  log: api.log,
})

await api.listen({ port: apiEnv.API_PORT, host: apiEnv.API_HOST })
await web.listen({ port: webEnv.WEB_PORT, host: webEnv.WEB_HOST })
const where = runtime.database.kind === 'postgres' ? 'PostgreSQL' : `embedded PGlite in ${apiEnv.QUIRE_DATA_DIR}`
api.log.info(`Quire API on http://${apiEnv.API_HOST}:${apiEnv.API_PORT} (database: ${where}); docs at /docs`)
web.log.info(
  `Quire web app on ${webEnv.WEB_URL} (listening on ${webEnv.WEB_HOST}:${webEnv.WEB_PORT}); sign-in: ${
    webEnv.OIDC_ISSUER ?? 'the development provider, any email address'
  }`,
)
