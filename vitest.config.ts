import { databaseProjects, globalSetup, unitProject } from '@quire/testing/projects'
import { sourceAliases } from '@quire/testing/source-aliases'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  // Workspace packages resolve to their TypeScript sources: tests need no build.
  resolve: { alias: sourceAliases(import.meta.dirname) },
  test: {
    globalSetup: [globalSetup],
    // Two cores; each PGlite instance is heavy. More workers only queue on the CPU.
    maxWorkers: 2,
    // Budgets a busy 2-core machine meets (the test line runs at a load of 16 and more): a test of a
    // thousand requests that takes 20 s alone takes three times that there. A test that waits for
    // a process or a browser has its own budget from packages/testing/src/waits.ts.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    projects: [
      unitProject('core', 'packages/core'),
      unitProject('authz', 'packages/authz'),
      unitProject('agent-auth', 'packages/agent-auth'),
      unitProject('client', 'packages/client'),
      unitProject('mcp', 'packages/mcp'),
      unitProject('render', 'packages/render'),
      unitProject('pages', 'packages/pages'),
      unitProject('sign-in', 'packages/sign-in'),
      ...databaseProjects('storage', 'packages/storage'),
      ...databaseProjects('api', 'apps/api'),
      ...databaseProjects('web', 'apps/web'),
      unitProject('cli', 'packages/cli'),
      unitProject('testing', 'packages/testing'),
      unitProject('tooling', 'tooling'),
    ],
  },
})
