import { signalGroup, spawnTracked } from '../vitest/processes.ts'

/**
 * A program that is not Node (HAProxy, PgBouncer), started tracked like every process a test
 * starts (tooling/vitest/processes.ts: its own process group, recorded for the run's guard, killed
 * however the test ends), with the same handle as tooling/vitest/node-process.ts gives Node ones.
 * It must stay in the foreground (HAProxy `-db`, PgBouncer without `-d`): a daemon leaves the
 * group it was started in only by `setsid`, and neither does.
 */
export interface ExternalProcess {
  readonly pid: number
  output(): string
  exitedNow(): boolean
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** SIGKILL to its group; resolves once it is gone. */
  kill(): Promise<void>
  /** SIGTERM (HAProxy and PgBouncer shut down at once on it), SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>
}

export function spawnExternal(program: string, args: readonly string[]): ExternalProcess {
  const child = spawnTracked(program, args, {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  if (child.pid === undefined) throw new Error(`${program} did not start (is it installed?)`)
  let output = ''
  const collect = (chunk: Buffer) => {
    if (output.length < 64_000) output += chunk.toString('utf8')
  }
  child.stdout?.on('data', collect)
  child.stderr?.on('data', collect)
  let gone = false
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => {
    child.once('exit', (code, signal) => {
      gone = true
      done({ code, signal })
    })
    child.once('error', (error) => {
      gone = true
      output += `\n${error.message}`
      done({ code: null, signal: null })
    })
  })
  const signal = async (sig: NodeJS.Signals, graceMs: number) => {
    if (!gone) {
      signalGroup(child, sig)
      const timer = new Promise<'late'>((done) => setTimeout(() => done('late'), graceMs).unref())
      if ((await Promise.race([exited, timer])) === 'late') signalGroup(child, 'SIGKILL')
    }
    await exited
  }
  return {
    pid: child.pid,
    output: () => output,
    exitedNow: () => gone,
    exited,
    kill: () => signal('SIGKILL', 10_000),
    stop: (graceMs = 5_000) => signal('SIGTERM', graceMs),
  }
}
