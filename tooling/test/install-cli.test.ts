/**
 * tooling/scripts/install-cli.sh, the README's one line that puts `quire` on the PATH: it writes a
 * shim into a prefix (here a temporary one, with a space and a quote in its name), and the shim
 * runs the built CLI with the Node that installed it even when the `node` first on PATH is another
 * one (a stand-in that fails, as Node 20 would for a CLI needing 22).
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { finish, spawnTracked } from '@quire/testing/processes'
import { timeoutFor } from '@quire/testing/waits'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const root = resolve(import.meta.dirname, '../..')
const script = join(root, 'tooling/scripts/install-cli.sh')
const cliVersion = (JSON.parse(readFileSync(join(root, 'packages/cli/package.json'), 'utf8')) as { version: string }).version
const scratch = mkdtempSync(join(tmpdir(), 'quire-install-cli-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

/** A directory whose only program is a `node` that is not the one to use: it says so and fails, whatever it is asked. */
const wrongNodeDir = join(scratch, 'wrong-node')
/** A directory whose `node` is Node 20 as far as the script can tell. */
const oldNodeDir = join(scratch, 'old-node')
/** The directory of the Node running the tests (22+), first on PATH as under `tooling/bootstrap.sh`. */
const rightNodeDir = dirname(process.execPath)
const systemPath = '/usr/bin:/bin'

beforeAll(() => {
  if (!existsSync(join(root, 'packages/cli/dist/bin.js'))) throw new Error('packages/cli/dist is missing: build first (`pnpm check` does).')
  mkdirSync(wrongNodeDir)
  writeFileSync(join(wrongNodeDir, 'node'), '#!/bin/sh\necho "the wrong node ran" >&2\nexit 97\n')
  chmodSync(join(wrongNodeDir, 'node'), 0o755)
  mkdirSync(oldNodeDir)
  writeFileSync(join(oldNodeDir, 'node'), '#!/bin/sh\ncase "$1" in -p) echo "$0" ;; -v) echo v20.19.0 ;; *) exit 1 ;; esac\n')
  chmodSync(join(oldNodeDir, 'node'), 0o755)
})

/** Runs a command to its end (one wait: packages/testing/src/waits.ts). */
async function run(command: string, args: readonly string[], env: Record<string, string>) {
  const result = await finish(spawnTracked(command, args, { env: { HOME: scratch, ...env }, stdio: ['pipe', 'pipe', 'pipe'] }))
  return { code: result.code, stdout: result.stdout, stderr: result.stderr, output: `${result.stdout}${result.stderr}` }
}

// A test here runs at most four commands, each one wait.
describe('install-cli', { timeout: timeoutFor(4) }, () => {
  it('writes a shim that runs the built CLI on the installing Node, whatever node PATH finds', async () => {
    const prefix = join(scratch, "pre fix's")
    const installed = await run('sh', [script, '--prefix', prefix], { PATH: `${rightNodeDir}:${systemPath}` })
    expect(installed.code, installed.output).toBe(0)
    const shim = join(prefix, 'bin/quire')
    expect(installed.stdout).toContain(`Installed ${shim}`)
    expect(installed.stdout).toContain(`${join(prefix, 'bin')} is not on your PATH`)

    const onWrongPath = { PATH: `${wrongNodeDir}:${systemPath}` }
    const version = await run(shim, ['--version'], onWrongPath)
    expect(version, version.output).toMatchObject({ code: 0, stdout: `${cliVersion}\n` })
    // The rest of the CLI (parser, command modules, compile cache) loads and answers too.
    const help = await run(shim, ['--help'], onWrongPath)
    expect(help.code, help.output).toBe(0)
    expect(help.stdout).toMatch(/quire/)
    expect(help.stderr).not.toContain('the wrong node ran')
  })

  it('says when the directory is on PATH, takes PREFIX from the environment, and replaces its own shim', async () => {
    const prefix = join(scratch, 'env-prefix')
    const bindir = join(prefix, 'bin')
    for (let round = 0; round < 2; round++) {
      const installed = await run('sh', [script], { PATH: `${bindir}:${rightNodeDir}:${systemPath}`, PREFIX: prefix })
      expect(installed.code, installed.output).toBe(0)
      expect(installed.stdout).toContain(`${bindir} is on your PATH`)
    }
    const version = await run('quire', ['--version'], { PATH: `${bindir}:${wrongNodeDir}:${systemPath}` })
    expect(version, version.output).toMatchObject({ code: 0, stdout: `${cliVersion}\n` })
  })

  it('refuses a Node older than 22 and an unknown argument, and writes nothing', async () => {
    const prefix = join(scratch, 'refused')
    const oldNode = await run('sh', [script, '--prefix', prefix], { PATH: `${oldNodeDir}:${systemPath}` })
    expect(oldNode.code, oldNode.output).toBe(1)
    expect(oldNode.stderr).toContain('is Node v20.19.0; quire needs 22 or later: run `tooling/bootstrap.sh install-cli`')
    const unknown = await run('sh', [script, '--prefx', prefix], { PATH: `${rightNodeDir}:${systemPath}` })
    expect(unknown.code, unknown.output).toBe(2)
    expect(unknown.stderr).toContain('unknown argument --prefx')
    expect(existsSync(prefix)).toBe(false)
  })
})
