import { defineConfig } from 'tsup'

// ESM for Node 22+ (tsup's platform is node); declarations from `tsc -p tsconfig.build.json` (the build script).
export default defineConfig({ entry: ['src/index.ts'], format: ['esm'], target: 'node22', sourcemap: true, clean: true })
