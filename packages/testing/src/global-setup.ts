import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { finishTestRun, prepareTestRun, type TestRun } from '@quire/storage/testing'
import './test-database.ts'
import type { TestProject } from 'vitest/node'
import { pgAdminUrl, testEngines } from './env.ts'
import { guardProcesses } from './process-guard.ts'

/**
 * Once per `vitest run`: a migrated PGlite snapshot and a migrated PostgreSQL template database,
 * so that each test file gets a fresh database cheaply. Everything is removed afterwards. And the
 * guard of the processes the tests start (packages/testing/src/process-guard.ts): at the end, any still
 * running is killed (before the databases are dropped) and fails the run.
 */
export async function setup(project: TestProject) {
  const finishProcesses = await guardProcesses()
  const engines = testEngines()
  const dir = await mkdtemp(join(tmpdir(), 'quire-test-'))
  let run: TestRun
  try {
    run = await prepareTestRun({
      pgAdminUrl: pgAdminUrl(),
      snapshotPath: join(dir, 'pglite-snapshot.tar'),
      engines,
    })
  } catch (error) {
    await rm(dir, { recursive: true, force: true })
    await finishProcesses()
    throw error
  }
  project.provide('testRun', run)
  return async () => {
    let leftovers: unknown = null
    try {
      await finishProcesses()
    } catch (error) {
      leftovers = error
    }
    await finishTestRun(run)
    await rm(dir, { recursive: true, force: true })
    if (leftovers) throw leftovers
  }
}
