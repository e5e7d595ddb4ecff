/// <reference path="../yargs-parser-browser.d.ts" />
import type { Options } from 'yargs-parser'
import { globalFlags } from '../registry/globals.ts'
import type { CommandSpec } from '../registry/types.ts'
import { CliError } from './cli-error.ts'
import type { Args } from './context.ts'

/**
 * The flags of one command, parsed by yargs-parser, the parser yargs runs, given the options
 * yargs would give it (types, arrays, `--no-…` negation, `--flag=value`, a value flag taking the
 * next word). The words naming the command are gone already (command-line.ts found the command and
 * checked every flag's name), so the parser sees one flat command; yargs' command tree, help,
 * locales and validation are not needed (none of its checks apply: no required, choices, implied
 * or conflicting options), nor loaded. test/parse-flags.test.ts compares the two on generated
 * command lines of every command.
 */
export async function parseFlags(spec: CommandSpec, rest: readonly string[]): Promise<Args> {
  // Loaded here, not at start-up: help, `--version` and a mistyped command never need it. Its
  // browser entry is the same parser without the Node built-ins it needs only for config files.
  const { default: parser } = await import('yargs-parser/browser')
  const options = {
    alias: {} as Record<string, string[]>,
    array: [] as string[],
    boolean: [] as string[],
    string: [] as string[],
    narg: {} as Record<string, number>,
    key: {} as Record<string, boolean>,
  }
  const add = (name: string, type: 'string' | 'boolean' | 'array') => {
    options.key[name] = true
    if (type === 'array') options.array.push(name)
    options[type === 'boolean' ? 'boolean' : 'string'].push(name)
    // A value flag always takes the next word as its value, even `-` (standard input); a list takes the words up to the next flag.
    if (type === 'string') options.narg[name] = 1
  }
  for (const flag of globalFlags) {
    if (flag.name === 'version' && spec.options.some((o) => o.name === 'version')) continue
    // `--no-input` and `--no-color` are the negations of `input` and `color`.
    add(flag.name.replace(/^no-/, ''), flag.type)
  }
  // Numbers are read as text and checked with the other values (input.ts), so an error can name the flag.
  for (const option of spec.options) add(option.name, option.type === 'number' ? 'string' : option.type)
  if (spec.destructive) {
    add('yes', 'boolean')
    add('y', 'boolean')
    options.alias.yes = ['y']
  }
  const parsed = parser.detailed([...rest], {
    ...options,
    // yargs' settings: ours (camelCase names beside the typed ones), `--` kept apart, positionals as typed.
    configuration: { 'camel-case-expansion': true, 'parse-positional-numbers': false, 'populate--': true },
  } as Options)
  if (parsed.error) {
    throw new CliError('usage', usageMessage(parsed.error.message), { hint: `See quire ${spec.path.join(' ')} --help.` })
  }
  return withPositionalWords(parsed.argv, parser.looksLikeNumber)
}

/** What yargs then does to the words that are not flags: those after `--` join them, and number-like ones become numbers. */
function withPositionalWords(argv: Record<string, unknown>, looksLikeNumber: (word: string | number) => boolean): Args {
  const words = argv._ as (string | number)[]
  const afterDashes = argv['--'] as (string | number)[] | undefined
  if (afterDashes) {
    words.push(...afterDashes)
    delete argv['--']
  }
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as string | number
    if (looksLikeNumber(word) && Number.isSafeInteger(Math.floor(Number.parseFloat(`${word}`)))) words[i] = Number(word)
  }
  return argv as Args
}

/** The parser's words, in the CLI's terms: flags are named as they are typed. */
function usageMessage(message: string): string {
  const valueless = /^Not enough arguments following: (.+)$/m.exec(message)
  if (valueless) return `--${valueless[1]} needs a value.`
  return message
}
