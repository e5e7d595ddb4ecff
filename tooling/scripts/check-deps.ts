import { resolve } from 'node:path'
import { checkBoundaries } from './boundaries.ts'

// `node tooling/scripts/check-deps.ts [workspace]`: this repository by default.
const root = resolve(process.argv[2] ?? resolve(import.meta.dirname, '../..'))
const problems = checkBoundaries(root)
if (problems.length > 0) {
  process.stderr.write(`Package boundaries violated:\n${problems.map((p) => `  - ${p}`).join('\n')}\n`)
  process.exit(1)
}
process.stdout.write('Package boundaries hold.\n')
