import type { OperationId } from '@quire/core/contract'
import { builtin } from '../builtin.ts'
import type { CommandSpec, OptionSpec } from '../registry/types.ts'
import { CliError } from './cli-error.ts'
import type { Args, CommandContext, Io } from './context.ts'
import { parseProjectReference } from './project-reference.ts'

/** `artifact-id` → `artifactId`, as yargs names parsed flags. */
export const camel = (flag: string) => flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())

/** A file's text, `-` being standard input; a file that cannot be read is a usage error naming the flag. */
export async function readText(flag: string, file: string, io: Io): Promise<string> {
  if (file === '-') return io.readStdin()
  try {
    return await builtin<typeof import('node:fs/promises')>('node:fs/promises').readFile(file, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    throw new CliError('usage', `${flag}: cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : (code ?? (error as Error).message)}.`)
  }
}

/** The value of `--json`: inline JSON, `@FILE`, or `-` for standard input. */
async function jsonValue(raw: string, io: Io): Promise<Record<string, unknown>> {
  const from = raw === '-' ? 'standard input' : raw.startsWith('@') ? raw.slice(1) : '--json'
  const text = raw === '-' || raw.startsWith('@') ? await readText('--json', raw === '-' ? '-' : raw.slice(1), io) : raw
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw new CliError('usage', `${from} is not valid JSON: ${(error as Error).message}`, {
      hint: '--json takes JSON, @FILE or - (standard input); each field is also a flag of its own.',
    })
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new CliError('usage', `${from} must be a JSON object, not ${Array.isArray(value) ? 'an array' : JSON.stringify(value)}.`)
  return value as Record<string, unknown>
}

/** Numbers on the command line are whole numbers (versions, limits). */
function wholeNumber(option: OptionSpec, raw: unknown): number {
  const text = String(Array.isArray(raw) ? raw.at(-1) : raw).trim()
  const number = /^-?\d+$/.test(text) ? Number(text) : Number.NaN
  if (!Number.isSafeInteger(number))
    throw new CliError('usage', `--${option.name} takes a whole number, not ${JSON.stringify(text)}.`, { hint: `e.g. --${option.name} 2` })
  return number
}

/** `a,b c` → ['a', 'b', 'c'], from a flag given once or several times. */
function listValue(raw: unknown): string[] {
  const values = Array.isArray(raw) ? raw : [raw]
  return values.flatMap((v) => String(v).split(/[\s,]+/)).filter(Boolean)
}

const dateTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/
const email = /^[^\s@]+@[^\s@]+$/

/** A value the flag's schema would refuse, refused here with the flag's name and an example. */
function checkValue(option: OptionSpec, value: unknown): void {
  const values = Array.isArray(value) ? value : [value]
  const example = option.example ? ` e.g. --${option.name} ${option.example}` : ''
  for (const one of values) {
    const text = String(one)
    if (option.choices && !option.choices.includes(text))
      throw new CliError('usage', `--${option.name} must be one of ${option.choices.join(', ')}, not ${JSON.stringify(text)}.`, {
        hint: `e.g. --${option.name} ${option.choices[0]}`,
      })
    if (option.format === 'date-time' && (!dateTime.test(text) || Number.isNaN(Date.parse(text))))
      throw new CliError('usage', `--${option.name} takes an ISO 8601 time with a zone, not ${JSON.stringify(text)}.`, {
        hint: example.trim() || undefined,
      })
    if (option.format === 'email' && !email.test(text))
      throw new CliError('usage', `--${option.name} takes an email address, not ${JSON.stringify(text)}.`, {
        hint: example.trim() || undefined,
      })
  }
}

function setPath(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  const [head, ...rest] = path
  if (head === undefined) return
  if (rest.length === 0) {
    target[head] = value
    return
  }
  const inner = target[head]
  const next = inner !== null && typeof inner === 'object' && !Array.isArray(inner) ? { ...(inner as object) } : {}
  setPath(next as Record<string, unknown>, rest, value)
  target[head] = next
}

function hasPath(target: Record<string, unknown>, path: readonly string[]): boolean {
  let at: unknown = target
  for (const key of path) {
    if (at === null || typeof at !== 'object' || !Object.hasOwn(at, key)) return false
    at = (at as Record<string, unknown>)[key]
  }
  return true
}

/** The other ways a required input may be given: the positional standing for its flag, a field of `--json`. */
export function otherWays(spec: CommandSpec, option: OptionSpec): { positional?: string; json: boolean } {
  const positional = spec.positionals?.find((p) => p.flag === option.name)
  return {
    ...(positional ? { positional: positional.name.toUpperCase() } : {}),
    json: option.to?.startsWith('body.') === true && spec.options.some((o) => o.to === 'body'),
  }
}

/** A required input that is missing, and every way to give it. */
function missing(spec: CommandSpec, option: OptionSpec): CliError {
  const { positional, json } = otherWays(spec, option)
  const ways = [...(positional ? [positional] : []), `--${option.name}`, ...(json ? ['a field of --json'] : [])]
  return new CliError('usage', `Missing ${ways.join(' or ')}: ${option.description}.`, {
    hint: spec.examples?.[0] ? `e.g. ${spec.examples[0]}` : `See quire ${spec.path.join(' ')} --help.`,
  })
}

/**
 * Every flag's value, checked against its schema (choices, format, whole numbers) and converted
 * (numbers, lists, times to ISO 8601 UTC): for every command, handler or not, before it runs, so a
 * mistake is named by its flag before any file is read or anything is sent.
 */
export function checkedArgs(spec: CommandSpec, args: Args): Args {
  const checked: Record<string, unknown> = { ...args }
  for (const option of spec.options) {
    const key = camel(option.name)
    const raw = args[key]
    if (raw === undefined) continue
    const value = option.type === 'array' ? listValue(raw) : option.type === 'number' ? wholeNumber(option, raw) : raw
    checkValue(option, value)
    checked[key] = option.format === 'date-time' ? new Date(String(value)).toISOString() : value
  }
  return checked
}

/**
 * The operation's input (params, query, body) from the command's checked flags, as the registry
 * maps them: `--json` first, each body-field flag over it; a file flag's text; an artifact named
 * by path or URL resolved to its id. Every required input is present before a file is read or an
 * artifact resolved.
 */
export async function operationInput(context: CommandContext, args: Args): Promise<Record<string, unknown>> {
  const { spec, io } = context
  const input: Record<string, unknown> = {}
  const json = spec.options.find((o) => o.to === 'body')
  if (json && args[camel(json.name)] !== undefined) input.body = await jsonValue(String(args[camel(json.name)]), io)
  const given: { option: OptionSpec; path: string[]; value: unknown }[] = []
  for (const option of spec.options) {
    const value = args[camel(option.name)]
    if (option.project && value !== undefined) Object.assign(input, { params: parseProjectReference(option.name, String(value)) })
    if (option.to === undefined || option.to === 'body') continue
    const path = option.to.split('.')
    if (value !== undefined) given.push({ option, path, value })
    // A required switch left off is false (`--access-public-view`); `--json` may hold it instead.
    else if (option.required && option.type === 'boolean' && !hasPath(input, path)) setPath(input, path, false)
    else if (option.required && !hasPath(input, path)) throw missing(spec, option)
  }
  for (const { option, path, value } of given) {
    if (option.file) setPath(input, path, await readText(`--${option.name}`, String(value), io))
    else if (option.name === 'artifact-id') setPath(input, path, await context.artifactId(String(value)))
    else setPath(input, path, value)
  }
  return input
}

/** The operation the command runs with these flags: its variant's when that flag is given (`artifact list --project`), else its own. */
export function operationOf(spec: CommandSpec, args: Args): OperationId | null {
  return spec.variant && args[camel(spec.variant.flag)] !== undefined ? spec.variant.operation : spec.operation
}

/** "Delete artifact ada/notes/plan", "Revoke API key key_…": what a confirmation asks about, as the person named it. */
export function describe(spec: CommandSpec, args: Args): string {
  const positional = spec.positionals?.[0]
  const named = positional ? args[camel(positional.flag)] : undefined
  const verb = (spec.path.at(-1) ?? '').split('-')[0] ?? ''
  const noun =
    spec.path.length > 2
      ? spec.path.slice(0, -1).join(' ')
      : (positional?.name.replaceAll('-', ' ').replace(/\bapi\b/, 'API') ?? spec.path[0])
  return `${verb.charAt(0).toUpperCase()}${verb.slice(1)} ${noun}${named === undefined ? '' : ` ${String(named)}`}`
}
