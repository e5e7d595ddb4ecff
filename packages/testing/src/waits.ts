import { connect } from 'node:net'

/**
 * How a test waits for a process: for the process's own signal (a line it prints, a port it
 * listens on, an address that answers, its exit), never for a fixed time, and for as long as a
 * loaded machine needs. A process that starts in 13 s on an idle 2-core machine takes eight times
 * that when sixteen others want the two cores (the test line's own load): each wait may take
 * `waitBudgetMs`, and a test's timeout is above the sum of its waits (`timeoutFor`), so that a wait
 * that gives up says what it waited for (its process's command, how long, the end of its output)
 * before vitest's bare "Test timed out" could.
 */
export const waitBudgetMs = 150_000

/**
 * What "at once" means for a whole process a test runs to its end (a command, a script): far below
 * every wait it must not start (its test names them), and above what a loaded 2-core machine takes
 * to start the program and run it. A bound on a process's wall-clock time is never tighter.
 */
export const atOnceMs = 15_000

/**
 * The timeout of a test (or hook) that waits for processes `waits` times: the sum of their budgets,
 * and a minute for the rest of its work.
 */
export function timeoutFor(waits: number): number {
  return waits * waitBudgetMs + 60_000
}

/** How a process ended: its exit code, or the signal that ended it. */
export interface Exit {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}

/** A process as a wait sees it: its command line, what it printed so far, and its end. */
export interface Watched {
  readonly command: string
  /** The end of what it wrote to stdout and stderr so far, both mixed. */
  output(): string
  /** Settles once it has exited and its output has ended. */
  readonly exited: Promise<Exit>
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`

/** The last lines of a process's output, for a failure message. */
export function tail(output: string, lines = 40): string {
  const last = output.trimEnd().split('\n').slice(-lines).join('\n')
  return last.length > 6_000 ? `…${last.slice(-6_000)}` : last
}

/** The error of a wait that ended without what it awaited. */
function gaveUp(awaited: string, ms: number, process: Watched | undefined, exit: Exit | null): Error {
  const outcome = !process
    ? `Gave up waiting for ${awaited} after ${seconds(ms)}.`
    : exit
      ? `\`${process.command}\` ended (${exit.signal ?? `exit code ${exit.code}`}) ${seconds(ms)} into the wait for ${awaited}.`
      : `Gave up waiting for ${awaited} after ${seconds(ms)}; \`${process.command}\` is still running.`
  if (!process) return new Error(outcome)
  const output = process.output()
  return new Error(`${outcome}\n${output.trim() ? `The end of its output:\n${tail(output)}` : 'It printed nothing.'}`)
}

export interface WaitOptions {
  /** The process whose signal this is: the wait stops when it ends, and a failure names it and shows its output. */
  readonly process?: Watched
  readonly budgetMs?: number | undefined
  /** How often `check` runs. */
  readonly everyMs?: number
}

/**
 * Waits until `check` gives something other than `undefined` or `false`, and returns it. Gives up
 * when `options.process` ends first or the budget runs out, naming `awaited` (when a function:
 * what it answers then). `check` must itself end promptly (a request with a time limit, say).
 */
export async function until<T>(
  awaited: string | (() => string),
  check: () => T | Promise<T>,
  { process, budgetMs = waitBudgetMs, everyMs = 50 }: WaitOptions = {},
): Promise<Exclude<T, undefined | false>> {
  const started = performance.now()
  let exit: Exit | null = null
  void process?.exited.then((ended) => {
    exit = ended
  })
  for (;;) {
    // Checked before the process's end is: what it printed as it exited still counts.
    const found = await check()
    if (found !== undefined && found !== false) return found as Exclude<T, undefined | false>
    if (exit || performance.now() - started > budgetMs)
      throw gaveUp(typeof awaited === 'string' ? awaited : awaited(), performance.now() - started, process, exit)
    await new Promise((next) => setTimeout(next, everyMs))
  }
}

/** Waits until the process prints a line matching `pattern`; returns the match. */
export function untilLine(process: Watched, pattern: RegExp, budgetMs?: number): Promise<RegExpExecArray> {
  const line = new RegExp(pattern.source, pattern.flags.includes('m') ? pattern.flags : `${pattern.flags}m`)
  return until(`a line matching ${pattern}`, () => line.exec(process.output()) ?? undefined, { process, budgetMs })
}

/** Waits until the process exits; returns how. */
export async function untilExit(process: Watched, budgetMs = waitBudgetMs, awaited = 'its exit'): Promise<Exit> {
  const started = performance.now()
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<null>((done) => {
    timer = setTimeout(() => done(null), budgetMs)
  })
  const exit = await Promise.race([process.exited, late])
  clearTimeout(timer)
  if (exit === null) throw gaveUp(awaited, performance.now() - started, process, null)
  return exit
}

/** Waits until something accepts TCP connections on 127.0.0.1:`port`. */
export function untilListening(process: Watched, port: number, budgetMs?: number): Promise<true> {
  const open = () =>
    new Promise<boolean>((done) => {
      const socket = connect(port, '127.0.0.1')
      socket.once('connect', () => {
        socket.destroy()
        done(true)
      })
      socket.once('error', () => done(false))
    })
  return until(`a listener on 127.0.0.1:${port}`, open, { process, budgetMs })
}

/** Waits until each URL answers 200 (one after the other, within one budget). */
export function untilHealthy(process: Watched, urls: readonly string[], budgetMs?: number): Promise<true> {
  const answers = async (url: string) => {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(10_000) })
      await res.body?.cancel()
      return res.status === 200
    } catch {
      // Not listening yet, or too busy to answer in time.
      return false
    }
  }
  let healthy = 0
  const all = async () => {
    while (healthy < urls.length && (await answers(urls[healthy] as string))) healthy++
    return healthy === urls.length
  }
  return until(`${urls.join(' and ')} to answer 200`, all, { process, budgetMs, everyMs: 100 })
}
