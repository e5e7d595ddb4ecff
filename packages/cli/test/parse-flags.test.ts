/**
 * The flags of a command are parsed by yargs-parser alone (run/parse-flags.ts), given what yargs
 * gave it: here both read the same generated command lines of every command, and must agree on
 * every value (camelCase spellings, arrays, negations, `--`, number-like words) and every error.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import yargs from 'yargs'
import { commands } from '../src/registry/commands.ts'
import { globalFlags } from '../src/registry/globals.ts'
import type { CommandSpec } from '../src/registry/types.ts'
import { CliError } from '../src/run/cli-error.ts'
import { parseFlags } from '../src/run/parse-flags.ts'

type Outcome = { argv: Record<string, unknown> } | { error: string; hint: string | undefined }

/** How the CLI parsed a command's flags through yargs, before: its parseFlags as it was. */
function throughYargs(spec: CommandSpec, rest: readonly string[]): Outcome {
  const y = yargs([...rest])
    .version(false)
    .help(false)
    .exitProcess(false)
    .parserConfiguration({ 'camel-case-expansion': true })
  for (const flag of globalFlags) {
    if (flag.name === 'version' && spec.options.some((o) => o.name === 'version')) continue
    const name = flag.name.replace(/^no-/, '')
    y.option(name, { type: flag.type, ...(flag.type === 'string' ? { requiresArg: true, nargs: 1 } : {}) })
  }
  for (const option of spec.options)
    y.option(option.name, {
      type: option.type === 'array' || option.type === 'number' ? 'string' : option.type,
      ...(option.type === 'array' ? { array: true } : {}),
      ...(option.type === 'string' || option.type === 'number' ? { requiresArg: true, nargs: 1 } : {}),
    })
  if (spec.destructive) y.option('yes', { type: 'boolean', alias: 'y' })
  y.fail((message, error) => {
    const valueless = /^Not enough arguments following: (.+)$/m.exec(message ?? '')
    throw new CliError('usage', valueless ? `--${valueless[1]} needs a value.` : (message ?? error?.message ?? 'Invalid usage.'), {
      hint: `See quire ${spec.path.join(' ')} --help.`,
    })
  })
  try {
    const { $0: _, ...argv } = y.parseSync() as Record<string, unknown>
    return { argv }
  } catch (error) {
    if (!(error instanceof CliError)) throw error
    return { error: error.message, hint: error.options.hint }
  }
}

async function throughParser(spec: CommandSpec, rest: readonly string[]): Promise<Outcome> {
  try {
    const { $0: _, ...argv } = (await parseFlags(spec, rest)) as Record<string, unknown>
    return { argv }
  } catch (error) {
    if (!(error instanceof CliError)) throw error
    return { error: error.message, hint: error.options.hint }
  }
}

/** The words a command line of this command may hold: its flags and the global ones, every way they are typed, values of every kind. */
function wordsOf(spec: CommandSpec): fc.Arbitrary<string[]> {
  const names = [...spec.options.map((o) => o.name), ...globalFlags.map((f) => f.name), ...(spec.destructive ? ['yes'] : [])]
  const value = fc.constantFrom(
    'x',
    'art_01jc0000000000000000000000',
    '-',
    '--',
    '',
    '3',
    '-4',
    '07',
    '0x1f',
    '1e3',
    '2.5',
    'a,b',
    'a b',
    'true',
    'false',
    '--nope',
  )
  const flag = fc.constantFrom(...names)
  const word = fc.oneof(
    flag.map((name) => `--${name}`),
    flag.map((name) => `--no-${name}`),
    fc.tuple(flag, value).map(([name, v]) => `--${name}=${v}`),
    fc.constantFrom('-y', '-h', '--', 'ada/notes/plan'),
    value,
  )
  return fc.array(word, { maxLength: 8 })
}

describe('the flags of a command', () => {
  it('parse as yargs parsed them, for every command', async () => {
    for (const spec of commands)
      await fc.assert(
        fc.asyncProperty(wordsOf(spec), async (words) => {
          expect(await throughParser(spec, words), `quire ${spec.path.join(' ')} ${words.join(' ')}`).toEqual(throughYargs(spec, words))
        }),
        { numRuns: 60 },
      )
  })

  it('keep the cases that matter by name', async () => {
    const list = commands.find((c) => c.path.join(' ') === 'artifact list') as CommandSpec
    const create = commands.find((c) => c.path.join(' ') === 'keys create') as CommandSpec
    const remove = commands.find((c) => c.path.join(' ') === 'artifact delete') as CommandSpec
    expect(await throughParser(list, ['--format', 'json', '--limit', '2', '--no-color'])).toEqual({
      argv: { _: [], format: 'json', limit: '2', color: false },
    })
    expect(await throughParser(create, ['--scopes', 'artifacts:read,artifacts:create', 'profile:read', '--name=ci'])).toEqual({
      argv: { _: [], scopes: ['artifacts:read,artifacts:create', 'profile:read'], name: 'ci' },
    })
    expect(await throughParser(remove, ['ada/notes/plan', '-y', '--artifact-id', '-'])).toEqual({
      argv: { _: ['ada/notes/plan'], y: true, yes: true, 'artifact-id': '-', artifactId: '-' },
    })
    expect(await throughParser(list, ['--cursor'])).toEqual({ error: '--cursor needs a value.', hint: 'See quire artifact list --help.' })
  })
})
