/**
 * The CPU time this thread has spent so far, in milliseconds. A bound on what some work costs (a
 * diff, a page a server in this thread renders) is a bound on the difference of two of these, never
 * on the wall clock: on a loaded 2-core machine the wall clock counts the waits for a core too (a
 * diff of 1 s of CPU took 2.1 s of waiting at load 16), the CPU time does not.
 */
export function threadCpuMs(): number {
  const { user, system } = process.threadCpuUsage()
  return (user + system) / 1000
}
