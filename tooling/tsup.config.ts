import { defineConfig, type Options } from 'tsup'

/** The shared tsup build for every package: ESM for Node 22+, entries from `src/`. */
export function packageBuild(entry: Options['entry'] = ['src/index.ts'], extra: Options = {}): Options {
  return { entry, format: ['esm'], target: 'node22', platform: 'node', sourcemap: true, clean: true, dts: false, ...extra }
}

export default defineConfig(packageBuild())
