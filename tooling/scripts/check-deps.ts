import { resolve } from 'node:path'
import { checkBoundaries, knownCycles } from './boundaries.ts'

// `node tooling/scripts/check-deps.ts [workspace]`: this repository by default; the allowed cycles are its own.
const repository = resolve(import.meta.dirname, '../..')
const root = resolve(process.argv[2] ?? repository)
const problems = checkBoundaries(root, root === repository ? knownCycles : [])
if (problems.length > 0) {
  process.stderr.write(`Package boundaries violated:\n${problems.map((p) => `  - ${p}`).join('\n')}\n`)
  process.exit(1)
}
process.stdout.write('Package boundaries hold.\n')
