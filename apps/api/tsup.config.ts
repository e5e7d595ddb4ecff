import { defineConfig } from 'tsup'
import { packageBuild } from '../../tooling/tsup.config.ts'

// The server, the operator command and the composition for tests and benches.
export default defineConfig(packageBuild(['src/main.ts', 'src/admin.ts', 'src/index.ts']))
