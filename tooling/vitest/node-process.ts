import { signalGroup, spawnTracked } from './processes.ts'

/**
 * A Quire process for the tests that need real ones: `node --conditions=source <script>`, exactly
 * as an operator starts it, with an environment built from scratch (nothing of the test run's own
 * environment, a developer's DATABASE_URL say, leaks in), its output kept for failure messages.
 * It leads a process group of its own (tooling/vitest/processes.ts): stopping it stops everything
 * it started, and it cannot outlive the test run.
 */
export interface NodeProcess {
  readonly pid: number
  /** What the process wrote to stdout and stderr so far (the first 64 KB). */
  output(): string
  /** Settles when the process has exited (and been reaped). */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** SIGKILL (to its whole group): no shutdown code runs. Resolves once the process is gone. */
  kill(): Promise<void>
  /** SIGTERM (a graceful shutdown; to its whole group), SIGKILL after `graceMs`. Resolves once the process is gone. */
  stop(graceMs?: number): Promise<void>
}

const running = new Set<NodeProcess>()

export function spawnNode(script: string, env: Record<string, string>, options: { cwd?: string } = {}): NodeProcess {
  const child = spawnTracked(process.execPath, ['--conditions=source', script], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
      LOG_LEVEL: 'warn',
      ...env,
    },
    ...(options.cwd ? { cwd: options.cwd } : {}),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const collect = (chunk: Buffer) => {
    if (output.length < 64_000) output += chunk.toString('utf8')
  }
  child.stdout?.on('data', collect)
  child.stderr?.on('data', collect)
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => {
    if (child.exitCode !== null || child.signalCode !== null) done({ code: child.exitCode, signal: child.signalCode })
    else child.once('exit', (code, signal) => done({ code, signal }))
  })
  if (child.pid === undefined) throw new Error(`${script} did not start`)
  const signal = async (sig: NodeJS.Signals, graceMs: number) => {
    if (child.exitCode === null && child.signalCode === null) {
      signalGroup(child, sig)
      const timer = new Promise<'late'>((done) => setTimeout(() => done('late'), graceMs).unref())
      if ((await Promise.race([exited, timer])) === 'late') signalGroup(child, 'SIGKILL')
    }
    await exited
    running.delete(started)
  }
  const started: NodeProcess = {
    pid: child.pid,
    output: () => output,
    exited,
    kill: () => signal('SIGKILL', 10_000),
    stop: (graceMs = 10_000) => signal('SIGTERM', graceMs),
  }
  running.add(started)
  return started
}

/**
 * Waits until every URL answers 200. When the process exits first, or the time runs out, the
 * process is killed and the error carries its output.
 */
export async function untilHealthy(started: NodeProcess, urls: readonly string[], timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  let gone = false
  void started.exited.then(() => {
    gone = true
  })
  for (const url of urls) {
    for (;;) {
      if (gone)
        throw new Error(`The process exited before ${url} was healthy (${JSON.stringify(await started.exited)}):\n${started.output()}`)
      try {
        const res = await fetch(url, { signal: AbortSignal.timeout(2_000) })
        await res.body?.cancel()
        if (res.status === 200) break
      } catch {
        // Not listening yet.
      }
      if (Date.now() > deadline) {
        await started.kill()
        throw new Error(`${url} was not healthy within ${timeoutMs} ms:\n${started.output()}`)
      }
      await new Promise((done) => setTimeout(done, 100))
    }
  }
}

/** Kills every process started here that is still running (for afterAll, whatever happened). */
export async function killAllNodeProcesses(): Promise<void> {
  await Promise.all([...running].map((p) => p.kill()))
}
