import { readFileSync, unlinkSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'

/** Another live process has the embedded database open. */
export class DatabaseInUseError extends Error {
  readonly pid: number
  readonly dataDir: string
  constructor(pid: number, dataDir: string) {
    super(`The embedded database in ${dataDir} is in use by process ${pid}.`)
    this.name = 'DatabaseInUseError'
    this.pid = pid
    this.dataDir = dataDir
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false
  }
  return !zombie(pid)
}

/**
 * A killed process keeps its pid until its parent reaps it (an orphan waits for init, which may
 * take seconds), yet it will never touch the directory again. Linux only; elsewhere, false.
 */
function zombie(pid: number): boolean {
  try {
    // "pid (comm) state …": comm may hold spaces and parentheses, the state follows the last ")".
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3)
    return state === 'Z' || state === 'X'
  } catch {
    return false
  }
}

/**
 * PGlite is a single-process database: two processes writing one data directory would corrupt
 * it. A pid file claims the directory; a claim left by a dead process is taken over.
 * Returns the release function.
 */
const heldHere = new Set<string>()

export function lockDataDir(dataDir: string): () => void {
  // Beside the directory, not in it: the directory belongs to PostgreSQL.
  const file = `${resolve(dataDir)}.pid`
  if (heldHere.has(file)) throw new DatabaseInUseError(process.pid, dataDir)
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' })
      heldHere.add(file)
      return () => {
        heldHere.delete(file)
        try {
          if (readFileSync(file, 'utf8') === String(process.pid)) unlinkSync(file)
        } catch {
          // Already gone.
        }
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const pid = Number.parseInt(readFileSync(file, 'utf8'), 10)
      if (Number.isInteger(pid) && pid !== process.pid && alive(pid)) throw new DatabaseInUseError(pid, dataDir)
      unlinkSync(file)
    }
  }
  throw new Error(`Could not claim ${dataDir}`)
}
