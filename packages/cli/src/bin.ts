#!/usr/bin/env node
/**
 * `quire`. Kept tiny: `--version` answers from here without loading the parser, the client or
 * any command (start-up is measured in bench/cli); everything else loads on demand, through
 * Node's module compile cache (the compiled code of the bundle is kept on disk, in
 * `$TMPDIR/node-compile-cache` unless NODE_COMPILE_CACHE says where; NODE_DISABLE_COMPILE_CACHE=1
 * turns it off).
 */
import module from 'node:module'
import { cliVersion } from './version.ts'

const argv = process.argv.slice(2)

/**
 * `quire --version` (flags only, no command): the client's version. With a command, main decides:
 * `--version` of `artifact content|restore` is the artifact's version.
 */
function asksForClientVersion(args: readonly string[]): boolean {
  return args.includes('--version') && args.every((a) => a.startsWith('-'))
}

if (asksForClientVersion(argv)) {
  process.stdout.write(`${cliVersion}\n`)
} else {
  // Node 22.1+; a cache that cannot be opened only costs the time it would have saved.
  module.enableCompileCache?.()
  const { main } = await import('./run/main.ts')
  process.exitCode = await main(argv)
}
