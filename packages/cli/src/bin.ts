#!/usr/bin/env node
/**
 * `quire`. Kept tiny: `--version` answers from here without loading the parser, the client or
 * any command (start-up is measured in bench/cli); everything else loads on demand.
 */
import { cliVersion } from './version.ts'

const argv = process.argv.slice(2)

/** `--version` is the client's version, except after `artifact content|restore`, where it is the artifact's. */
function asksForClientVersion(args: readonly string[]): boolean {
  if (!args.includes('--version')) return false
  const artifact = args.indexOf('artifact')
  return !(artifact >= 0 && (args[artifact + 1] === 'content' || args[artifact + 1] === 'restore'))
}

if (asksForClientVersion(argv)) {
  process.stdout.write(`${cliVersion}\n`)
} else {
  const { main } = await import('./run/main.ts')
  process.exitCode = await main(argv)
}
