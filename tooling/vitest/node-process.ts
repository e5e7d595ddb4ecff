import { connect } from 'node:net'
import { signalGroup, spawnTracked } from './processes.ts'

/**
 * A Quire process for the tests that need real ones: `node --conditions=source <script>` (or plain
 * `node <script>` for a deployed folder: `source: false`), exactly
 * as an operator starts it, with an environment built from scratch (nothing of the test run's own
 * environment, a developer's DATABASE_URL say, leaks in), its output kept for failure messages.
 * It leads a process group of its own (tooling/vitest/processes.ts): stopping it stops everything
 * it started, and it cannot outlive the test run.
 */
export interface NodeProcess {
  readonly pid: number
  /** What the process wrote to stdout and stderr so far (the first 64 KB). */
  output(): string
  /** What it wrote to stdout alone so far (the first 64 KB): a command's answer, without its messages. */
  stdout(): string
  /** Settles when the process has exited (and been reaped). */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** SIGKILL (to its whole group): no shutdown code runs. Resolves once the process is gone. */
  kill(): Promise<void>
  /** SIGTERM (a graceful shutdown; to its whole group), SIGKILL after `graceMs`. Resolves once the process is gone. */
  stop(graceMs?: number): Promise<void>
}

const running = new Set<NodeProcess>()

export interface SpawnNodeOptions {
  readonly cwd?: string
  /**
   * `true` (the default): `--conditions=source`, workspace packages load from their TypeScript
   * sources. `false`: plain `node`, as a deployed folder runs (packages load from their dist).
   */
  readonly source?: boolean
  /** Arguments after the script (a command and its options). */
  readonly args?: readonly string[]
}

export function spawnNode(script: string, env: Record<string, string>, options: SpawnNodeOptions = {}): NodeProcess {
  const flags = options.source === false ? [] : ['--conditions=source']
  return spawnProcess(process.execPath, [...flags, script, ...(options.args ?? [])], { LOG_LEVEL: 'warn', ...env }, options)
}

/**
 * Any program with the same handle (HAProxy, PgBouncer: tooling/topology), its environment built
 * from scratch as for Node. It must stay in the foreground (HAProxy `-db`, PgBouncer without `-d`):
 * a daemon would leave the process group it was started in.
 */
export function spawnProcess(
  program: string,
  args: readonly string[],
  env: Record<string, string>,
  options: { readonly cwd?: string } = {},
): NodeProcess {
  const child = spawnTracked(program, args, {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
      ...env,
    },
    ...(options.cwd ? { cwd: options.cwd } : {}),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  let stdout = ''
  const collect = (chunk: Buffer) => {
    if (output.length < 64_000) output += chunk.toString('utf8')
  }
  child.stdout?.on('data', (chunk: Buffer) => {
    collect(chunk)
    if (stdout.length < 64_000) stdout += chunk.toString('utf8')
  })
  child.stderr?.on('data', collect)
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => {
    if (child.exitCode !== null || child.signalCode !== null) done({ code: child.exitCode, signal: child.signalCode })
    else child.once('exit', (code, signal) => done({ code, signal }))
    // A program that could not be started (not installed): no exit event follows.
    child.once('error', (error) => {
      output += `\n${error.message}`
      done({ code: null, signal: null })
    })
  })
  if (child.pid === undefined) throw new Error(`${program} did not start (is it installed?)`)
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
    stdout: () => stdout,
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

/** Waits until something accepts TCP connections on 127.0.0.1:`port` (or the process exits). */
export async function untilListening(port: number, started: NodeProcess, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  let gone = false
  void started.exited.then(() => {
    gone = true
  })
  for (;;) {
    if (gone) throw new Error(`${what} exited at start:\n${started.output()}`)
    const open = await new Promise<boolean>((done) => {
      const socket = connect(port, '127.0.0.1')
      socket.once('connect', () => {
        socket.destroy()
        done(true)
      })
      socket.once('error', () => done(false))
    })
    if (open) return
    if (Date.now() > deadline) throw new Error(`${what} did not listen on ${port} within ${timeoutMs} ms:\n${started.output()}`)
    await new Promise((next) => setTimeout(next, 50))
  }
}

/** Kills every process started here that is still running (for afterAll, whatever happened). */
export async function killAllNodeProcesses(): Promise<void> {
  await Promise.all([...running].map((p) => p.kill()))
}
