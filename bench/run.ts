/**
 * `pnpm bench`: every benchmark, each printing Quire's figures beside a baseline measured in the
 * same run. `pnpm bench diff`, `pnpm bench api`, `pnpm bench scale`… runs one; extra arguments go to it.
 */
import { spawnSync } from 'node:child_process'
import { resolve } from 'node:path'

const suites = {
  diff: 'bench/diff/run.ts',
  api: 'bench/api/run.ts',
  cli: 'bench/cli/run.ts',
  mcp: 'bench/mcp/run.ts',
  web: 'bench/web/run.ts',
  topology: 'bench/topology/run.ts',
  scale: 'bench/scale/run.ts',
  search: 'bench/search/run.ts',
  live: 'bench/live/run.ts',
} as const
const [only, ...rest] = process.argv.slice(2)
const chosen = only && only in suites ? [only as keyof typeof suites] : (Object.keys(suites) as (keyof typeof suites)[])
const root = resolve(import.meta.dirname, '..')
let failed = false
for (const name of chosen) {
  process.stdout.write(`\n### bench/${name}\n`)
  const result = spawnSync(process.execPath, ['--conditions=source', suites[name], ...rest], { cwd: root, stdio: 'inherit' })
  failed ||= result.status !== 0
}
process.exit(failed ? 1 : 0)
