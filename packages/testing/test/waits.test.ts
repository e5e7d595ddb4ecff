/**
 * The waits for a process (packages/testing/src/waits.ts): each returns on the process's own signal, and
 * one that gives up says what it awaited, the process's command, how long it waited and the end of
 * the process's output; a run that gives up leaves no process behind.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { killAllNodeProcesses, spawnProcess } from '../src/node-process.ts'
import { finish, processAlive, spawnTracked } from '../src/processes.ts'
import { timeoutFor, untilExit, untilLine } from '../src/waits.ts'

afterAll(() => killAllNodeProcesses())

/** `node -e script` with a handle (packages/testing/src/node-process.ts). */
const node = (script: string) => spawnProcess(process.execPath, ['-e', script], {})

/** A script that prints `lines` lines, then `then`. */
const printing = (lines: number, then: string) => `for (let i = 1; i <= ${lines}; i++) console.log('line ' + i); ${then}`
const forever = 'setInterval(() => {}, 1 << 30)'

describe('waits for a process', { timeout: timeoutFor(1) }, () => {
  it('untilLine returns the first line that matches, as the process prints it', async () => {
    const started = node(`console.log('starting'); setTimeout(() => console.log('ready on 4242'), 200); ${forever}`)
    const [, port] = await untilLine(started, /^ready on (\d+)$/)
    expect(port).toBe('4242')
    await started.kill()
  })

  it('giving up names what it awaited, the command, how long it waited, and the end of the output', async () => {
    const started = node(printing(60, forever))
    // All 60 lines first (a loaded machine may take seconds to start node), then a short wait that gives up.
    await untilLine(started, /^line 60$/)
    const failure = await untilLine(started, /^ready$/, 500).catch((error: Error) => error)
    expect(failure).toBeInstanceOf(Error)
    const message = (failure as Error).message
    expect(message).toMatch(/^Gave up waiting for a line matching \/\^ready\$\/ after \d+\.\d s; `\S*node -e .*` is still running\.\n/)
    // The end of the output (its last 40 lines), not its beginning.
    expect(message).toContain('line 60')
    expect(message).toContain('line 21\n')
    expect(message).not.toContain('line 20\n')
    await started.kill()
  })

  it('a process that ends first ends the wait at once, saying how it ended', async () => {
    const started = node(printing(2, 'process.exit(3)'))
    const began = performance.now()
    const failure = await untilLine(started, /^ready$/).catch((error: Error) => error)
    expect(performance.now() - began).toBeLessThan(10_000)
    expect((failure as Error).message).toMatch(/^`\S*node -e .*` ended \(exit code 3\) \d+\.\d s into the wait for a line matching/)
    expect((failure as Error).message).toContain('line 2')
  })

  it('untilExit returns how the process ended, or gives up naming its exit', async () => {
    expect(await untilExit(node('process.exit(4)'))).toEqual({ code: 4, signal: null })
    const started = node(`console.log('still here'); ${forever}`)
    await untilLine(started, /still here/)
    const failure = await untilExit(started, 300).catch((error: Error) => error)
    expect((failure as Error).message).toMatch(
      /^Gave up waiting for its exit after \d+\.\d s; `.*` is still running\.\nThe end of its output:\nstill here$/,
    )
    await started.kill()
  })

  it('stop() waits for a graceful exit; a process that ignores SIGTERM is killed and the wait fails, naming it', async () => {
    const graceful = node(`process.on('SIGTERM', () => process.exit(0)); console.log('up'); ${forever}`)
    await untilLine(graceful, /^up$/)
    expect(await graceful.stop()).toEqual({ code: 0, signal: null })
    const stubborn = node(`process.on('SIGTERM', () => console.log('ignoring SIGTERM')); console.log('up'); ${forever}`)
    await untilLine(stubborn, /^up$/)
    const failure = await stubborn.stop(500).catch((error: Error) => error)
    expect((failure as Error).message).toMatch(/^Gave up waiting for its exit on SIGTERM after \d+\.\d s/)
    expect((failure as Error).message).toContain('ignoring SIGTERM')
    expect(processAlive(stubborn.pid)).toBe(false)
  })

  it('finish() runs a command to its end; past its budget it kills the command and fails, naming it', async () => {
    const done = await finish(spawnTracked(process.execPath, ['-e', 'process.stdin.pipe(process.stdout)']), { stdin: 'echoed' })
    expect(done).toMatchObject({ code: 0, stdout: 'echoed', stderr: '' })
    const child = spawnTracked(process.execPath, ['-e', `console.error('working'); ${forever}`])
    const failure = await finish(child, { budgetMs: 500 }).catch((error: Error) => error)
    expect((failure as Error).message).toMatch(
      /^Gave up waiting for its exit after \d+\.\d s; `.*` is still running\.\nThe end of its output:\nworking$/,
    )
    await expect.poll(() => processAlive(child.pid as number)).toBe(false)
  })
})
