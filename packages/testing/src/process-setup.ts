import { afterAll } from 'vitest'
import { stopTrackedProcesses } from './processes.ts'

// In every test file (a setup file of every project): after the file's own afterAll hooks (hooks
// run in reverse order of registration, and this one is registered first), every process group
// the file started and did not stop is killed, whatever happened to its set-up.
afterAll(async () => {
  await stopTrackedProcesses()
})
