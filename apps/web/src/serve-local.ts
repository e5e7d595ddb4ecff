import { buildContentApp } from '@quire/content-origin'
import { edgeOptions } from '@quire/http-edge'
import { buildApp } from '@quire/rest'
import { operatorSocketPath, settingsOrExit, startAuditPruning, startOperatorSocket, startRuntime } from '@quire/runtime'
import { buildWebApp } from '@quire/site'
import { readServerEnv } from './env.ts'
import { closeOnSignals, listenOrExit } from './lifecycle.ts'
import { contentAppOptions, serverWebAppOptions } from './options.ts'
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
let content: Awaited<ReturnType<typeof buildContentApp>> | null
try {
  api = await buildApp(runtime, {
    logger: { level: apiEnv.LOG_LEVEL },
    logRequests: apiEnv.LOG_REQUESTS,
    serverUrl: apiUrl,
    eventsHeartbeatSeconds: apiEnv.EVENTS_HEARTBEAT_SECONDS,
    ...edgeOptions(apiEnv),
  })
  web = await buildWebApp(runtime, { ...serverWebAppOptions(webEnv, apiEnv, sessionSecretOf(webEnv)), apiUrl: webEnv.API_URL ?? apiUrl })
  content = runtime.deps.previews ? await buildContentApp(runtime, contentAppOptions(webEnv)) : null
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
  apps: content ? [api, web, content] : [api, web],
  stopping: pruning ? [() => pruning.stop()] : [],
  afterClose: async () => {
    await operator?.close()
    await runtime.close()
  },
  timeoutMs: apiEnv.SHUTDOWN_TIMEOUT_MS,
  log: api.log,
})

const release = async () => {
  await Promise.all([api.close(), web.close(), content?.close()])
  await operator?.close()
  await runtime.close()
}
await listenOrExit(api, { port: apiEnv.API_PORT, host: apiEnv.API_HOST, setting: 'API_PORT' }, release)
// The content origin before the web app: once the web app answers /health, every port does.
if (content) await listenOrExit(content, { port: webEnv.CONTENT_PORT, host: webEnv.WEB_HOST, setting: 'CONTENT_PORT' }, release)
await listenOrExit(web, { port: webEnv.WEB_PORT, host: webEnv.WEB_HOST, setting: 'WEB_PORT' }, release)
const where = runtime.database.kind === 'postgres' ? 'PostgreSQL' : `embedded PGlite in ${apiEnv.QUIRE_DATA_DIR}`
api.log.info(`Quire API on http://${apiEnv.API_HOST}:${apiEnv.API_PORT} (database: ${where}); docs at /docs`)
web.log.info(
  `Quire web app on ${webEnv.WEB_URL} (listening on ${webEnv.WEB_HOST}:${webEnv.WEB_PORT}); sign-in: ${
    webEnv.OIDC_ISSUER ?? 'the development provider, any email address'
  }`,
)
web.log.info(
  content
    ? `Quire content origin on ${runtime.deps.previews?.origin} (listening on ${webEnv.WEB_HOST}:${webEnv.CONTENT_PORT}): HTML, SVG and Mermaid are rendered there`
    : 'No content origin (CONTENT_URL=off): HTML, SVG and Mermaid are shown as source',
)
