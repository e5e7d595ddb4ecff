import { freshTestDatabase, type TestDatabase, type TestEngine, type TestRun } from '@quire/storage/testing'
import { inject } from 'vitest'
import { projectEngine } from './env.ts'

declare module 'vitest' {
  export interface ProvidedContext {
    testRun: TestRun
  }
}

/** The engine of the running project (`<name>:pglite` or `<name>:postgres`). */
export const testEngine: TestEngine = projectEngine()

/** A fresh migrated database of this project's engine, private to the calling test file. */
export function testDatabase(options: { poolSize?: number; empty?: boolean } = {}): Promise<TestDatabase> {
  return freshTestDatabase(inject('testRun'), testEngine, options)
}
