import { join } from 'node:path'
import type { TestProjectInlineConfiguration } from 'vitest/config'

const include = ['src/**/*.test.ts', 'test/**/*.test.ts']
// In every test file: kill what it started and did not stop (processes.ts).
const setupFiles = [join(import.meta.dirname, 'process-setup.ts')]

/** The run's global setup (global-setup.ts): the test databases and the guard of the processes. */
export const globalSetup = join(import.meta.dirname, 'global-setup.ts')

/** A project of plain unit tests. */
export function unitProject(name: string, root: string): TestProjectInlineConfiguration {
  return { extends: true, test: { name, root, include, setupFiles } }
}

/** The same tests once per database engine: `<name>:pglite` and `<name>:postgres`. */
export function databaseProjects(name: string, root: string): TestProjectInlineConfiguration[] {
  return (['pglite', 'postgres'] as const).map((engine) => ({
    extends: true,
    test: { name: `${name}:${engine}`, root, include, setupFiles, env: { QUIRE_TEST_ENGINE: engine } },
  }))
}
