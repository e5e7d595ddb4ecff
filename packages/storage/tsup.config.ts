import { defineConfig } from 'tsup'

// The package and its test-database entry (`@quire/storage/testing`), ESM for Node 22+; declarations from `tsc -p tsconfig.build.json`.
export default defineConfig({ entry: ['src/index.ts', 'src/testing.ts'], format: ['esm'], target: 'node22', sourcemap: true, clean: true })
