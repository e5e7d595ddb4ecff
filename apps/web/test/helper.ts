import { randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import { buildContentApp } from '@quire/content-origin'
import type { Clock } from '@quire/core'
import { edgeOptions } from '@quire/http-edge'
import { buildApp } from '@quire/rest'
import { createRuntime, type Runtime, readEnv } from '@quire/runtime'
import { buildWebApp } from '@quire/site'
import { freePort } from '@quire/testing/free-port'
import { testDatabase } from '@quire/testing/test-database'
import type { FastifyInstance } from 'fastify'
import { sql } from 'kysely'
import type { BrowserContext, Page } from 'playwright-core'

export { freePort }

export interface TestWeb {
  /** The web app's origin, as WEB_URL says and the browser uses. */
  readonly url: string
  readonly app: FastifyInstance
  /** The API's origin: a real API listening on the same runtime when asked for, else a name no one answers. */
  readonly apiUrl: string
  readonly runtime: Runtime
  /** The content origin (`http://localhost:<port>`, another site than the web app's 127.0.0.1) when it was asked to listen; else null. */
  readonly contentUrl: string | null
  close(): Promise<void>
}

/**
 * The web app on a fresh database of this project's engine, listening on 127.0.0.1 (real HTTP:
 * the app discovers and calls its own development provider over the network, as in local mode).
 * With `api`, the API listens too, on the same runtime, as `pnpm start` runs them.
 */
export async function startTestWeb(
  options: {
    api?: boolean
    /** More settings of the runtime's environment (AUTH_MD_*, say). */
    env?: Readonly<Record<string, string>>
    /** The clock every use-case reads (tests move it instead of waiting). */
    clock?: Clock
    /** The web app's per-address limits (default on, as in production). */
    rateLimit?: boolean
    /** The content origin listens too, as the web process serves it (on `localhost`: another site than the web app). */
    content?: boolean
  } = {},
): Promise<TestWeb> {
  const database = await testDatabase()
  const port = await freePort()
  const apiPort = options.api ? await freePort() : null
  const contentPort = options.content ? await freePort() : null
  const contentUrl = contentPort === null ? null : `http://localhost:${contentPort}`
  const url = `http://127.0.0.1:${port}`
  const apiUrl = apiPort === null ? 'https://api.quire.test' : `http://127.0.0.1:${apiPort}`
  const env = readEnv({
    WEB_URL: url,
    API_URL: apiUrl,
    LOG_LEVEL: 'silent',
    ...(database.url ? { DATABASE_URL: database.url } : {}),
    ...(contentUrl ? { CONTENT_URL: contentUrl } : {}),
    ...options.env,
  })
  // Whatever fails halfway, what is already up is closed (last first) before the error goes on.
  const undo: (() => Promise<unknown>)[] = [() => database.close()]
  try {
    const runtime = await createRuntime(env, { database, ...(options.clock ? { clock: options.clock } : {}) })
    undo[0] = () => runtime.close() // the runtime closes its database
    const app = await buildWebApp(runtime, {
      webUrl: url,
      apiUrl,
      sessionSecret: randomBytes(32).toString('base64url'),
      oidc: null,
      production: false,
      ...(options.rateLimit === undefined ? {} : { rateLimit: options.rateLimit }),
    })
    undo.push(() => app.close())
    const api = apiPort === null ? null : await buildApp(runtime, { ...edgeOptions(env), serverUrl: apiUrl })
    if (api) undo.push(() => api.close())
    const content = contentPort === null ? null : await buildContentApp(runtime, { webUrl: url })
    if (content) undo.push(() => content.close())
    await app.listen({ port, host: '127.0.0.1' })
    await api?.listen({ port: apiPort ?? 0, host: '127.0.0.1' })
    await content?.listen({ port: contentPort ?? 0, host: '127.0.0.1' })
    return {
      url,
      app,
      apiUrl,
      runtime,
      contentUrl,
      async close() {
        await content?.close()
        await api?.close()
        await app.close()
        await runtime.close()
      },
    }
  } catch (error) {
    for (const step of undo.reverse()) await step().catch(() => {})
    throw error
  }
}

export { browserTimeout, launchChromium } from '@quire/testing/chromium'

/** The settings that turn the agent registration layer on, with a fresh signing secret (the default scopes). */
export function agentLayerEnv(): Record<string, string> {
  return { AUTH_MD_ENABLED: 'true', AUTH_MD_SIGNING_SECRET: randomBytes(32).toString('base64url') }
}

/**
 * Signs in through the development provider as a person would: opens /login (with `returnTo` as
 * `return_to` when given), types the email into the provider's form, continues, and waits to be
 * back on the web app.
 */
export async function signInWithBrowser(page: Page, web: TestWeb, email: string, returnTo?: string): Promise<void> {
  const query = returnTo === undefined ? '' : `?return_to=${encodeURIComponent(returnTo)}`
  await page.goto(`${web.url}/login${query}`)
  await page.waitForURL(/\/dev-oidc\/interaction\//)
  await page.fill('#email', email)
  const landed = (url: URL) => !url.pathname.startsWith('/dev-oidc/') && url.pathname !== '/auth/callback'
  await Promise.all([page.waitForURL(landed), page.click('button[value="sign-in"]')])
}

/** The session secret in the browser's `quire_session` cookie (the cookie is signed; this unsigns it). */
export async function sessionSecretIn(context: BrowserContext, web: TestWeb): Promise<string | null> {
  const cookie = (await context.cookies(web.url)).find((c) => c.name === 'quire_session')
  if (!cookie) return null
  const unsigned = web.app.unsignCookie(decodeURIComponent(cookie.value))
  return unsigned.valid ? unsigned.value : null
}

/** A native client's loopback redirect listener (RFC 8252), as a CLI runs one. */
export interface LoopbackListener {
  readonly redirectUri: string
  /** Where the browser was last sent back to (its /callback, not its /favicon.ico). */
  landed: URL | null
  close(): Promise<void>
}

export async function startLoopbackListener(): Promise<LoopbackListener> {
  const port = await freePort()
  const redirectUri = `http://127.0.0.1:${port}/callback`
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', redirectUri)
    if (url.pathname === '/callback') listener.landed = url
    res.end('You can close this window.')
  })
  const listener: LoopbackListener = {
    redirectUri,
    landed: null,
    close: () => new Promise<void>((done) => server.close(() => done())),
  }
  await new Promise<void>((done) => server.listen(port, '127.0.0.1', done))
  return listener
}

/** Every value stored in every table of the web app's database, as text: what a dump of it holds. */
export async function databaseDump(web: TestWeb): Promise<string> {
  const db = web.runtime.database.db
  const tables = await sql<{ name: string }>`SELECT table_name AS name FROM information_schema.tables
    WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`.execute(db)
  let text = ''
  for (const { name } of tables.rows) {
    const rows = await sql<{ row: string }>`SELECT row_to_json(t)::text AS row FROM ${sql.table(name)} t`.execute(db)
    text += `${rows.rows.map((r) => r.row).join('\n')}\n`
  }
  return text
}
