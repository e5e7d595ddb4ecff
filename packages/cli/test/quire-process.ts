import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

/**
 * Real processes for the CLI's tests: Quire itself as `pnpm start` runs it (the API and the web
 * app in one process on the embedded database, in a temporary data directory), the operator
 * command, and `quire` as a child process with an environment built from scratch.
 */
const repo = resolve(import.meta.dirname, '../../..')
const serveLocal = join(repo, 'apps/web/src/serve-local.ts')
const adminScript = join(repo, 'apps/api/src/admin.ts')
/**
 * The CLI the tests run: the built bundle, exactly what npm installs, when QUIRE_TEST_CLI=built
 * (the README's test line builds first and sets it); otherwise the sources (Node strips the types).
 */
export const cliEntry =
  process.env.QUIRE_TEST_CLI === 'built' ? join(repo, 'packages/cli/dist/bin.js') : join(repo, 'packages/cli/src/bin.ts')

import { freePort } from '@quire/testing/free-port'
import { spawnNode } from '@quire/testing/node-process'
import { type Finished, finish, spawnTracked } from '@quire/testing/processes'
import { atOnceMs, timeoutFor, untilHealthy } from '@quire/testing/waits'

export { type Finished, finish, freePort }

/**
 * What "at once" means for a whole CLI process (packages/testing/src/waits.ts): far below every wait it
 * must not start (a browser sign-in waits minutes for its person, D-Bus 25 s for a store that does
 * not answer, a request its time limit), and above what a loaded 2-core machine takes to start Node
 * and run the command.
 */
export const AT_ONCE_MS = atOnceMs

/**
 * The timeout of a test of the CLI's files (packages/testing/src/waits.ts): it runs a command (`quire`,
 * `secret-tool`, a shell) at most fifteen times, each run a wait for its end.
 */
export const commandsTimeout = timeoutFor(15)

/** Only what a process needs from ours: never a DATABASE_URL or token of the developer. */
function baseEnv(): Record<string, string> {
  return { PATH: process.env.PATH ?? '', ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}), LANG: 'C.UTF-8' }
}

/**
 * Runs a Node script to its end (one wait: packages/testing/src/waits.ts), with `stdin` as its standard
 * input (closed when absent); in a process group of its own that cannot outlive the test
 * (packages/testing/src/processes.ts).
 */
export function runNode(
  args: readonly string[],
  options: { env?: Record<string, string>; stdin?: string; cwd?: string } = {},
): Promise<Finished> {
  const child = spawnTracked(process.execPath, ['--conditions=source', ...args], {
    env: { ...baseEnv(), ...options.env },
    cwd: options.cwd ?? repo,
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  return finish(child, options.stdin === undefined ? {} : { stdin: options.stdin })
}

export interface Quire {
  readonly apiUrl: string
  readonly webUrl: string
  /** A fresh API key for this email (the user is created when new), from the operator command. */
  token(email: string, scopes?: readonly string[]): Promise<string>
  /** Runs `quire` against this Quire (one wait), in a private HOME; `env` adds to (or overrides) its environment. */
  cli(args: readonly string[], options?: { env?: Record<string, string>; stdin?: string }): Promise<Finished>
  /** The private HOME the CLI runs in (its credentials file lives under it). */
  readonly home: string
  /** The environment `cli` runs the CLI with (for tests that spawn it themselves), plus `extra`. */
  cliEnv(extra?: Record<string, string>): Record<string, string>
  stop(): Promise<void>
}

/** Quire as the README's start line runs it, on a fresh embedded database. */
export async function startQuire(): Promise<Quire> {
  const dataDir = await mkdtemp(join(tmpdir(), 'quire-cli-data-'))
  const home = await mkdtemp(join(tmpdir(), 'quire-cli-home-'))
  const [apiPort, webPort] = [await freePort(), await freePort()]
  const apiUrl = `http://127.0.0.1:${apiPort}`
  const webUrl = `http://127.0.0.1:${webPort}`
  const server = spawnNode(
    serveLocal,
    {
      HOME: home,
      LANG: 'C.UTF-8',
      QUIRE_DATA_DIR: dataDir,
      API_HOST: '127.0.0.1',
      API_PORT: String(apiPort),
      API_URL: apiUrl,
      WEB_HOST: '127.0.0.1',
      WEB_PORT: String(webPort),
      WEB_URL: webUrl,
      // The CLI needs no content origin (and a fixed port would collide between runs).
      CONTENT_URL: 'off',
      RATE_LIMIT_ENABLED: 'false',
    },
    { cwd: repo },
  )
  try {
    await untilHealthy(server, [`${apiUrl}/health`, `${webUrl}/health`])
  } catch (error) {
    // Whatever went wrong, the server goes before its files.
    await server.kill()
    await rm(dataDir, { recursive: true, force: true })
    await rm(home, { recursive: true, force: true })
    throw error
  }
  const cliEnv = (extra: Record<string, string> = {}) => ({
    ...baseEnv(),
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    AGENT_SERVICE_BASE_URL: apiUrl,
    ...extra,
  })

  return {
    apiUrl,
    webUrl,
    home,
    async token(email, scopes) {
      const args = [adminScript, 'token', '--email', email, ...(scopes ? ['--scopes', scopes.join(',')] : [])]
      const done = await runNode(args, { env: { HOME: home, QUIRE_DATA_DIR: dataDir, LOG_LEVEL: 'warn' } })
      if (done.code !== 0) throw new Error(`admin token failed (${done.code}): ${done.stderr}`)
      return done.stdout.trim()
    },
    cliEnv,
    cli(args, options = {}) {
      return runNode([cliEntry, ...args], { env: cliEnv(options.env), ...(options.stdin !== undefined ? { stdin: options.stdin } : {}) })
    },
    async stop() {
      try {
        await server.stop()
      } finally {
        await rm(dataDir, { recursive: true, force: true })
        await rm(home, { recursive: true, force: true })
      }
    },
  }
}
