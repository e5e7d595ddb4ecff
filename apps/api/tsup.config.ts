import { defineConfig } from 'tsup'
import { packageBuild } from '../../tooling/tsup.config.ts'

// The server and the operator command.
export default defineConfig(packageBuild(['src/main.ts', 'src/admin.ts']))
