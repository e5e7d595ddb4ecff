import { defineConfig } from 'tsup'
import { packageBuild } from '../../tooling/tsup.config.ts'

// Browser-safe: the entry must run in browsers as well as Node 22+, so build for a neutral platform.
export default defineConfig(packageBuild(['src/index.ts'], { platform: 'neutral' }))
