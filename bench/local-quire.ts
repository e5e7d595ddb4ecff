/**
 * What bench/mcp and bench/web start: `pnpm start`'s one process (apps/web/src/serve-local.ts:
 * the API and the web app on one runtime) on a fresh PostgreSQL database holding bench/api's
 * fixtures, watched for CPU, and a cleanup that stops it and drops the database however the run
 * ends. Rate limiting stays on, as in production; the limit is set out of reach of the load.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { finishTestRun, type TestDatabase } from '@quire/storage/testing'
import { type SpreadShape, seed } from './api/seed.ts'
import * as harness from './harness.ts'

export interface LocalQuire {
  readonly api: string
  readonly web: string
  /** The content origin the web process serves (HTML, SVG and Mermaid drawn). */
  readonly content: string
  readonly server: harness.Server
  readonly fixtures: Awaited<ReturnType<typeof seed>>
}

/**
 * Runs `body` against a started Quire, then stops it (also on Ctrl-C, through the harness).
 * `readyPath` is the web app's path that says it is up (`/health`, `/mcp`); `spread`, the spread
 * artifacts to seed besides the fixed ones (none by default).
 */
export async function withLocalQuire<T>(
  label: string,
  options: { pool: number; readyPath: string; spread?: SpreadShape },
  body: (quire: LocalQuire) => Promise<T>,
): Promise<T> {
  const run = await harness.postgresRun()
  const dataDir = mkdtempSync(join(tmpdir(), `quire-${label.replace('/', '-')}-`))
  let database: TestDatabase | null = null
  const cleanup = harness.cleanupOnce(label, 'stopping the server and dropping the database', async () => {
    await harness.stopServers()
    await database?.close()
    await finishTestRun(run)
    rmSync(dataDir, { recursive: true, force: true })
  })
  try {
    const db = await harness.freshDatabase(run)
    database = db
    const fixtures = await seed(db, 0, options.spread)
    const [apiPort, webPort, contentPort] = await harness.freePorts(3)
    const api = `http://127.0.0.1:${apiPort}`
    const web = `http://127.0.0.1:${webPort}`
    // The content origin on the other loopback name, as locally: another site than the web app.
    const content = `http://localhost:${contentPort}`
    const child = await harness.start(
      'apps/web/src/serve-local.ts',
      {
        DATABASE_URL: db.url ?? '',
        DATABASE_POOL_SIZE: String(options.pool),
        API_HOST: '127.0.0.1',
        API_PORT: String(apiPort),
        WEB_HOST: '127.0.0.1',
        WEB_PORT: String(webPort),
        WEB_URL: web,
        API_URL: api,
        CONTENT_PORT: String(contentPort),
        CONTENT_URL: content,
        LOG_LEVEL: 'warn',
        RATE_LIMIT_MAX: '1000000000',
        SESSION_SECRET: randomBytes(36).toString('base64url'),
        QUIRE_DATA_DIR: dataDir,
        NODE_ENV: 'development',
      },
      [`${api}/health`, `${web}${options.readyPath}`],
    )
    const server = await harness.watch(child, db.url ?? '')
    return await body({ api, web, content, server, fixtures })
  } finally {
    await cleanup()
  }
}
