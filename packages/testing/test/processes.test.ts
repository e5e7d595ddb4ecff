/**
 * No test leaves a process behind, however it ends: a child vitest, wired as this repository's
 * (packages/testing/test/fixtures/processes), runs a test file that starts a server (itself with a child)
 * through the helpers and then forgets it, or dies, or also starts a process of its own in a new
 * session. Once that run is over, none of those processes may be alive; a run that left any
 * behind must fail, naming them.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { finish, spawnTracked, watch } from '../src/processes.ts'
import { timeoutFor, waitBudgetMs } from '../src/waits.ts'

const fixtures = join(import.meta.dirname, 'fixtures/processes')
const vitest = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs')
const scratch = mkdtempSync(join(tmpdir(), 'quire-processes-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

/** Alive: it exists and is not a zombie (exited, waiting to be reaped). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return !['Z', 'X'].includes(stat.slice(stat.lastIndexOf(')') + 2)[0] ?? '')
  } catch {
    if (existsSync('/proc/self')) return false
    try {
      process.kill(pid, 0)
      return true
    } catch {
      return false
    }
  }
}

async function runFixture(fixtureCase: 'forgotten' | 'worker-dies' | 'escaped') {
  const out = join(scratch, `${fixtureCase}.pids`)
  const child = spawnTracked(process.execPath, [vitest, 'run', '--config', join(fixtures, 'vitest.config.ts')], {
    cwd: fixtures,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: scratch,
      ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
      NO_COLOR: '1',
      QUIRE_TEST_ENGINES: '',
      FIXTURE_CASE: fixtureCase,
      FIXTURE_OUT: out,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  // The child run waits once itself (for its server's first line): two budgets, for its start and that wait.
  const { code } = await finish(child, { budgetMs: 2 * waitBudgetMs })
  const output = watch(child).output()
  const pids = existsSync(out) ? readFileSync(out, 'utf8').split(' ').map(Number) : []
  // What the child run could not stop is stopped here, so that a failure leaves nothing either.
  const survivors = pids.filter(alive)
  for (const pid of survivors) process.kill(pid, 'SIGKILL')
  return { code, output, pids, survivors }
}

// Each test waits for one run of the child vitest to end (two budgets).
describe('processes started by tests', { timeout: timeoutFor(2) }, () => {
  it('a file that forgets its server: the server and its child are stopped when the file ends, and the run passes', async () => {
    const run = await runFixture('forgotten')
    expect(run.pids, run.output).toHaveLength(2)
    expect(run.survivors, run.output).toEqual([])
    expect(run.code, run.output).toBe(0)
  })

  it('a worker that dies while its server runs: the teardown kills the server and its child, and fails the run naming it', async () => {
    const run = await runFixture('worker-dies')
    expect(run.pids, run.output).toHaveLength(2)
    expect(run.survivors, run.output).toEqual([])
    expect(run.code, run.output).not.toBe(0)
    expect(run.output).toMatch(/still running after the test files ended[\s\S]*fixtures\/processes\/server\.ts/)
  })

  it('a process started without the helpers, in a session of its own: found by the teardown, killed, and the run fails naming it', async () => {
    const run = await runFixture('escaped')
    expect(run.pids, run.output).toHaveLength(3)
    expect(run.survivors, run.output).toEqual([])
    expect(run.code, run.output).not.toBe(0)
    expect(run.output).toMatch(/still running after the test files ended[\s\S]*sleep 301/)
  })
})
