import { styleText } from 'node:util'
import type { CommandSpec } from '../registry/types.ts'
import type { CliError } from './cli-error.ts'
import type { CommandResult, Globals, Io } from './context.ts'
import { exitCodes } from './exit-codes.ts'
import { redact } from './redact.ts'

/**
 * Rendering. Data goes to standard output, everything else to standard error. JSON mode writes
 * exactly one JSON document (NDJSON: one per line); text mode is for people: aligned tables,
 * `key: value` lines, raw content. Colour only on a terminal and never with NO_COLOR.
 */
export interface Renderer {
  result(spec: CommandSpec, result: CommandResult): Promise<void>
  error(error: CliError): void
}

function get(value: unknown, path: string): unknown {
  let at: unknown = value
  for (const key of path.split('.')) at = at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined
  return at
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return ''
  if (Array.isArray(value)) return value.map(cell).join(',')
  if (typeof value === 'object') return JSON.stringify(value)
  return String(value).replace(/[\r\n\t]+/g, ' ')
}

/** `key: value` lines, nested objects flattened with dots. */
function keyValues(value: unknown, prefix = ''): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [`${prefix || 'value'}: ${cell(value)}`]
  return Object.entries(value).flatMap(([key, inner]) =>
    inner !== null && typeof inner === 'object' && !Array.isArray(inner)
      ? keyValues(inner, `${prefix}${key}.`)
      : [`${prefix}${key}: ${cell(inner)}`],
  )
}

function table(columns: readonly string[], rows: readonly unknown[], bold: (s: string) => string): string {
  const cells = rows.map((row) => columns.map((c) => cell(get(row, c))))
  const widths = columns.map((c, i) => Math.min(60, Math.max(c.length, ...cells.map((r) => (r[i] ?? '').length))))
  const line = (values: readonly string[]) =>
    values
      .map((v, i) => (v.length > (widths[i] ?? 0) ? `${v.slice(0, (widths[i] ?? 1) - 1)}…` : v.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd()
  return [bold(line(columns.map((c) => c.toUpperCase()))), ...cells.map(line)].join('\n')
}

export function renderer(globals: Globals, io: Io, options: { readonly color: boolean }): Renderer {
  const paint = (format: Parameters<typeof styleText>[0]) => (text: string) =>
    options.color ? styleText(format, text, { validateStream: false }) : text
  const bold = paint('bold')
  const red = paint('red')
  const dim = paint('dim')
  const json = (value: unknown) => io.stdout(`${JSON.stringify(value, null, 2)}\n`)

  return {
    async result(spec, result) {
      if (result.kind === 'stream') {
        // --ndjson: one object per line, as each page arrives.
        for await (const item of result.items) io.stdout(`${JSON.stringify(item)}\n`)
        return
      }
      if (globals.format === 'json') {
        if (result.kind === 'page') return json({ items: result.items, nextCursor: result.nextCursor })
        return json(result.value)
      }
      switch (result.kind) {
        case 'text':
          io.stdout(result.text.endsWith('\n') || result.text === '' ? result.text : `${result.text}\n`)
          return
        case 'page': {
          if (result.items.length === 0) io.stderr(`${dim('No items.')}\n`)
          else io.stdout(`${table(spec.columns ?? Object.keys((result.items[0] as object) ?? {}), result.items, bold)}\n`)
          if (result.nextCursor) io.stderr(`${dim(`More: add --cursor ${result.nextCursor} (or use --ndjson for everything).`)}\n`)
          return
        }
        case 'value': {
          const field = spec.textField ? get(result.value, spec.textField) : undefined
          if (typeof field === 'string') {
            io.stdout(field.endsWith('\n') || field === '' ? field : `${field}\n`)
            return
          }
          io.stdout(`${keyValues(result.value).join('\n')}\n`)
        }
      }
    },

    error(error) {
      const exitCode = exitCodes[error.exit].code
      // A message can quote what the network stack saw (a header, say): secrets are cut out.
      const message = redact(error.message)
      if (globals.format === 'json') {
        const body = {
          code: error.code,
          message,
          exitCode,
          ...(error.options.hint ? { hint: error.options.hint } : {}),
          ...error.options.details,
        }
        io.stderr(`${JSON.stringify({ error: body })}\n`)
        return
      }
      io.stderr(`${red('error:')} ${message}\n`)
      if (error.options.hint) io.stderr(`${dim('hint:')} ${error.options.hint}\n`)
    },
  }
}
