import { createRuntime, settingsOrExit } from '@quire/runtime'
import { buildWebApp } from '@quire/site'
import { readServerEnv } from './env.ts'
import { closeOnSignals } from './lifecycle.ts'
import { serverWebAppOptions } from './options.ts'
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
try {
  web = await buildWebApp(runtime, serverWebAppOptions(webEnv, runtimeEnv, sessionSecretOf(webEnv)))
} catch (error) {
  await runtime.close()
  throw error
}

closeOnSignals({ apps: [web], afterClose: () => runtime.close(), timeoutMs: webEnv.SHUTDOWN_TIMEOUT_MS, log: web.log })

await web.listen({ port: webEnv.WEB_PORT, host: webEnv.WEB_HOST })
web.log.info(`Quire web app on ${webEnv.WEB_URL} (listening on ${webEnv.WEB_HOST}:${webEnv.WEB_PORT}; database: PostgreSQL)`)
