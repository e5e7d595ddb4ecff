import { defineConfig } from 'vitest/config'
import { databaseProjects, unitProject } from './tooling/vitest/projects.ts'
import { sourceAliases } from './tooling/vitest/source-aliases.ts'

export default defineConfig({
  // Workspace packages resolve to their TypeScript sources: tests need no build.
  resolve: { alias: sourceAliases(import.meta.dirname) },
  test: {
    globalSetup: ['./tooling/vitest/global-setup.ts'],
    // Two cores; each PGlite instance is heavy. More workers only queue on the CPU.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      unitProject('core', 'packages/core'),
      unitProject('authz', 'packages/authz'),
      unitProject('agent-auth', 'packages/agent-auth'),
      unitProject('client', 'packages/client'),
      unitProject('mcp', 'packages/mcp'),
      ...databaseProjects('storage', 'packages/storage'),
      ...databaseProjects('api', 'apps/api'),
      ...databaseProjects('web', 'apps/web'),
      unitProject('cli', 'packages/cli'),
      unitProject('tooling', 'tooling'),
    ],
  },
})
