import { defineConfig } from 'tsup'
import { plainContract } from './build/plain-contract.ts'

/**
 * The CLI installs from npm on its own: the workspace packages it uses (`@quire/client`,
 * `@quire/core/contract`) are bundled in, so its only dependencies are published libraries.
 * yargs-parser is bundled too (its entry without Node built-ins, loaded when flags are parsed).
 * The native keyring, openid-client, the MCP SDK and jq-wasm stay external: each loads only in
 * the commands that need it.
 * `bin.js` stays tiny (`--version` answers without loading the rest); commands load on demand
 * (`splitting`), compiled through Node's compile cache (bin.ts). The contract comes as data written
 * at build time (build/plain-contract.ts), not as the TypeBox code that builds it. Measured in bench/cli.
 */
export default defineConfig({
  entry: ['src/bin.ts', 'src/index.ts'],
  format: ['esm'],
  target: 'node22',
  sourcemap: true,
  clean: true,
  noExternal: [/^@quire\//, /^yargs-parser(\/|$)/],
  splitting: true,
  esbuildPlugins: [plainContract()],
})
