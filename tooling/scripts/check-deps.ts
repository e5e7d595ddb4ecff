import { resolve } from 'node:path'
import { checkBoundaries } from './boundaries.ts'

const root = resolve(import.meta.dirname, '../..')
const problems = checkBoundaries(root)
if (problems.length > 0) {
  process.stderr.write(`Package boundaries violated:\n${problems.map((p) => `  - ${p}`).join('\n')}\n`)
  process.exit(1)
}
process.stdout.write('Package boundaries hold.\n')
