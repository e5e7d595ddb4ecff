import { minimalEnv } from './env.ts'
import { signalGroup, spawnTracked, type WatchedChild, watch } from './processes.ts'
import { type Exit, untilExit, waitBudgetMs } from './waits.ts'

/**
 * A Quire process for the tests that need real ones: `node --conditions=source <script>` (or plain
 * `node <script>` for a deployed folder: `source: false`), exactly
 * as an operator starts it, with an environment built from scratch (nothing of the test run's own
 * environment, a developer's DATABASE_URL say, leaks in), its output kept for failure messages.
 * It leads a process group of its own (packages/testing/src/processes.ts): stopping it stops everything
 * it started, and it cannot outlive the test run.
 */
export interface NodeProcess extends WatchedChild {
  readonly pid: number
  /** SIGKILL (to its whole group): no shutdown code runs. Resolves, with how it ended, once the process is gone. */
  kill(): Promise<Exit>
  /**
   * SIGTERM (a graceful shutdown; to its whole group), and a wait for its exit (packages/testing/src/waits.ts):
   * resolves with how it ended. Past `graceMs` (by default a wait's budget) the group is
   * SIGKILLed and the wait fails, naming the process and showing the end of its output.
   */
  stop(graceMs?: number): Promise<Exit>
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
      ...minimalEnv(),
      ...env,
    },
    ...(options.cwd ? { cwd: options.cwd } : {}),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const watched = watch(child)
  if (child.pid === undefined) throw new Error(`${program} did not start (is it installed?)`)
  // Only while it runs: once it is gone, its group's id may be another's.
  const alive = () => child.exitCode === null && child.signalCode === null
  const kill = async (): Promise<Exit> => {
    if (alive()) signalGroup(child, 'SIGKILL')
    const exit = await watched.exited
    running.delete(started)
    return exit
  }
  const stop = async (graceMs = waitBudgetMs): Promise<Exit> => {
    if (alive()) signalGroup(child, 'SIGTERM')
    try {
      const exit = await untilExit(watched, graceMs, 'its exit on SIGTERM')
      running.delete(started)
      return exit
    } catch (error) {
      await kill()
      throw error
    }
  }
  const started: NodeProcess = { ...watched, pid: child.pid, kill, stop }
  running.add(started)
  return started
}

/** Kills every process started here that is still running (for afterAll, whatever happened). */
export async function killAllNodeProcesses(): Promise<void> {
  await Promise.all([...running].map((p) => p.kill()))
}
