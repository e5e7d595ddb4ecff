import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { commandsTimeout } from './quire-process.ts'

const run = promisify(execFile)
const cli = resolve(import.meta.dirname, '..')
const built = join(cli, 'dist/bin.js')

/** `quire …`'s standard output, from the sources (the contract built by TypeBox) or the bundle (the contract as data). */
async function quire(entry: 'source' | 'built', args: readonly string[]): Promise<string> {
  const argv = entry === 'source' ? ['--conditions=source', join(cli, 'src/bin.ts')] : [built]
  const env = { PATH: process.env.PATH ?? '', HOME: '/nonexistent', NO_COLOR: '1' }
  return (await run(process.execPath, [...argv, ...args], { env })).stdout
}

// The bundle takes the contract as JSON written at build time (build/plain-contract.ts): what it
// derives from it (every command's flags, scopes and calls, every help page) must be what the
// sources derive from the contract itself. Runs where the README's test line runs: on the bundle.
describe.runIf(process.env.QUIRE_TEST_CLI === 'built' || existsSync(built))('the bundled CLI', () => {
  it('derives from the contract as data exactly what the sources derive from the contract', { timeout: commandsTimeout }, async () => {
    for (const args of [['schema'], ['artifact', 'list', '--help'], ['artifact', 'update', '--help'], ['share', 'create', '--help']]) {
      const [fromSource, fromBundle] = await Promise.all([quire('source', args), quire('built', args)])
      expect(fromSource.length, args.join(' ')).toBeGreaterThan(200)
      expect(fromBundle, args.join(' ')).toBe(fromSource)
    }
  })
})
