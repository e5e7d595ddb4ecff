import { randomBytes } from 'node:crypto'
import { buildContentApp } from '@quire/content-origin'
import { edgeOptions } from '@quire/http-edge'
import { buildApp } from '@quire/rest'
import { createRuntime, readEnv } from '@quire/runtime'
import { buildWebApp } from '@quire/site'
import { agentLayerEnv, freePort, type TestWeb } from '../helper.ts'

/**
 * The web app and the API on the embedded PGlite database in `dataDir`, in this process, as
 * `pnpm start` runs them (rate limits on, the development sign-in, agent registration on), for scripts outside the test
 * runner (the screenshot script); tests use `startTestWeb`, which takes the run's test database.
 */
export async function startLocalSite(dataDir: string): Promise<TestWeb> {
  const [port, apiPort, contentPort] = [await freePort(), await freePort(), await freePort()]
  const url = `http://127.0.0.1:${port}`
  const apiUrl = `http://127.0.0.1:${apiPort}`
  // The content origin on the other loopback name: another site, as in local mode.
  const contentUrl = `http://localhost:${contentPort}`
  const env = readEnv({
    QUIRE_DATA_DIR: dataDir,
    WEB_URL: url,
    API_URL: apiUrl,
    CONTENT_URL: contentUrl,
    LOG_LEVEL: 'silent',
    ...agentLayerEnv(),
  })
  const runtime = await createRuntime(env)
  const apps: { close(): Promise<unknown> }[] = []
  const close = async () => {
    for (const app of apps.reverse()) await app.close().catch(() => {})
    await runtime.close()
  }
  try {
    const app = await buildWebApp(runtime, {
      webUrl: url,
      apiUrl,
      sessionSecret: randomBytes(32).toString('base64url'),
      oidc: null,
      production: false,
    })
    apps.push(app)
    const api = await buildApp(runtime, { ...edgeOptions(env), serverUrl: apiUrl })
    apps.push(api)
    const content = await buildContentApp(runtime, { webUrl: url })
    apps.push(content)
    await app.listen({ port, host: '127.0.0.1' })
    await api.listen({ port: apiPort, host: '127.0.0.1' })
    await content.listen({ port: contentPort, host: '127.0.0.1' })
    return { url, app, apiUrl, runtime, contentUrl, close }
  } catch (error) {
    await close()
    throw error
  }
}
