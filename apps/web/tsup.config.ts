import { defineConfig } from 'tsup'
import { packageBuild } from '../../tooling/tsup.config.ts'

// The web app alone (production, PostgreSQL), both apps in one process (`pnpm start`), and the composition for tests.
export default defineConfig(packageBuild(['src/main.ts', 'src/serve-local.ts', 'src/index.ts']))
