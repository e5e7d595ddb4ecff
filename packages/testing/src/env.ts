import type { TestEngine } from '@quire/storage/testing'

/**
 * The test harness's one window on the environment (as each app's env.ts is the app's): the
 * run's settings, and what a process the tests start inherits. Nothing else in the harness reads
 * or writes `process.env`.
 */

/** The engines a run prepares (QUIRE_TEST_ENGINES, default both). */
export function testEngines(): TestEngine[] {
  return (process.env.QUIRE_TEST_ENGINES ?? 'pglite,postgres').split(',').filter(Boolean) as TestEngine[]
}

/** The engine of the running project (QUIRE_TEST_ENGINE, set per project by projects.ts). */
export function projectEngine(): TestEngine {
  return (process.env.QUIRE_TEST_ENGINE ?? 'pglite') as TestEngine
}

/** Where the run creates its PostgreSQL template (QUIRE_TEST_PG_URL). */
export function pgAdminUrl(): string {
  return process.env.QUIRE_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
}

/** The whole environment, as a child started without one of its own inherits it. */
export function inheritedEnv(): NodeJS.ProcessEnv {
  return process.env
}

/** The least a program needs to run (PATH, HOME, TMPDIR), for a child given an environment built from scratch. */
export function minimalEnv(): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
  }
}

/** A variable of this process's environment (the run's process directory, say). */
export function envVariable(name: string): string | undefined {
  return process.env[name]
}

/** Sets a variable for this process and every worker and child started after it. */
export function setEnvVariable(name: string, value: string): void {
  process.env[name] = value
}
