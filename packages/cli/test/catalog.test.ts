/**
 * `quire schema` against its checked-in JSON Schema, and against the parser: every command,
 * flag and exit code in the catalog is what `--help` shows, and the other way round. In-process:
 * `main()` with captured streams.
 */
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { operations } from '@quire/core/contract'
import { Value } from 'typebox/value'
import { describe, expect, it } from 'vitest'
import { commands } from '../src/registry/commands.ts'
import { globalFlags } from '../src/registry/globals.ts'
import type { HiddenOperations } from '../src/registry/hidden.ts'
import type { CommandSpec } from '../src/registry/types.ts'
import type { Io } from '../src/run/context.ts'
import { exitCodes } from '../src/run/exit-codes.ts'
import { main } from '../src/run/main.ts'

// An operation id that is not in the table does not compile, in a command or in the hidden list
// (checked by `tsc` over this file; check-surfaces in apps/api checks the rest at run time):
// @ts-expect-error notAnOperation is not an operation id
const _unknownHidden: HiddenOperations = { notAnOperation: 'no such row' }
const _unknownCommand: CommandSpec = {
  path: ['nothing'],
  summary: 'Calls nothing',
  // @ts-expect-error notAnOperation is not an operation id
  operation: 'notAnOperation',
  options: [],
  mutates: false,
  output: 'object',
}

async function run(argv: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = ''
  let stderr = ''
  const io: Io = {
    stdout: (t) => {
      stdout += t
    },
    stderr: (t) => {
      stderr += t
    },
    stdinIsTty: false,
    stdoutIsTty: false,
    stderrIsTty: false,
    readStdin: async () => '',
  }
  const code = await main(argv, io, { HOME: '/nonexistent' })
  return { code, stdout, stderr }
}

interface Catalog {
  globalFlags: { flag: string; env: string | null }[]
  exitCodes: { code: number; name: string }[]
  commands: { name: string; options: { flag: string; required: boolean }[]; mutates: boolean }[]
}

const schemaFile = JSON.parse(readFileSync(resolve(import.meta.dirname, '../catalog.schema.json'), 'utf8'))

/** The `--flags` a help text lists in its option table (not the ones in prose). */
function flagsIn(help: string): Set<string> {
  return new Set([...help.matchAll(/^\s+(?:-\w, )?(--[a-z][a-z0-9-]*)/gm)].map((m) => m[1] ?? ''))
}

/** The subcommands a help text lists under "Commands:". */
function subcommandsIn(help: string, prefix: string): string[] {
  const section = help.split('Commands:\n')[1]?.split('\n\n')[0] ?? ''
  return [...section.matchAll(new RegExp(`^\\s+quire ${prefix}([a-z][a-z-]*)`, 'gm'))].map((m) => m[1] ?? '')
}

describe('quire schema', () => {
  it('prints one JSON document that validates against catalog.schema.json', async () => {
    const done = await run(['schema'])
    expect(done.code).toBe(0)
    const catalog = JSON.parse(done.stdout)
    expect(Value.Check(schemaFile, catalog)).toBe(true)
    // The schema is not vacuous: a catalog with a bad exit code or an unknown field fails it.
    expect(Value.Check(schemaFile, { ...catalog, exitCodes: [{ code: -1, name: 'x', meaning: 'y' }] })).toBe(false)
    expect(Value.Check(schemaFile, { ...catalog, extra: true })).toBe(false)
    expect(JSON.parse((await run(['--format', 'json', 'schema'])).stdout)).toEqual(catalog)
  })

  it('lists the exit codes and every global flag with its environment variable, as the spec names them', async () => {
    const catalog: Catalog = JSON.parse((await run(['schema'])).stdout)
    expect(catalog.exitCodes.map((e) => e.code)).toEqual(Object.values(exitCodes).map((e) => e.code))
    const env = Object.fromEntries(catalog.globalFlags.map((f) => [f.flag, f.env]))
    expect(env).toEqual({
      '--base-url': 'AGENT_SERVICE_BASE_URL',
      '--web-url': 'AGENT_SERVICE_WEB_URL',
      '--token': 'AGENT_SERVICE_TOKEN',
      '--token-stdin': null,
      '--format': 'AGENT_SERVICE_FORMAT',
      '--ndjson': null,
      '--quiet': null,
      '--no-input': 'AGENT_SERVICE_NO_INPUT',
      '--debug': 'AGENT_SERVICE_DEBUG',
      '--dry-run': null,
      '--version': null,
    })
  })

  it('agrees with --help: the same commands, and for each the same flags', async () => {
    const catalog: Catalog = JSON.parse((await run(['schema'])).stdout)
    // Commands: walk the help tree from the top.
    const seen: string[] = []
    const walk = async (path: string[]) => {
      const help = (await run([...path, '--help'])).stdout
      const prefix = path.length ? `${path.join(' ')} ` : ''
      const children = subcommandsIn(help, prefix)
      if (children.length === 0) seen.push(path.join(' '))
      for (const child of children) await walk([...path, child])
    }
    await walk([])
    expect(seen.filter((c) => c !== 'completion').sort()).toEqual(catalog.commands.map((c) => c.name).sort())

    const globals = new Set(globalFlags.map((f) => `--${f.name}`))
    for (const command of catalog.commands) {
      const help = (await run([...command.name.split(' '), '--help'])).stdout
      const shown = flagsIn(help)
      const own = new Set(command.options.map((o) => o.flag))
      for (const flag of own) expect(shown, `${command.name} --help lacks ${flag}`).toContain(flag)
      for (const flag of shown) {
        const known = own.has(flag) || globals.has(flag) || flag === '--help'
        expect(known, `${command.name} --help shows ${flag}, which the catalog does not list`).toBe(true)
      }
      for (const option of command.options.filter((o) => o.required)) {
        // The option's entry runs from its flag to the next flag (yargs wraps long descriptions).
        const entry = help.slice(help.indexOf(`${option.flag} `)).split(/\n\s+(?:-\w, )?--/)[0] ?? ''
        expect(entry, `${command.name} --help: ${option.flag}`).toContain('[required]')
      }
    }
  })

  it('marks exactly the commands that change something as mutating (they take --dry-run)', () => {
    const mutating = commands.filter((c) => c.mutates).map((c) => c.path.join(' '))
    for (const c of commands) {
      if (c.operation && !c.handler) {
        // A command that calls a write operation mutates; one that calls a read does not.
        expect(c.mutates, c.path.join(' ')).toBe(['POST', 'PATCH', 'PUT', 'DELETE'].includes(methodOf(c.operation)))
      }
    }
    expect(mutating).toEqual(expect.arrayContaining(['push', 'artifact delete', 'login', 'logout']))
  })

  it('after artifact content, --version is the artifact version: a whole number (bin.js answers the client version elsewhere)', async () => {
    const done = await run(['artifact', 'content', '--artifact-id', 'a', '--version', 'x'])
    expect(done.code).toBe(2)
    expect(done.stderr).toContain('--version')
  })
})

function methodOf(id: keyof typeof operations): string {
  return operations[id].method
}
