import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
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
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'])
    try {
      writeFileSync(`${dir}.pid`, String(other.pid))
      expect(() => lockDataDir(dir)).toThrow(`in use by process ${other.pid}`)
    } finally {
      other.kill()
    }
  })

  it('takes over a claim left by a process that is gone', () => {
    const dir = dataDir()
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString()
    writeFileSync(`${dir}.pid`, gone)
    const release = lockDataDir(dir)
    release()
  })
})
