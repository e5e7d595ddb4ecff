import { type ChildProcess, spawn } from 'node:child_process'
import { resolve } from 'node:path'

/**
 * Real API server processes for the multi-process tests: `node --conditions=source src/main.ts`,
 * exactly as an operator starts it, on a free port, ready once GET /health answers 200.
 */
const mainScript = resolve(import.meta.dirname, '../src/main.ts')

export interface ApiProcess {
  readonly url: string
  readonly pid: number
  /** What the process wrote to stdout and stderr so far (for failure messages). */
  output(): string
  /** Settles when the process has exited (and been reaped). */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** SIGKILL: no shutdown code runs. Resolves once the process is gone. */
  kill(): Promise<void>
  /** SIGTERM (graceful: in-flight requests finish, the database is closed), SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>
}

const running = new Set<ApiProcess>()

import { freePort } from '../../../tooling/vitest/free-port.ts'

export { freePort }

function exitOf(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode })
  return new Promise((done) => child.once('exit', (code, signal) => done({ code, signal })))
}

/**
 * Starts the API on `env` (DATABASE_URL, or QUIRE_DATA_DIR for the embedded database) and waits
 * until it is healthy. The environment is built from scratch so that nothing of the test run's
 * own environment (a DATABASE_URL of the developer, say) leaks into the server.
 */
export async function startApiProcess(env: Record<string, string>, options: { timeoutMs?: number } = {}): Promise<ApiProcess> {
  const port = await freePort()
  const child = spawn(process.execPath, ['--conditions=source', mainScript], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
      API_HOST: '127.0.0.1',
      API_PORT: String(port),
      LOG_LEVEL: 'warn',
      // Rate limiting (being added) would turn a load test into a 429 test.
      RATE_LIMIT_ENABLED: 'false',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const collect = (chunk: Buffer) => {
    if (output.length < 64_000) output += chunk.toString('utf8')
  }
  child.stdout?.on('data', collect)
  child.stderr?.on('data', collect)
  const exited = exitOf(child)
  const pid = child.pid
  if (pid === undefined) throw new Error('the API process did not start')
  const url = `http://127.0.0.1:${port}`

  const signal = async (sig: NodeJS.Signals, graceMs: number) => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill(sig)
      const timer = new Promise<'late'>((done) => setTimeout(() => done('late'), graceMs).unref())
      if ((await Promise.race([exited, timer])) === 'late') child.kill('SIGKILL')
    }
    await exited
    running.delete(api)
  }
  const api: ApiProcess = {
    url,
    pid,
    output: () => output,
    exited,
    kill: () => signal('SIGKILL', 10_000),
    stop: (graceMs = 10_000) => signal('SIGTERM', graceMs),
  }
  running.add(api)

  const deadline = Date.now() + (options.timeoutMs ?? 30_000)
  let gone = false
  void exited.then(() => {
    gone = true
  })
  for (;;) {
    if (gone) throw new Error(`The API process exited before it was healthy (${JSON.stringify(await exited)}):\n${output}`)
    try {
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2_000) })
      if (res.status === 200) return api
      await res.body?.cancel()
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      await api.kill()
      throw new Error(`The API process was not healthy within ${options.timeoutMs ?? 30_000} ms:\n${output}`)
    }
    await new Promise((done) => setTimeout(done, 100))
  }
}

/** Kills every process started here that is still running (for afterAll, whatever happened). */
export async function killAllApiProcesses(): Promise<void> {
  await Promise.all([...running].map((p) => p.kill()))
}
