import type { TestProjectInlineConfiguration } from 'vitest/config'

const include = ['src/**/*.test.ts', 'test/**/*.test.ts']

/** A project of plain unit tests. */
export function unitProject(name: string, root: string): TestProjectInlineConfiguration {
  return { extends: true, test: { name, root, include } }
}

/** The same tests once per database engine: `<name>:pglite` and `<name>:postgres`. */
export function databaseProjects(name: string, root: string): TestProjectInlineConfiguration[] {
  return (['pglite', 'postgres'] as const).map((engine) => ({
    extends: true,
    test: { name: `${name}:${engine}`, root, include, env: { QUIRE_TEST_ENGINE: engine } },
  }))
}
