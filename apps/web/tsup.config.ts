import { defineConfig } from 'tsup'

// The web app alone (production, PostgreSQL), both apps in one process (`pnpm start`), and the composition for tests.
export default defineConfig({
  entry: ['src/main.ts', 'src/serve-local.ts', 'src/index.ts'],
  format: ['esm'],
  target: 'node22',
  sourcemap: true,
  clean: true,
})
