import { operations } from '@quire/core/contract'
import { builtin } from '../builtin.ts'
import { columnOf, words } from '../registry/derive.ts'
import type { Column, CommandSpec, Fields, Segment } from '../registry/types.ts'
import { CliError } from './cli-error.ts'
import type { CommandResult, Globals, Io } from './context.ts'
import { exitCodes } from './exit-codes.ts'
import { redact } from './redact.ts'
import { columnWidths, cut, printable, segmentsWidth } from './table.ts'

/**
 * Rendering. Data goes to standard output, everything else to standard error. JSON mode writes
 * exactly one JSON document (NDJSON: one per line), narrowed by --fields and filtered by --jq.
 * Text mode is for people: a write says in one line what happened, a list is a table with
 * readable headers, an object is its non-empty fields; times are relative on a terminal and ISO
 * otherwise; a diff is coloured on a terminal, and so are a search's matches (bold red, as grep
 * marks them). Colour only on a terminal, never with NO_COLOR.
 */
export interface Renderer {
  result(spec: CommandSpec, result: CommandResult): Promise<void>
  error(error: CliError, secrets?: readonly string[]): void
}

/** The value at a dotted path (`actor.label`). */
export function get(value: unknown, path: string): unknown {
  let at: unknown = value
  for (const key of path.split('.')) at = at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined
  return at
}

/** Only these (dotted) fields of an object, nested as they were. */
export function pick(value: unknown, fields: readonly string[]): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value
  const out: Record<string, unknown> = {}
  for (const field of fields) {
    const parts = field.split('.')
    let target = out
    parts.forEach((part, i) => {
      if (i === parts.length - 1) target[part] = get(value, field) ?? null
      else {
        target[part] ??= {}
        target = target[part] as Record<string, unknown>
      }
    })
  }
  return out
}

interface SchemaLike {
  readonly properties?: Readonly<Record<string, SchemaLike>>
  readonly items?: SchemaLike
  readonly anyOf?: readonly SchemaLike[]
}

/** The fields an operation's result (or each item of a list) has, dotted one level into objects. */
function fieldsOf(spec: CommandSpec): string[] | null {
  if (!spec.operation || spec.handler) return null
  const schema = operations[spec.operation].success.schema as SchemaLike
  const item = spec.output === 'list' ? schema.properties?.items?.items : schema
  const names: string[] = []
  for (const [key, field] of Object.entries(item?.properties ?? {})) {
    names.push(key)
    const inner = field.properties ?? field.anyOf?.find((s) => s.properties)?.properties
    for (const sub of Object.keys(inner ?? {})) names.push(`${key}.${sub}`)
  }
  return names
}

/** --fields names only fields the result has (as `gh --json` does, the error lists them). */
function checkFields(spec: CommandSpec, fields: readonly string[]): void {
  const known = fieldsOf(spec)
  if (!known) return
  const unknown = fields.filter((f) => !known.includes(f))
  if (unknown.length)
    throw new CliError('usage', `Unknown field${unknown.length > 1 ? 's' : ''} for --fields: ${unknown.join(', ')}.`, {
      hint: `Available: ${known.filter((k) => !k.includes('.')).join(', ')}.`,
    })
}

const isoTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/

/** "3 minutes ago", "in 2 days". */
export function relativeTime(iso: string, now = Date.now()): string {
  const seconds = Math.round((Date.parse(iso) - now) / 1000)
  const units: [Intl.RelativeTimeFormatUnit, number][] = [
    ['year', 31_536_000],
    ['month', 2_592_000],
    ['day', 86_400],
    ['hour', 3_600],
    ['minute', 60],
  ]
  const format = new Intl.RelativeTimeFormat('en', { numeric: 'auto' })
  for (const [unit, size] of units) if (Math.abs(seconds) >= size) return format.format(Math.trunc(seconds / size), unit)
  return Math.abs(seconds) < 10 ? 'just now' : format.format(seconds, 'second')
}

function isEmpty(value: unknown): boolean {
  return value === null || value === undefined || value === '' || (Array.isArray(value) && value.length === 0)
}

/** `latestVersion` → `Latest version`. */
function label(key: string): string {
  const text = words(key).replace(/\b(id|url|sha256)\b/g, (w) => w.toUpperCase())
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}`
}

type NodeUtil = typeof import('node:util')

export function renderer(globals: Globals, io: Io, options: { readonly color: boolean }): Renderer {
  const paint = (format: Parameters<NodeUtil['styleText']>[0]) => (text: string) =>
    options.color ? builtin<NodeUtil>('node:util').styleText(format, text, { validateStream: false }) : text
  const bold = paint('bold')
  const red = paint('red')
  const green = paint('green')
  const cyan = paint('cyan')
  const dim = paint('dim')
  const match = paint(['bold', 'red'])

  /** One value as a table cell or after a label: times relative on a terminal, objects by their label. */
  const show = (value: unknown): string => {
    if (isEmpty(value)) return ''
    if (typeof value === 'string' && isoTime.test(value)) return io.stdoutIsTty ? relativeTime(value) : value
    if (typeof value === 'boolean') return value ? 'yes' : 'no'
    if (Array.isArray(value)) return value.map(show).join(', ')
    if (typeof value === 'object') {
      const object = value as Record<string, unknown>
      if (typeof object.label === 'string') return object.label
      return Object.entries(object)
        .filter(([, v]) => !isEmpty(v))
        .map(([k, v]) => `${label(k).toLowerCase()} ${show(v)}`)
        .join(', ')
    }
    return String(value).replace(/[\r\n\t]+/g, ' ')
  }

  /** A row's cell: the column's own segments, or the field's value as one. */
  const cellOf = (column: Column, row: unknown): Segment[] =>
    (column.cell ? column.cell(row as Fields) : [{ text: show(get(row, column.field)), match: false }]).map((s) => ({
      text: printable(s.text),
      match: s.match,
    }))

  /** Columns as wide as their cells (a filling one fitted to the terminal), cut with …; matches painted. */
  const table = (columns: readonly Column[], rows: readonly unknown[]): string => {
    const headers = columns.map((c): Segment[] => [{ text: c.header, match: false }])
    const cells = rows.map((row) => columns.map((c) => cellOf(c, row)))
    const natural = columns.map((_, i) => Math.max(...[headers, ...cells].map((r) => segmentsWidth(r[i] ?? []))))
    const widths = columnWidths(
      natural,
      columns.findIndex((c) => c.fill),
      io.stdoutColumns,
    )
    const line = (values: readonly Segment[][]) =>
      values
        .map((value, i) => {
          const shown = cut(value, widths[i] ?? 0)
          const text = shown.map((s) => (s.match ? match(s.text) : s.text)).join('')
          return i === values.length - 1 ? text : text + ' '.repeat(Math.max(0, (widths[i] ?? 0) - segmentsWidth(shown)))
        })
        .join('  ')
        .trimEnd()
    return [bold(line(headers)), ...cells.map(line)].join('\n')
  }

  /** An object's non-empty fields, one per line, labels aligned. */
  const details = (value: unknown): string => {
    if (value === null || typeof value !== 'object') return String(value)
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => !isEmpty(show(v)))
    const width = Math.max(...entries.map(([k]) => label(k).length))
    return entries.map(([k, v]) => `${dim(`${label(k)}:`.padEnd(width + 1))} ${show(v)}`).join('\n')
  }

  const diff = (text: string) =>
    text
      .split('\n')
      .map((line) =>
        line.startsWith('+++') || line.startsWith('---')
          ? bold(line)
          : line.startsWith('@@')
            ? cyan(line)
            : line.startsWith('+')
              ? green(line)
              : line.startsWith('-')
                ? red(line)
                : line,
      )
      .join('\n')

  const write = (text: string) => io.stdout(text.endsWith('\n') || text === '' ? text : `${text}\n`)

  const json = async (value: unknown) => {
    if (globals.jq === undefined) return write(JSON.stringify(value, null, 2))
    const jq = await import('jq-wasm')
    try {
      write(await jq.raw(value as object, globals.jq, ['-r']))
    } catch (error) {
      throw new CliError('usage', `--jq: ${(error as Error).message.split('\n')[0]}`, { hint: 'e.g. --jq ".items[].url"' })
    }
  }

  return {
    async result(spec, result) {
      const fields = globals.fields
      // A dry run answers its own shape, not the write's.
      if (fields && result.kind !== 'preview') checkFields(spec, fields)
      const narrow = (value: unknown) => (fields ? pick(value, fields) : value)
      if (result.kind === 'stream') {
        // --ndjson: one object per line, as each page arrives.
        for await (const item of result.items) io.stdout(`${JSON.stringify(narrow(item))}\n`)
        return
      }
      if (globals.format === 'json') {
        if (result.kind === 'preview' || result.kind === 'report') return json(narrow(result.value))
        if (result.kind === 'page') return json({ items: result.items.map(narrow), nextCursor: result.nextCursor, ...result.extra })
        return json(narrow(result.value))
      }
      switch (result.kind) {
        case 'text':
          return write(result.text)
        case 'preview': {
          if (fields) return write(details(pick(result.value, fields)))
          write(result.says)
          if (result.diff) write(options.color ? diff(result.diff) : result.diff)
          if (result.note) io.stderr(`${dim(result.note)}\n`)
          return
        }
        case 'report': {
          if (fields) return write(details(pick(result.value, fields)))
          if (result.rows.length > 0) write(table(spec.columns ?? [], result.rows))
          if (result.diff) write(`${result.rows.length > 0 ? '\n' : ''}${options.color ? diff(result.diff) : result.diff}`)
          if (result.note) io.stderr(`${dim(result.note)}\n`)
          return
        }
        case 'page': {
          const columns = fields ? fields.map(columnOf) : (spec.columns ?? Object.keys((result.items[0] as object) ?? {}).map(columnOf))
          if (result.items.length === 0) io.stderr(`${dim(result.empty ?? 'No items.')}\n`)
          else write(table(columns, result.items))
          const deleted = result.extra?.deletedArtifact as { deletedAt?: string } | undefined
          if (deleted?.deletedAt)
            io.stderr(`${dim(`This artifact was deleted ${show(deleted.deletedAt)}; its trail stays readable by its owners.`)}\n`)
          if (result.nextCursor) io.stderr(`${dim(`More: add --cursor ${result.nextCursor} (or --ndjson for everything).`)}\n`)
          return
        }
        case 'value': {
          if (fields) return write(details(pick(result.value, fields)))
          const field = spec.textField ? get(result.value, spec.textField) : undefined
          if (typeof field === 'string') return write(spec.textField === 'diff' && options.color ? diff(field) : field)
          if (spec.says && result.value !== null && typeof result.value === 'object')
            return write(spec.says(result.value as Fields, result.named))
          return write(details(result.value))
        }
      }
    },

    error(error, secrets = []) {
      const exitCode = exitCodes[error.exit].code
      // A message can quote what the network stack saw (a header, say): secrets are cut out.
      const message = redact(error.message, secrets)
      const hint = error.options.hint ? redact(error.options.hint, secrets) : undefined
      if (globals.format === 'json') {
        const body = { code: error.code, message, exitCode, ...(hint ? { hint } : {}), ...error.options.details }
        io.stderr(`${JSON.stringify({ error: body })}\n`)
        return
      }
      io.stderr(`${red('error:')} ${message}\n`)
      if (hint) io.stderr(`${dim('hint:')} ${hint}\n`)
    },
  }
}
