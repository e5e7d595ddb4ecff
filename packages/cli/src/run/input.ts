import { readFile } from 'node:fs/promises'
import type { CommandSpec, OptionSpec } from '../registry/types.ts'
import { CliError } from './cli-error.ts'
import type { Args, Io } from './context.ts'

/** `artifact-id` → `artifactId`, as yargs names parsed flags. */
export const camel = (flag: string) => flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())

/** The value of `--json`: inline JSON, `@file`, or `-` for standard input. */
async function jsonValue(option: OptionSpec, raw: string, io: Io): Promise<unknown> {
  let text = raw
  let from = `--${option.name}`
  if (raw === '-') {
    text = await io.readStdin()
    from = 'standard input'
  } else if (raw.startsWith('@')) {
    from = raw.slice(1)
    try {
      text = await readFile(from, 'utf8')
    } catch (error) {
      throw new CliError('usage', `Cannot read ${from}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`)
    }
  }
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new CliError('usage', `${from} is not valid JSON: ${(error as Error).message}`, {
      hint: `--${option.name} takes JSON, @file or - (standard input).`,
    })
  }
}

/** `a,b c` → ['a', 'b', 'c'], from a flag given once or several times. */
function listValue(raw: unknown): string[] {
  const values = Array.isArray(raw) ? raw : [raw]
  return values.flatMap((v) => String(v).split(/[\s,]+/)).filter(Boolean)
}

/** The operation's input (params, query, body) from the command's flags, as the registry maps them. */
export async function operationInput(spec: CommandSpec, args: Args, io: Io): Promise<Record<string, unknown>> {
  const input: Record<string, Record<string, unknown> | unknown> = {}
  for (const option of spec.options) {
    const raw = args[camel(option.name)]
    if (option.to === undefined || raw === undefined) continue
    const value = option.to === 'body' ? await jsonValue(option, String(raw), io) : option.type === 'array' ? listValue(raw) : raw
    if (option.to === 'body') {
      input.body = { ...(value as object), ...((input.body as object | undefined) ?? {}) }
      continue
    }
    const [part, key] = option.to.split('.') as [string, string]
    input[part] = { ...((input[part] as object | undefined) ?? {}), [key]: value }
  }
  return input
}
