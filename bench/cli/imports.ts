/**
 * bench/cli/imports: where the CLI's start-up goes, module by module. Each row is a fresh
 * `node` that imports one module (resolved from packages/cli, as the built CLI resolves its
 * dependencies) and exits; its median wall time minus `node -e 0`'s, measured alternating in the
 * same run, without and with Node's module compile cache. A row includes what the module itself
 * imports, so rows overlap (the client includes the contract, the contract includes TypeBox).
 * Packages load as installed (every file of theirs resolved and compiled); the CLI's bundle holds
 * only the parts it uses, in a few files: its main chunk is the row to compare. A built-in imported
 * as an ES module builds a facade that reads every export, lazy getters included (node:http's
 * WebSocket loads undici, node:crypto's webcrypto its Web Crypto).
 *
 *   node --conditions=source bench/cli/imports.ts [--runs 15] [--bin path/to/bin.js]
 *
 * Needs the built packages (`pnpm -F @quire/cli... build`): the CLI's own chunks are read from
 * packages/cli/dist (or beside --bin).
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { bounded, markdownTable, median } from '../harness.ts'

const cliDir = resolve(import.meta.dirname, '../../packages/cli')
const { values } = parseArgs({
  options: { runs: { type: 'string', default: '15' }, bin: { type: 'string', default: join(cliDir, 'dist/bin.js') } },
})
const runs = bounded(values, 'runs', 1, 200)
const binPath = resolve(values.bin)
if (!existsSync(binPath)) {
  process.stderr.write(`No built CLI at ${binPath}: run \`pnpm -F @quire/cli... build\` first.\n`)
  process.exit(1)
}
/** The chunk bin.js loads for every command but --version (its name carries a content hash). */
const mainChunk = /import\("\.\/(main-[\w-]+\.js)"\)/.exec(readFileSync(binPath, 'utf8'))?.[1]

const load = (specifier: string) => `await import(${JSON.stringify(specifier)})`
const modules: [label: string, script: string][] = [
  ["fetch's undici (first Response, Headers or fetch)", "new Response('')"],
  ['node:http, imported as an ES module', load('node:http')],
  ['node:http, process.getBuiltinModule', "process.getBuiltinModule('node:http')"],
  ['node:crypto, imported as an ES module', load('node:crypto')],
  ['yargs (as installed: unbundled; the CLI no longer loads it)', load('yargs')],
  ['yargs-parser, its entry without Node built-ins (what the CLI bundles)', load('yargs-parser/browser')],
  ['typebox (as installed)', load('typebox')],
  ['@quire/core/contract (its dist)', load('@quire/core/contract')],
  ['@quire/client (its dist)', load('@quire/client')],
  ['@napi-rs/keyring', load('@napi-rs/keyring')],
  ['openid-client', load('openid-client')],
  ['@modelcontextprotocol/sdk server', load('@modelcontextprotocol/sdk/server/index.js')],
  ...(mainChunk ? [[`the CLI's bundled main chunk (${mainChunk})`, load(join(dirname(binPath), mainChunk))] as [string, string]] : []),
]

const cacheDir = mkdtempSync(join(tmpdir(), 'quire-bench-imports-cache-'))
const baseEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' }

function time(script: string, cached: boolean): number {
  const env = cached ? { ...baseEnv, NODE_COMPILE_CACHE: cacheDir } : baseEnv
  const started = process.hrtime.bigint()
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: cliDir,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  const ms = Number(process.hrtime.bigint() - started) / 1e6
  if (result.status !== 0) throw new Error(`${script} exited ${result.status}: ${result.stderr}`)
  return ms
}

try {
  const scripts: [string, string][] = [['node -e 0', '0'], ...modules]
  const samples = scripts.map(() => ({ plain: [] as number[], cached: [] as number[] }))
  for (const [, script] of scripts) time(script, true) // warm the file cache and fill the compile cache
  for (let i = 0; i < runs; i++)
    scripts.forEach(([, script], at) => {
      samples[at]?.plain.push(time(script, false))
      samples[at]?.cached.push(time(script, true))
    })
  const floor = { plain: median(samples[0]?.plain ?? []), cached: median(samples[0]?.cached ?? []) }
  const rows = scripts.slice(1).map(([label], at) => {
    const s = samples[at + 1] ?? { plain: [], cached: [] }
    return [label, (median(s.plain) - floor.plain).toFixed(1), (median(s.cached) - floor.cached).toFixed(1)]
  })
  process.stdout.write(
    `Import cost above node -e 0 (${floor.plain.toFixed(1)} ms), medians of ${runs} alternating runs (Node ${process.versions.node})\n\n`,
  )
  process.stdout.write(`${markdownTable(['module (with what it imports)', 'ms', 'ms, compile cache warm'], rows)}\n`)
} finally {
  rmSync(cacheDir, { recursive: true, force: true })
}
