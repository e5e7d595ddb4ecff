import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { finishTestRun, prepareTestRun, type TestEngine } from '@quire/storage/testing'
import './test-database.ts'
import type { TestProject } from 'vitest/node'

/**
 * Once per `vitest run`: a migrated PGlite snapshot and a migrated PostgreSQL template database,
 * so that each test file gets a fresh database cheaply. Everything is removed afterwards.
 */
export async function setup(project: TestProject) {
  const engines = (process.env.QUIRE_TEST_ENGINES ?? 'pglite,postgres').split(',').filter(Boolean) as TestEngine[]
  const dir = await mkdtemp(join(tmpdir(), 'quire-test-'))
  const run = await prepareTestRun({
    pgAdminUrl: process.env.QUIRE_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    snapshotPath: join(dir, 'pglite-snapshot.tar'),
    engines,
  })
  project.provide('testRun', run)
  return async () => {
    await finishTestRun(run)
    await rm(dir, { recursive: true, force: true })
  }
}
