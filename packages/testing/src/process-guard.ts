import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import type { Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { minimalEnv, setEnvVariable } from './env.ts'
import { killLeftovers, ownGroup, runDirVariable } from './process-records.ts'

const guardianScript = join(import.meta.dirname, 'process-guardian.ts')

/**
 * For the global setup: a directory for the run's process records, named to the workers through
 * the environment they inherit (packages/testing/src/processes.ts), and a guardian process that kills
 * what is left if this process dies without a teardown. The returned teardown kills every process
 * the run's tests started that is still alive, and then throws, naming them: a test must stop what
 * it starts, so a leftover fails the run.
 */
export async function guardProcesses(): Promise<() => Promise<void>> {
  const dir = await mkdtemp(join(tmpdir(), 'quire-test-processes-'))
  const exceptGroup = ownGroup()
  const guardian = spawn(process.execPath, [guardianScript, dir, String(exceptGroup ?? '')], {
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
    env: minimalEnv(),
  })
  guardian.unref()
  ;(guardian.stdin as unknown as Socket | null)?.unref()
  setEnvVariable(runDirVariable, dir)

  return async () => {
    const left = await killLeftovers(dir, exceptGroup)
    guardian.stdin?.end()
    await rm(dir, { recursive: true, force: true })
    if (left.length > 0) {
      throw new Error(
        `${left.length} process(es) started by the tests were still running after the test files ended (killed now; a test must stop what it starts, see packages/testing/src/processes.ts):\n${left
          .map((p) => `  pid ${p.pid} (group ${p.pgid}): ${p.command}`)
          .join('\n')}`,
      )
    }
  }
}

/** As a global setup on its own (the fixtures of packages/testing/test/processes.test.ts). */
export async function setup(): Promise<() => Promise<void>> {
  return guardProcesses()
}
