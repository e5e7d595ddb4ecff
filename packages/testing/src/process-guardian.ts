/**
 * The guardian of a test run's processes (started by packages/testing/src/process-guard.ts, in a session
 * of its own): it waits until its standard input closes, which happens when the vitest process
 * ends however it ends (even SIGKILLed), then kills what the run's tests started and is still
 * alive, and removes the run's directory. When the run ended normally, the teardown did all that
 * already and this finds nothing.
 *
 *   node process-guardian.ts RUN_DIR [VITEST_GROUP]
 */
import { rmSync } from 'node:fs'
import { killLeftovers } from './process-records.ts'

const [dir, group] = process.argv.slice(2)
if (!dir) throw new Error('usage: process-guardian.ts RUN_DIR [VITEST_GROUP]')
const exceptGroup = group ? Number(group) : null

let done = false
async function sweep() {
  if (done) return
  done = true
  await killLeftovers(dir ?? '', exceptGroup)
  rmSync(dir ?? '', { recursive: true, force: true })
  process.exit(0)
}
process.stdin.on('end', sweep)
process.stdin.on('error', sweep)
process.stdin.resume()
