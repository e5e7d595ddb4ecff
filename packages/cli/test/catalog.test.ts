/**
 * `quire schema` against its checked-in JSON Schema, against the operation table it is derived
 * from, and against `--help`: every command, flag, positional and exit code in the catalog is
 * what `--help` shows, and the other way round. In-process: `main()` with captured streams.
 */
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { type OperationId, operations, scopesOf } from '@quire/core/contract'
import { Value } from 'typebox/value'
import { describe, expect, it } from 'vitest'
import { commands } from '../src/registry/commands.ts'
import type { CliOverrides } from '../src/registry/derive.ts'
import { deriveCommand, withVariant } from '../src/registry/derive.ts'
import { globalFlags } from '../src/registry/globals.ts'
import { operationCommands } from '../src/registry/operations.ts'
import type { CommandSpec } from '../src/registry/types.ts'
import { tree } from '../src/run/command-line.ts'
import type { Io } from '../src/run/context.ts'
import { exitCodes } from '../src/run/exit-codes.ts'
import { main } from '../src/run/main.ts'

// The override map is exhaustive and closed (checked by `tsc` over this file; check-surfaces in
// apps/api checks the rest at run time): a row for an operation that does not exist, or a map
// without one of the table's operations, does not compile.
// @ts-expect-error notAnOperation is not an operation id
const _unknownRow: CliOverrides = { ...operationCommands, notAnOperation: { command: ['nothing'] } }
const { health: _left, ...withoutHealth } = operationCommands
// @ts-expect-error every operation needs a row (a command, or `{ hidden: reason }`)
const _missingRow: CliOverrides = withoutHealth
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
  exitCodes: { code: number; name: string; meaning: string }[]
  commands: {
    name: string
    aliases: string[]
    options: { flag: string; required: boolean; type: string; choices: string[] | null; description: string }[]
    positionals: { name: string; flag: string }[]
    examples: string[]
    mutates: boolean
    calls: { operationId: string; scopes: string[] } | null
    callsWith?: { flag: string; operationId: string; method: string; path: string; scopes: string[] }
  }[]
}

const schemaFile = JSON.parse(readFileSync(resolve(import.meta.dirname, '../catalog.schema.json'), 'utf8'))

/** The lines of one section of a help text (`Flags:`, `Global flags:`, `Commands:`…). */
function section(help: string, title: string): string[] {
  const body = help.split(`\n${title}\n`)[1]?.split('\n\n')[0] ?? ''
  return body.split('\n').filter((line) => line.startsWith('  '))
}

/** The `--flags` a help section lists, in order. */
function flagsIn(lines: readonly string[]): string[] {
  return lines.flatMap((line) => /^\s+(--[a-z][a-z0-9-]*)/.exec(line)?.[1] ?? [])
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
      '--fields': null,
      '--jq': null,
      '--no-color': 'NO_COLOR',
    })
  })

  it('agrees with --help: the same commands; for each its own flags first, then the globals, its examples and every exit code', async () => {
    const catalog: Catalog = JSON.parse((await run(['schema'])).stdout)
    // Commands: walk the help tree from the top.
    const seen: string[] = []
    const walk = async (path: string[]) => {
      const help = (await run([...path, '--help'])).stdout
      const children = section(help, path.length ? 'Subcommands:' : 'Commands:').map((line) => line.trim().split(/\s+/)[0] ?? '')
      if (children.length === 0) seen.push(path.join(' '))
      for (const child of children) await walk([...path, child])
    }
    await walk([])
    expect(seen.sort()).toEqual(catalog.commands.map((c) => c.name).sort())

    const globals = globalFlags.map((f) => `--${f.name}`)
    for (const command of catalog.commands) {
      const help = (await run([...command.name.split(' '), '--help'])).stdout
      const own = section(help, 'Flags:')
      // Its own flags, exactly and in the catalog's order, before the global ones.
      expect(flagsIn(own), command.name).toEqual(command.options.map((o) => o.flag))
      expect(help.indexOf('Global flags:'), command.name).toBeGreaterThan(own.length ? help.indexOf('Flags:') : -1)
      expect(flagsIn(section(help, 'Global flags:')), command.name).toEqual(globals)
      for (const option of command.options.filter((o) => o.required)) {
        const line = own.find((l) => l.trimStart().startsWith(`${option.flag} `)) ?? ''
        expect(line, `${command.name} --help: ${option.flag}`).toMatch(/\((required|or give [A-Z-]+)/)
      }
      const positionals = section(help, 'Arguments:').map((line) => line.trim().split(/\s+/)[0])
      expect(positionals, command.name).toEqual(command.positionals.map((p) => p.name))
      expect(
        section(help, 'Examples:').map((line) => line.replace(/^\s+\$ /, '')),
        command.name,
      ).toEqual(command.examples)
      // The scopes a token needs: every one its operation's row derives, on one line (none: no line).
      const scopesLine = help.split('\n').find((line) => line.startsWith('Scopes: '))
      const needed = command.calls?.scopes ?? []
      expect(scopesLine, command.name).toBe(needed.length ? `Scopes: ${needed.join(', ')} (a token needs each).` : undefined)
      if (command.calls) expect(needed, command.name).toEqual(scopesOf(operations[command.calls.operationId as OperationId]))
      // Every exit code, with its meaning.
      const exits = section(help, 'Exit codes:')
      for (const exit of catalog.exitCodes)
        expect(
          exits.some((line) => line.trim().startsWith(`${exit.code} `) && line.includes(exit.meaning)),
          `${command.name}: exit ${exit.code}`,
        ).toBe(true)
    }
  })

  it('names every scope a command needs, those its answer or effect also needs included', async () => {
    const catalog: Catalog = JSON.parse((await run(['schema'])).stdout)
    const scopesOfCommand = (name: string) => catalog.commands.find((c) => c.name === name)?.calls?.scopes
    expect(scopesOfCommand('share create')).toEqual(['artifacts:share', 'artifacts:read'])
    expect(scopesOfCommand('artifact access set')).toEqual(['artifacts:access:write', 'artifacts:access:read'])
    expect((await run(['share', 'create', '--help'])).stdout).toContain('Scopes: artifacts:share, artifacts:read (a token needs each).')
    // An editor link's further need depends on the role: the flag says it.
    const role = catalog.commands.find((c) => c.name === 'share create')?.options.find((o) => o.flag === '--role')
    expect(role?.description).toContain('`artifacts:update`')
  })

  it("derives each command's flags from its operation's schemas: names, types, descriptions, choices, required", async () => {
    const catalog: Catalog = JSON.parse((await run(['schema'])).stdout)
    const byName = new Map(catalog.commands.map((c) => [c.name, c]))
    const flag = (command: string, name: string) => byName.get(command)?.options.find((o) => o.flag === name)
    // Path parameters, query fields and body fields, each a flag (the spec's names where they differ).
    expect(flag('artifact get', '--artifact-id')).toMatchObject({ type: 'string', required: true })
    expect(flag('artifact diff', '--from')).toMatchObject({ type: 'number', required: true })
    expect(flag('artifact restore', '--version')).toMatchObject({ type: 'number', required: true })
    expect(flag('artifact update', '--content-file')).toMatchObject({ type: 'string', required: true })
    expect(flag('artifact update', '--expected-latest-version')).toMatchObject({ type: 'number', required: false })
    expect(flag('artifact update', '--json')).toMatchObject({ type: 'string' })
    expect(flag('artifact access set', '--public-view')).toMatchObject({ type: 'boolean', required: false })
    expect(flag('artifact access set', '--viewer-emails')).toMatchObject({ type: 'array' })
    expect(flag('artifact create', '--access-public-view')).toMatchObject({ type: 'boolean', required: true })
    expect(flag('share create', '--role')).toMatchObject({ choices: ['viewer', 'editor'] })
    expect(flag('keys create', '--expires-at')?.description).toBe(
      String((operations.createApiKey.body.properties.expiresAt as { description: string }).description).replace(/\.$/, ''),
    )
    expect(flag('audit list', '--action')?.choices).toContain('artifact.deleted')
    // Every input of every derived command's operation has a flag (or --json carries it).
    for (const [id, row] of Object.entries(operationCommands)) {
      // An operation run through another command's flag: that command names it, with the flag.
      if ('projectFlag' in row) {
        const shown = byName.get(row.command.join(' '))
        expect(shown?.callsWith, id).toMatchObject({ flag: `--${row.projectFlag}`, operationId: id })
        expect(flag(row.command.join(' '), `--${row.projectFlag}`), id).toMatchObject({ type: 'string', required: false })
        continue
      }
      for (const override of Array.isArray(row) ? row : [row]) {
        const derived = deriveCommand(id as keyof typeof operations, override)
        const shown = byName.get(derived.path.join(' '))
        expect(shown?.calls?.operationId, derived.path.join(' ')).toBe(id)
        // A variant's flag (`artifact list --project`) comes first, then the operation's own.
        const variantFlag = shown?.callsWith ? [shown.callsWith.flag] : []
        expect(shown?.options.map((o) => o.flag).filter((f) => f !== '--yes')).toEqual([
          ...variantFlag,
          ...derived.options.map((o) => `--${o.name}`),
        ])
        const op = operations[id as keyof typeof operations] as { params?: { properties: object }; query?: { properties: object } }
        // A write's `dryRun` is the global --dry-run, not a flag of the command.
        const query = Object.keys(op.query?.properties ?? {}).filter((key) => key !== 'dryRun')
        for (const key of [...Object.keys(op.params?.properties ?? {}), ...query])
          expect(
            derived.options.some((o) => o.to?.endsWith(`.${key}`)),
            `${id}: ${key}`,
          ).toBe(true)
      }
    }
  })

  it('folds a variant into its command only where the command fills its inputs and shows its answer', () => {
    const list = commands.find((c) => c.path.join(' ') === 'artifact list')
    expect(list?.variant).toEqual({ flag: 'project', operation: 'listProjectArtifacts' })
    expect(list?.options.map((o) => o.name)).toEqual(['project', 'limit', 'cursor'])
    const variant = { command: ['artifact', 'list'], projectFlag: 'project' }
    const bare = deriveCommand('listMyArtifacts', { command: ['artifact', 'list'] })
    const noCursor = { ...bare, options: bare.options.filter((o) => o.name !== 'cursor') }
    expect(() => withVariant(noCursor, 'listProjectArtifacts', variant)).toThrow(/no flag of the command fills query\.cursor/)
    const projects = deriveCommand('listMyProjects', { command: ['project', 'list'] })
    expect(() => withVariant(projects, 'listProjectArtifacts', variant)).toThrow(/answers another schema than listMyProjects/)
    expect(() => withVariant(bare, 'listWorkspaceArtifacts', variant)).toThrow(/path parameters are not owner, projectSlug/)
  })

  it('accepts an artifact as OWNER/PROJECT/SLUG or URL wherever it takes --artifact-id', () => {
    for (const command of commands.filter((c) => c.options.some((o) => o.name === 'artifact-id')))
      expect(command.positionals?.[0], command.path.join(' ')).toMatchObject({ kind: 'artifact', flag: 'artifact-id' })
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

  it('takes an alias as its command: artifact view is artifact get, in the parser, help and the catalog', async () => {
    const catalog: Catalog = JSON.parse((await run(['schema'])).stdout)
    const get = catalog.commands.find((c) => c.name === 'artifact get')
    expect(get?.aliases).toEqual(['artifact view'])
    // Only the commands that declare aliases have any.
    const aliased = catalog.commands.filter((c) => c.aliases.length).map((c) => c.name)
    expect(aliased).toEqual(commands.filter((c) => c.aliases?.length).map((c) => c.path.join(' ')))
    const help = (await run(['artifact', 'get', '--help'])).stdout
    expect(help).toContain('\nAliases: quire artifact view\n')
    expect((await run(['artifact', 'view', '--help'])).stdout).toBe(help)
    expect(section((await run(['artifact', '--help'])).stdout, 'Subcommands:')).toContainEqual(
      expect.stringMatching(/^ {2}get +Show an artifact \(alias: view\)$/),
    )
    // The alias reaches the command's own checks: a missing artifact is asked for as for `get`.
    const missing = await run(['--no-input', 'artifact', 'view'])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('--artifact-id')
    expect(missing.stderr).not.toContain('Unknown command')
  })

  it("refuses an alias that is another command's name or alias", () => {
    const get = { path: ['artifact', 'get'], spec: () => ({}) as CommandSpec }
    const list = { path: ['artifact', 'list'], spec: () => ({}) as CommandSpec }
    expect(() => tree([{ ...get, aliases: ['list'] }, list])).toThrow('quire artifact get: its alias "list" names another command too')
    expect(() =>
      tree([
        { ...get, aliases: ['view'] },
        { ...list, aliases: ['view'] },
      ]),
    ).toThrow('its alias "view"')
    expect(
      tree([{ ...get, aliases: ['view'] }, list])
        .children.get('artifact')
        ?.child('view')?.path,
    ).toEqual(['artifact', 'get'])
  })

  it('after artifact content, --version is the artifact version: a whole number; elsewhere after a command it is unknown', async () => {
    const done = await run(['artifact', 'content', '--artifact-id', 'a', '--version', 'x'])
    expect(done.code).toBe(2)
    expect(done.stderr).toContain('--version takes a whole number, not "x"')
    const elsewhere = await run(['whoami', '--version'])
    expect(elsewhere.code).toBe(2)
    expect(elsewhere.stderr).toContain('Unknown flag --version for "quire whoami"')
    expect(await run(['--version'])).toMatchObject({ code: 0, stdout: expect.stringMatching(/^\d+\.\d+\.\d+\n$/) })
  })
})

function methodOf(id: keyof typeof operations): string {
  return operations[id].method
}
