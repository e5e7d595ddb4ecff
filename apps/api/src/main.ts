import { buildApp } from './app.ts'
import { createRuntime } from './container.ts'
import { readEnv } from './env.ts'

const env = readEnv()
const runtime = await createRuntime(env)
const app = await buildApp(runtime, {
  logger: { level: env.LOG_LEVEL },
  serverUrl: env.API_URL ?? `http://localhost:${env.API_PORT}`,
})

let closing = false
async function shutdown(signal: string): Promise<void> {
  if (closing) return
  closing = true
  app.log.info({ signal }, 'shutting down: finishing in-flight requests')
  await app.close()
  await runtime.close()
  process.exit(0)
}
process.on('SIGINT', () => void shutdown('SIGINT'))
process.on('SIGTERM', () => void shutdown('SIGTERM'))

await app.listen({ port: env.API_PORT, host: env.API_HOST })
const where = runtime.database.kind === 'postgres' ? 'PostgreSQL' : `embedded PGlite in ${env.QUIRE_DATA_DIR}`
app.log.info(`Quire API on http://${env.API_HOST}:${env.API_PORT} (database: ${where}); docs at /docs`)
