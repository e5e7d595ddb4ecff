import { defineConfig } from 'tsup'

// The server and the operator command, ESM for Node 22+.
export default defineConfig({ entry: ['src/main.ts', 'src/admin.ts'], format: ['esm'], target: 'node22', sourcemap: true, clean: true })
