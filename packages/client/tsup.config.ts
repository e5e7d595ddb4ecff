import { defineConfig } from 'tsup'

// Browser-safe: the entry must run in browsers as well as Node 22+, so build for a neutral platform.
export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm'],
  target: 'node22',
  platform: 'neutral',
  sourcemap: true,
  clean: true,
})
