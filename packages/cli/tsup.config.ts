import { defineConfig } from 'tsup'
import { packageBuild } from '../../tooling/tsup.config.ts'

/**
 * The CLI installs from npm on its own: the workspace packages it uses (`@quire/client`,
 * `@quire/core/contract`) are bundled in, so its only dependencies are published libraries.
 * `bin.js` stays tiny (`--version` answers without loading the rest); commands load on demand.
 */
export default defineConfig(
  packageBuild(['src/bin.ts', 'src/index.ts'], {
    noExternal: [/^@quire\//],
    splitting: true,
  }),
)
