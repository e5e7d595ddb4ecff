import { dirname } from 'node:path'
import { defineConfig, type Options } from 'tsup'

type EsbuildPlugin = NonNullable<Options['esbuildPlugins']>[number]

/**
 * `string-width` (yargs' and cliui's) builds an `Intl.Segmenter` and Unicode-property regular
 * expressions (`\p{RGI_Emoji}`) when it is imported: tens of milliseconds at every start, which
 * the compile cache cannot keep, for a function only help text calls. Here every import of it
 * gets a stand-in that answers printable ASCII itself (the width is the length, as string-width
 * says too) and loads the real module, bundled, on its first other call.
 */
const lazyStringWidth: EsbuildPlugin = {
  name: 'lazy-string-width',
  setup(build) {
    build.onResolve({ filter: /^string-width$/ }, async (args) => {
      if (args.pluginData === 'real') return undefined
      const real = await build.resolve(args.path, { resolveDir: args.resolveDir, kind: args.kind, pluginData: 'real' })
      if (real.errors.length > 0) return { errors: real.errors }
      return { path: real.path, namespace: 'lazy-string-width' }
    })
    build.onLoad({ filter: /.*/, namespace: 'lazy-string-width' }, (args) => ({
      // esbuild bundles a `require` of an ES module as a closure that runs it on that first call.
      contents: `let real
export default function stringWidth(text, options) {
  if (typeof text === 'string' && /^[\\x20-\\x7e]*$/.test(text)) return text.length
  real ??= require(${JSON.stringify(args.path)}).default
  return real(text, options)
}
`,
      resolveDir: dirname(args.path),
      loader: 'js',
    }))
  },
}

/**
 * The CLI installs from npm on its own: the workspace packages it uses (`@quire/client`,
 * `@quire/core/contract`) are bundled in, so its only dependencies are published libraries.
 * yargs is bundled too (one file to read and compile instead of some forty modules to resolve),
 * with `string-width` loaded on demand (above). The native keyring, openid-client, the MCP SDK
 * and jq-wasm stay external: each loads only in the commands that need it.
 * `bin.js` stays tiny (`--version` answers without loading the rest); commands load on demand
 * (`splitting`), compiled through Node's compile cache (bin.ts). Measured in bench/cli.
 */
export default defineConfig({
  entry: ['src/bin.ts', 'src/index.ts'],
  format: ['esm'],
  target: 'node22',
  sourcemap: true,
  clean: true,
  noExternal: [/^@quire\//, 'yargs', /^yargs\//],
  esbuildPlugins: [lazyStringWidth],
  splitting: true,
})
