/**
 * CPU time spent per request, by the server process and by its database's PostgreSQL backends,
 * read from /proc (Linux). On a two-core machine shared by the servers, PostgreSQL and the load
 * generator, req/s moves with the neighbours from run to run; CPU per request barely does, and it
 * says which side of the wire a difference lives on.
 */
import { readFileSync } from 'node:fs'
import pg from 'pg'

/** Linux reports utime and stime in clock ticks of 1/100 s (USER_HZ). */
const MS_PER_TICK = 10

/** User + system CPU of a process so far, in ms (0 once it is gone). */
export function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) * MS_PER_TICK
  } catch {
    return 0
  }
}

/** Watches the backends serving one database (not the watcher's own). */
export async function databaseCpu(url: string) {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  const sample = async () => {
    const { rows } = await client.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    )
    return new Map(rows.map(({ pid }) => [pid, processCpuMs(pid)]))
  }
  return {
    sample,
    /** CPU ms the backends spent since `before` (backends opened meanwhile count from zero). */
    async since(before: Map<number, number>): Promise<number> {
      let total = 0
      for (const [pid, ms] of await sample()) total += ms - (before.get(pid) ?? 0)
      return total
    },
    close: () => client.end(),
  }
}
