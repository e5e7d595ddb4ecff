import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * What a test run knows about the processes its tests start, shared by the workers (which record
 * them), the global teardown and the guardian (which find and kill what is left): plain Node, no
 * vitest. A run has a directory, named by this variable in the workers' environment and in the
 * environment of every process a test starts (so that /proc shows which processes are the run's,
 * whatever became of their parents); each process group a test starts has one file in it, removed
 * once the group is gone.
 */
export const runDirVariable = 'QUIRE_TEST_PROCESS_DIR'

export interface ProcessRecord {
  /** The group's id: the pid of its leader (started with `detached: true`). */
  readonly pgid: number
  readonly command: string
}

/** Records a group; the returned function forgets it. */
export function recordGroup(dir: string, pgid: number, command: string): () => void {
  const file = join(dir, `${pgid}.json`)
  writeFileSync(file, JSON.stringify({ pgid, command } satisfies ProcessRecord))
  return () => rmSync(file, { force: true })
}

export function readRecords(dir: string): ProcessRecord[] {
  let files: string[]
  try {
    files = readdirSync(dir)
  } catch {
    return []
  }
  const records: ProcessRecord[] = []
  for (const file of files) {
    try {
      records.push(JSON.parse(readFileSync(join(dir, file), 'utf8')) as ProcessRecord)
    } catch {
      // Being written or removed right now.
    }
  }
  return records
}

interface ProcInfo {
  readonly pid: number
  readonly ppid: number
  readonly pgid: number
  /** R, S, D, T, Z (zombie: exited, not reaped yet), X (dead)… */
  readonly state: string
}

function readProc(pid: number): ProcInfo | null {
  try {
    // "pid (comm) state ppid pgrp …"; comm may hold spaces and parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const [state, ppid, pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return state && ppid && pgrp ? { pid, ppid: Number(ppid), pgid: Number(pgrp), state } : null
  } catch {
    return null
  }
}

function procPids(): number[] | null {
  try {
    return readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .map(Number)
  } catch {
    return null
  }
}

/** This process's live children that lead a process group of their own, with their command lines (Linux; else none). */
export function groupLeadingChildren(): { pid: number; command: string }[] {
  return (procPids() ?? [])
    .map(readProc)
    .filter((p): p is ProcInfo => p !== null && p.ppid === process.pid && p.pgid === p.pid && p.state !== 'Z')
    .map((p) => ({ pid: p.pid, command: commandOf(p.pid, Number.POSITIVE_INFINITY) }))
}

function commandOf(pid: number, max = 300): string {
  try {
    const line = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ')
    if (line) return line.length > max ? `${line.slice(0, max)}…` : line
  } catch {}
  return '?'
}

function carries(pid: number, marker: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(marker)
  } catch {
    return false
  }
}

/** This process's group (to leave its workers out of the search), where /proc tells. */
export function ownGroup(): number | null {
  return readProc(process.pid)?.pgid ?? null
}

export interface Leftover {
  readonly pid: number
  readonly pgid: number
  readonly command: string
}

/**
 * The run's processes still alive: every member of a recorded group, and every process that
 * carries the run's variable outside `exceptGroup` (the vitest process's own group: its workers,
 * and the short commands they run and wait for). Zombies are dead. Without /proc (not Linux),
 * only the recorded groups, by signal 0.
 */
export function findLeftovers(dir: string, exceptGroup: number | null): Leftover[] {
  const groups = new Map(readRecords(dir).map((r) => [r.pgid, r.command]))
  const pids = procPids()
  if (!pids) return [...groups].filter(([pgid]) => signalable(-pgid)).map(([pgid, command]) => ({ pid: pgid, pgid, command }))
  const marker = `${runDirVariable}=${dir}`
  const found: Leftover[] = []
  for (const pid of pids) {
    if (pid === process.pid) continue
    const info = readProc(pid)
    if (!info || info.state === 'Z' || info.state === 'X') continue
    if (groups.has(info.pgid) || (info.pgid !== exceptGroup && carries(pid, marker)))
      found.push({ pid, pgid: info.pgid, command: commandOf(pid) })
  }
  return found
}

/** Whether the process is alive: it exists and is not a zombie (exited, not reaped yet). */
export function processAlive(pid: number): boolean {
  if (!signalable(pid)) return false
  const info = readProc(pid)
  return info === null ? !existsSync('/proc/self') : info.state !== 'Z' && info.state !== 'X'
}

/** Whether any process of the group is alive (not a zombie). */
export function groupAlive(pgid: number): boolean {
  if (!signalable(-pgid)) return false
  const pids = procPids()
  if (!pids) return true
  return pids.some((pid) => {
    const info = readProc(pid)
    return info !== null && info.pgid === pgid && info.state !== 'Z' && info.state !== 'X'
  })
}

function signalable(target: number): boolean {
  try {
    process.kill(target, 0)
    return true
  } catch {
    return false
  }
}

/** SIGKILL to a process group; nothing when it is gone already. */
export function killGroup(pgid: number, signal: NodeJS.Signals = 'SIGKILL'): void {
  try {
    process.kill(-pgid, signal)
  } catch {}
}

/**
 * Finds the run's leftover processes and SIGKILLs them (a recorded group whole, any other one
 * alone), until none is left or `timeoutMs` passes. Returns what it found the first time.
 */
export async function killLeftovers(dir: string, exceptGroup: number | null, timeoutMs = 10_000): Promise<Leftover[]> {
  const first = findLeftovers(dir, exceptGroup)
  const recorded = new Set(readRecords(dir).map((r) => r.pgid))
  const deadline = Date.now() + timeoutMs
  for (let left = first; left.length > 0 && Date.now() < deadline; left = findLeftovers(dir, exceptGroup)) {
    for (const { pid, pgid } of left) {
      if (recorded.has(pgid)) killGroup(pgid)
      try {
        process.kill(pid, 'SIGKILL')
      } catch {}
    }
    await new Promise((done) => setTimeout(done, 50))
  }
  return first
}
