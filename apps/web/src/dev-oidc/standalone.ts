import formbody from '@fastify/formbody'
import { settingsOrExit } from '@quire/runtime'
import { createDevProvider, DevProviderRefused, devProviderPath, registerDevProvider } from '@quire/sign-in'
import Fastify from 'fastify'
import { readWebEnv } from '../env.ts'

/**
 * The development provider alone, for several web processes behind one load balancer (the
 * scale-out topology of tooling/topology, docs/deploy.md): a provider keeps its state
 * (interactions, codes) in its process's memory, so when web_1 starts a sign-in and web_2 finishes
 * it, the provider must be one process. The balancer routes `{WEB_URL}/dev-oidc/*` here, and this
 * process reads the very settings the web processes get, which name it as their external provider:
 *
 *   WEB_URL=http://127.0.0.1:8080 WEB_PORT=3009 OIDC_ISSUER=http://127.0.0.1:8080/dev-oidc \
 *   OIDC_CLIENT_ID=quire-web OIDC_CLIENT_SECRET=… node --conditions=source apps/web/src/dev-oidc/standalone.ts
 *
 * Development and tests only: it signs anyone in, and refuses NODE_ENV=production as the bundled one does.
 */
const env = settingsOrExit(() => readWebEnv())
const issuer = `${env.WEB_URL}${devProviderPath}`
function refuse(message: string): never {
  process.stderr.write(`${message}\n`)
  process.exit(1)
}
if (env.OIDC_ISSUER !== issuer || env.OIDC_CLIENT_ID !== 'quire-web' || !env.OIDC_CLIENT_SECRET || env.OIDC_CLIENT_SECRET.length < 32)
  refuse(`Set OIDC_ISSUER=${issuer}, OIDC_CLIENT_ID=quire-web and OIDC_CLIENT_SECRET (at least 32 characters), as for the web processes.`)
let dev: ReturnType<typeof createDevProvider>
try {
  dev = createDevProvider({ webUrl: env.WEB_URL, production: env.NODE_ENV === 'production', clientSecret: env.OIDC_CLIENT_SECRET })
} catch (error) {
  if (error instanceof DevProviderRefused) refuse(error.message)
  throw error
}

const app = Fastify({ logger: { level: env.LOG_LEVEL }, forceCloseConnections: 'idle' })
await app.register(formbody)
await registerDevProvider(app, dev, { webUrl: env.WEB_URL })
// The balancer's probe.
app.get('/health', async () => ({ status: 'ok' }))
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void app.close().then(() => process.exit(0)))
await app.listen({ port: env.WEB_PORT, host: env.WEB_HOST })
