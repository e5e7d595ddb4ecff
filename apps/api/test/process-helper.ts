import { resolve } from 'node:path'
import { freePort } from '@quire/testing/free-port'
import { killAllNodeProcesses, type NodeProcess, spawnNode } from '@quire/testing/node-process'
import { untilHealthy } from '@quire/testing/waits'

/**
 * Real API server processes for the multi-process tests: `node --conditions=source src/main.ts`,
 * exactly as an operator starts it, on a free port, ready once GET /health answers 200.
 */
const mainScript = resolve(import.meta.dirname, '../src/main.ts')

/** An API server process, listening on `url`. */
export interface ApiProcess extends NodeProcess {
  readonly url: string
}

export { freePort }

/**
 * Starts the API on `env` (DATABASE_URL, or QUIRE_DATA_DIR for the embedded database) and waits
 * until it is healthy (one wait: packages/testing/src/waits.ts).
 */
export async function startApiProcess(env: Record<string, string>): Promise<ApiProcess> {
  const port = await freePort()
  const started = spawnNode(mainScript, {
    API_HOST: '127.0.0.1',
    API_PORT: String(port),
    // Rate limiting would turn a load test into a 429 test.
    RATE_LIMIT_ENABLED: 'false',
    ...env,
  })
  const api: ApiProcess = { ...started, url: `http://127.0.0.1:${port}` }
  await untilHealthy(api, [`${api.url}/health`])
  return api
}

/** Kills every process started here that is still running (for afterAll, whatever happened). */
export const killAllApiProcesses = killAllNodeProcesses
