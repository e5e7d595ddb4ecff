import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process'
import { envVariable, inheritedEnv } from './env.ts'
import { groupAlive, groupLeadingChildren, killGroup, processAlive, recordGroup, runDirVariable } from './process-records.ts'
import { type Exit, untilExit, type Watched } from './waits.ts'

/**
 * Every process a test starts, started here: the leader of a process group of its own
 * (`detached: true`), so that stopping it stops whatever it started too, and recorded in the run's
 * directory (packages/testing/src/process-records.ts) until the group is gone. Whatever way a test file
 * ends, nothing it started outlives it: its own afterAll stops what it started, then the afterAll
 * of packages/testing/src/process-setup.ts kills every group still here; when the worker itself dies
 * (killed on a timeout, a crash), the global teardown finds the groups it recorded, kills them and
 * fails the run (packages/testing/src/process-guard.ts).
 */

export { groupLeadingChildren, killGroup, processAlive }

interface Tracked {
  readonly pgid: number
  readonly command: string
  /** Settles once the leader has exited and the rest of its group is killed. */
  readonly gone: Promise<void>
}

const tracked = new Map<number, Tracked>()

/**
 * Tracks a process group until `exited` settles (its leader has exited); then what is left of the
 * group is killed and the record removed.
 */
export function trackGroup(pgid: number, command: string, exited: Promise<unknown>): void {
  if (tracked.has(pgid)) return
  const dir = envVariable(runDirVariable)
  const forget = dir ? recordGroup(dir, pgid, command) : () => {}
  const gone = exited.then(async () => {
    // What the leader started dies with it, before the record goes.
    killGroup(pgid)
    for (let i = 0; i < 100 && groupAlive(pgid); i++) await new Promise((next) => setTimeout(next, 20))
    forget()
    tracked.delete(pgid)
  })
  tracked.set(pgid, { pgid, command, gone })
}

/** Tracks a child started with `detached: true` (its pid is its group's id) until it exits. */
export function trackChild(child: ChildProcess, command: string): void {
  if (child.pid === undefined) return
  const exited = child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((done) => child.once('exit', done))
  trackGroup(child.pid, command, exited)
}

/** `spawn`, as the leader of a new process group, tracked (see above). */
export function spawnTracked(command: string, args: readonly string[], options: SpawnOptions = {}): ChildProcess {
  const dir = envVariable(runDirVariable)
  const child = spawn(command, args, {
    ...options,
    // The run's variable even in an environment built from scratch: /proc then tells whose it is.
    env: { ...(options.env ?? inheritedEnv()), ...(dir ? { [runDirVariable]: dir } : {}) },
    detached: true,
  })
  trackChild(child, [command, ...args].join(' '))
  return child
}

/** Signals a tracked child's whole group (a no-op once the group is gone). */
export function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid !== undefined) killGroup(child.pid, signal)
}

/** SIGKILLs every group still tracked in this worker and waits until each is gone. */
export async function stopTrackedProcesses(): Promise<string[]> {
  const left = [...tracked.values()]
  for (const { pgid } of left) killGroup(pgid)
  const late = new Promise<void>((done) => setTimeout(done, 10_000).unref())
  await Promise.race([Promise.all(left.map((t) => t.gone)), late])
  return left.map((t) => t.command)
}

/**
 * Waits for every start to settle (a start that fails does not leave the others unrecorded: each
 * keeps what it started as soon as it is up, and afterAll runs only when all are done), then
 * throws the first failure.
 */
export async function settleAll(starts: readonly Promise<unknown>[]): Promise<void> {
  const failed = (await Promise.allSettled(starts)).filter((r): r is PromiseRejectedResult => r.status === 'rejected')
  if (failed.length === 1) throw failed[0]?.reason
  if (failed.length > 1)
    throw new AggregateError(
      failed.map((f) => f.reason),
      `${failed.length} set-ups failed: ${failed.map((f) => String(f.reason?.message ?? f.reason)).join('; ')}`,
    )
}

/** A child as the waits see it (packages/testing/src/waits.ts), with each of its streams. */
export interface WatchedChild extends Watched {
  /** What it wrote to stdout (the first megabyte): a command's answer, without its messages. */
  stdout(): string
  /** What it wrote to stderr (the first megabyte). */
  stderr(): string
}

const watching = new WeakMap<ChildProcess, WatchedChild>()
const kept = 1 << 20

/**
 * Collects what a child writes and settles `exited` once it has exited and its output has ended (a
 * child that could not be started ends at once, its error in its output). Watch a child as soon as
 * it is spawned; watching it again gives the same watch.
 */
export function watch(child: ChildProcess): WatchedChild {
  const known = watching.get(child)
  if (known) return known
  let output = ''
  let stdout = ''
  let stderr = ''
  const add = (chunk: string) => {
    output = output.length + chunk.length > kept ? (output + chunk).slice(-kept) : output + chunk
  }
  child.stdout?.on('data', (chunk: Buffer) => {
    const text = chunk.toString('utf8')
    add(text)
    if (stdout.length < kept) stdout += text
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    const text = chunk.toString('utf8')
    add(text)
    if (stderr.length < kept) stderr += text
  })
  const exited = new Promise<Exit>((done) => {
    child.once('close', (code: number | null, signal: NodeJS.Signals | null) => done({ code, signal }))
    // A program that could not be started (not installed): no exit follows.
    child.once('error', (error) => {
      add(`\n${error.message}`)
      stderr += `\n${error.message}`
      done({ code: null, signal: null })
    })
  })
  const watched: WatchedChild = {
    command: child.spawnargs.join(' '),
    output: () => output,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
  }
  watching.set(child, watched)
  return watched
}

/** What a finished child said, and how long it ran. */
export interface Finished {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
  readonly ms: number
}

/**
 * Runs a child to its end, feeding it `stdin` (closed when absent). Past its budget (the waits'
 * own, packages/testing/src/waits.ts) its group is SIGKILLed and the wait fails, naming the command and
 * showing the end of its output.
 */
export async function finish(child: ChildProcess, options: { stdin?: string; budgetMs?: number } = {}): Promise<Finished> {
  const started = performance.now()
  const watched = watch(child)
  // A program that exits without reading its input (secret-tool on a refusal) closes the pipe: EPIPE, not an error of the test.
  child.stdin?.on('error', () => {})
  child.stdin?.end(options.stdin ?? '')
  try {
    const { code, signal } = await untilExit(watched, options.budgetMs)
    if (code === null && signal === null) throw new Error(`\`${watched.command}\` did not start:${watched.stderr()}`)
    return { code, stdout: watched.stdout(), stderr: watched.stderr(), ms: performance.now() - started }
  } catch (error) {
    signalGroup(child, 'SIGKILL')
    throw error
  }
}
