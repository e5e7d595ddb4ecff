import { defineConfig } from 'tsup'

// The package and its contract entry (`@quire/core/contract`), ESM for Node 22+; declarations from `tsc -p tsconfig.build.json`.
export default defineConfig({
  entry: ['src/index.ts', 'src/contract/index.ts'],
  format: ['esm'],
  target: 'node22',
  sourcemap: true,
  clean: true,
})
