import { buildContentApp } from '@quire/content-origin'
import { createRuntime, settingsOrExit } from '@quire/runtime'
import { buildWebApp } from '@quire/site'
import { readServerEnv } from './env.ts'
import { closeOnSignals, listenOrExit } from './lifecycle.ts'
import { contentAppOptions, serverWebAppOptions } from './options.ts'
import { sessionSecretOf } from './session-secret.ts'

/**
 * The web app alone, for production on PostgreSQL, beside any number of API processes. (On the
 * embedded database, which one process owns, `pnpm start` runs both apps together: serve-local.ts.)
 */
const { web: webEnv, runtime: runtimeEnv } = settingsOrExit(() => readServerEnv())
if (!runtimeEnv.DATABASE_URL) {
  process.stderr.write(
    'The web app on its own needs PostgreSQL (DATABASE_URL): the embedded database belongs to one process. ' +
      'Locally, `pnpm start` runs the API and the web app together.\n',
  )
  process.exit(1)
}
const runtime = await createRuntime(runtimeEnv)
let web: Awaited<ReturnType<typeof buildWebApp>>
let content: Awaited<ReturnType<typeof buildContentApp>> | null
try {
  web = await buildWebApp(runtime, serverWebAppOptions(webEnv, runtimeEnv, sessionSecretOf(webEnv)))
  content = runtime.deps.previews ? await buildContentApp(runtime, contentAppOptions(webEnv)) : null
} catch (error) {
  await runtime.close()
  throw error
}

closeOnSignals({
  apps: content ? [web, content] : [web],
  afterClose: () => runtime.close(),
  timeoutMs: webEnv.SHUTDOWN_TIMEOUT_MS,
  log: web.log,
})

const release = async () => {
  await Promise.all([web.close(), content?.close()])
  await runtime.close()
}
// The content origin first: once the web app answers /health, every port of this process does.
if (content) await listenOrExit(content, { port: webEnv.CONTENT_PORT, host: webEnv.WEB_HOST, setting: 'CONTENT_PORT' }, release)
await listenOrExit(web, { port: webEnv.WEB_PORT, host: webEnv.WEB_HOST, setting: 'WEB_PORT' }, release)
web.log.info(`Quire web app on ${webEnv.WEB_URL} (listening on ${webEnv.WEB_HOST}:${webEnv.WEB_PORT}; database: PostgreSQL)`)
if (content)
  web.log.info(`Quire content origin on ${runtime.deps.previews?.origin} (listening on ${webEnv.WEB_HOST}:${webEnv.CONTENT_PORT})`)
