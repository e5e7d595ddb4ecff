/**
 * bench/cli: how long `quire --version` takes to start and answer, beside `node -e 0` (the
 * floor: starting Node itself) measured in the same run, alternating, on the built CLI
 * (`packages/cli/dist/bin.js`, as npm installs it). Target: at most 1.5× the floor.
 *
 *   pnpm bench cli [--runs 40]
 */
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { bounded } from '../harness.ts'

const { values } = parseArgs({ options: { runs: { type: 'string', default: '40' } } })
const runs = bounded(values, 'runs', 1, 1000)
const bin = resolve(import.meta.dirname, '../../packages/cli/dist/bin.js')
if (!existsSync(bin)) {
  process.stderr.write(`No built CLI at ${bin}: run \`pnpm -F @quire/cli build\` (or \`pnpm check\`) first.\n`)
  process.exit(1)
}

function time(args: readonly string[]): number {
  const started = process.hrtime.bigint()
  const result = spawnSync(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] })
  const ms = Number(process.hrtime.bigint() - started) / 1e6
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr}`)
  return ms
}

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2
}

const cases = {
  floor: ['-e', '0'],
  version: [bin, '--version'],
  help: [bin, '--help'],
  schema: [bin, 'schema'],
} as const
const samples: Record<keyof typeof cases, number[]> = { floor: [], version: [], help: [], schema: [] }
// Warm the file cache, then alternate so drift hits every case alike.
for (const args of Object.values(cases)) time(args)
for (let i = 0; i < runs; i++) for (const [name, args] of Object.entries(cases)) samples[name as keyof typeof cases].push(time(args))

const floor = median(samples.floor)
const row = (label: string, ms: number, target: string) =>
  `| ${label.padEnd(30)} | ${ms.toFixed(1).padStart(8)} | ${(ms / floor).toFixed(2).padStart(5)}× | ${target.padEnd(6)} |`
process.stdout.write(`Start-up, medians of ${runs} alternating runs (Node ${process.versions.node})\n\n`)
process.stdout.write('| case                           |       ms | ratio | target |\n|---|---|---|---|\n')
process.stdout.write(`${row('node -e 0 (baseline)', floor, '')}\n`)
process.stdout.write(`${row('quire --version', median(samples.version), '≤ 1.5×')}\n`)
process.stdout.write(`${row('quire --help (parser loaded)', median(samples.help), '')}\n`)
process.stdout.write(`${row('quire schema (a command run)', median(samples.schema), '')}\n`)
