import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { signalGroup, spawnTracked, watch } from '@quire/testing/processes'
import { timeoutFor, until, untilLine } from '@quire/testing/waits'
import { afterEach, describe, expect, it } from 'vitest'
import { DatabaseInUseError, lockDataDir } from '../src/data-dir-lock.ts'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})
function dataDir() {
  const d = mkdtempSync(join(tmpdir(), 'quire-lock-'))
  dirs.push(d)
  return join(d, 'pglite')
}

describe('the embedded database belongs to one holder at a time', () => {
  it('refuses a second holder in the same process until the first lets go', () => {
    const dir = dataDir()
    const release = lockDataDir(dir)
    expect(() => lockDataDir(dir)).toThrow(DatabaseInUseError)
    release()
    expect(existsSync(`${dir}.pid`)).toBe(false)
    lockDataDir(dir)()
  })

  it('refuses while another live process holds it', () => {
    const dir = dataDir()
    const other = spawnTracked(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'])
    try {
      writeFileSync(`${dir}.pid`, String(other.pid))
      expect(() => lockDataDir(dir)).toThrow(`in use by process ${other.pid}`)
    } finally {
      signalGroup(other, 'SIGKILL')
    }
  })

  it('takes over a claim left by a process that is gone', () => {
    const dir = dataDir()
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString()
    writeFileSync(`${dir}.pid`, gone)
    const release = lockDataDir(dir)
    release()
  })

  // A SIGKILLed server whose parent has not reaped it yet (an orphan waits for init) still has
  // its pid, as a zombie; a restart in that window must not be refused.
  // Waits: the child's pid, then its death.
  it.runIf(process.platform === 'linux')(
    'takes over a claim left by a killed process that is not reaped yet',
    {
      timeout: timeoutFor(2),
    },
    async () => {
      const dir = dataDir()
      // `sh` starts a child, then becomes `sleep`, which never waits for it: killed, the child stays a zombie.
      const parent = spawnTracked('sh', ['-c', 'sleep 600 & echo $!; exec sleep 600'], { stdio: ['ignore', 'pipe', 'ignore'] })
      const watched = watch(parent)
      try {
        const pid = Number((await untilLine(watched, /^\d+$/))[0])
        process.kill(pid, 'SIGKILL')
        const state = () => readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0]
        await until(
          () => `the killed child ${pid} to be a zombie (its state: ${state()})`,
          () => state() === 'Z',
          { process: watched },
        )
        writeFileSync(`${dir}.pid`, String(pid))
        const release = lockDataDir(dir)
        release()
      } finally {
        signalGroup(parent, 'SIGKILL')
      }
    },
  )
})
