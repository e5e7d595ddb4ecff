import { type OperationId, type OperationSpec, operations } from '@quire/core/contract'
import type { Column, CommandEntry, CommandSpec, Fields, HandlerName, InputTarget, OptionSpec, PositionalSpec } from './types.ts'

/**
 * Commands derived from the operation table. A command's flags are the operation's inputs, read
 * off its TypeBox schemas: path parameters, query fields and body fields, each named in
 * kebab-case, typed, described, with its enum as choices and its format checked; a nested body
 * object gives one flag per field (`access.publicView` is `--access-public-view`). What a schema
 * cannot say (the command's name, positionals, columns, examples, renamed or file-valued flags)
 * is an override, keyed by operation id (registry/operations.ts).
 */

/** How one input differs on the command line from what its schema says. */
export interface FlagOverride {
  /** The flag's name (the spec's `--version` for `params.versionNumber`). */
  readonly name?: string
  /** The value is a file to read (`-`: standard input); the flag becomes `--<name>-file`. */
  readonly file?: boolean
  readonly description?: string
  readonly example?: string
  /** Every word left on the command line, joined with spaces, is this flag's value (`quire search deploy -draft`). */
  readonly words?: true
}

export interface CommandOverride {
  /** `['artifact', 'get']` is `quire artifact get`. */
  readonly command: readonly string[]
  /** Other last words for the command (`view` for `artifact get`). */
  readonly aliases?: readonly string[]
  /** Default: the operation's summary. */
  readonly summary?: string
  /** The spec's `--json` option: the whole body as JSON, and what it holds. Body-field flags win over it. */
  readonly json?: boolean
  /** Inputs that differ from their schema, by input path (`params.versionNumber`, `body.content`). */
  readonly flags?: Readonly<Record<string, FlagOverride>>
  /**
   * List tables: the fields shown, in order; `field:Header` names the header (else it is derived);
   * a `Column` makes its cells from the whole row (search hits).
   */
  readonly columns?: readonly (string | Column)[]
  /** What a list with no items says, from the flags (default "No items."). */
  readonly empty?: CommandSpec['empty']
  readonly textField?: string
  /** Text output as a table of a list inside the result, then a diff (`columns` are the table's). */
  readonly report?: CommandSpec['report']
  readonly says?: (value: Fields, named?: string) => string
  readonly handler?: HandlerName
  readonly examples?: readonly string[]
}

/** An operation `quire` deliberately has no command for, with the one-line reason. */
export interface Hidden {
  readonly hidden: string
}

/**
 * An operation that another row's command runs when one of its flags is given, instead of its own
 * (`artifact list --project OWNER/PROJECT`). The flag names a project, whose owner and slug are the
 * operation's path parameters (`owner`, `projectSlug`); every other input of the operation is a
 * flag the command has already, and the answer has the command's schema, so its output is the same.
 */
export interface ProjectVariant {
  /** The command that runs it. */
  readonly command: readonly string[]
  /** The flag that picks it: `project` is `--project OWNER/PROJECT`. */
  readonly projectFlag: string
  readonly examples?: readonly string[]
}

/** Every operation: its command (or commands), the flag of another command that runs it, or why it has none. A missing or unknown id does not compile. */
export type CliOverrides = {
  readonly [K in OperationId]: CommandOverride | readonly CommandOverride[] | ProjectVariant | Hidden
}

/** `latestVersion` → `latest version`: a field's name as words (flags, headers and labels are made of them). */
export const words = (name: string) => name.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`)

export const kebab = (name: string) => words(name).replaceAll(' ', '-')

interface Schema {
  readonly type?: string
  readonly description?: string
  readonly format?: string
  readonly enum?: readonly unknown[]
  readonly const?: unknown
  readonly anyOf?: readonly Schema[]
  readonly items?: Schema
  readonly properties?: Readonly<Record<string, Schema>>
  readonly required?: readonly string[]
  readonly examples?: readonly unknown[]
}

/** The schema without a `null` alternative: `T | null` is a `T` flag. */
function nonNull(schema: Schema): Schema {
  const alternatives = schema.anyOf?.filter((s) => s.type !== 'null')
  return alternatives?.length === 1 ? { ...alternatives[0], description: schema.description ?? alternatives[0]?.description } : schema
}

function choicesOf(schema: Schema): string[] | undefined {
  if (schema.enum) return schema.enum.map(String)
  if (schema.anyOf?.every((s) => s.const !== undefined)) return schema.anyOf.map((s) => String(s.const))
  return undefined
}

function typeOf(schema: Schema): OptionSpec['type'] {
  if (schema.type === 'integer' || schema.type === 'number') return 'number'
  if (schema.type === 'boolean') return 'boolean'
  if (schema.type === 'array') return 'array'
  return 'string'
}

const formatExamples: Readonly<Record<string, string>> = {
  'date-time': '2026-12-31T23:59:59Z',
  email: 'ada@example.com',
}

/** The flag of one input field. */
function optionOf(name: string, to: InputTarget, raw: Schema, required: boolean, override: FlagOverride = {}): OptionSpec {
  const schema = nonNull(raw)
  const items = schema.type === 'array' && schema.items ? nonNull(schema.items) : undefined
  const choices = choicesOf(items ?? schema)
  const format = (items ?? schema).format
  const example = override.example ?? (format ? formatExamples[format] : undefined) ?? schema.examples?.map(String)[0]
  const description = (override.description ?? schema.description ?? '').replace(/\.$/, '')
  return {
    name: override.file ? `${override.name ?? kebab(name)}-file` : (override.name ?? kebab(name)),
    type: override.file ? 'string' : typeOf(schema),
    description: override.file ? `${description}: read from this file (- for standard input)` : description,
    ...(required ? { required: true } : {}),
    ...(choices ? { choices } : {}),
    ...(format ? { format } : {}),
    ...(example ? { example } : {}),
    ...(override.file ? { file: true } : {}),
    to,
  }
}

/** The flags of one part of the input (`params`, `query`, `body`), nested objects one level deep. */
function optionsOf(part: 'params' | 'query' | 'body', schema: Schema | undefined, overrides: CommandOverride['flags'] = {}): OptionSpec[] {
  const options: OptionSpec[] = []
  for (const [key, field] of Object.entries(schema?.properties ?? {})) {
    const required = part === 'params' || (schema?.required ?? []).includes(key)
    const path = `${part}.${key}` as const
    if (field.type === 'object' && field.properties) {
      for (const [inner, innerField] of Object.entries(field.properties)) {
        const innerPath = `${path}.${inner}` as const
        const override = overrides[innerPath] ?? { name: `${kebab(key)}-${kebab(inner)}` }
        options.push(optionOf(inner, innerPath, innerField, required && (field.required ?? []).includes(inner), override))
      }
      continue
    }
    options.push(optionOf(key, path, field, required, overrides[path]))
  }
  return options
}

/** `latestVersion` → `LATEST VERSION`; `actor.label` → `ACTOR` (a label stands for its parent). */
function headerOf(field: string): string {
  const parts = field.split('.')
  const last = parts.length > 1 && (parts.at(-1) === 'label' || parts.at(-1) === 'surface') ? parts.at(-2) : parts.at(-1)
  return words(last ?? field).toUpperCase()
}

export function columnOf(spec: string | Column): Column {
  if (typeof spec !== 'string') return spec
  const [field = spec, header] = spec.split(':')
  return { field, header: header ?? headerOf(field) }
}

/** The artifact named by path, URL or id, standing for `--artifact-id` (derived commands and the CLI's own). */
export const artifactPositional: PositionalSpec = {
  name: 'artifact',
  kind: 'artifact',
  flag: 'artifact-id',
  description: 'The artifact: OWNER/PROJECT/SLUG, its URL, or its id',
}

/**
 * The positionals of a command: an artifact path or URL stands for `--artifact-id`; a single other
 * id flag may be given bare; the words left stand for the flag whose override says `words`.
 */
function positionalsOf(options: readonly OptionSpec[], flags: CommandOverride['flags'] = {}): PositionalSpec[] {
  const rest = options.filter((o) => o.to !== undefined && flags[o.to]?.words)
  if (rest.length > 1) throw new Error(`Only one flag takes the words left, not ${rest.map((o) => `--${o.name}`).join(' and ')}`)
  const words: PositionalSpec[] = rest.map((o) => ({
    name: o.name,
    kind: 'words',
    flag: o.name,
    description: `Every word left, joined with spaces as typed: the same as --${o.name}. A word with one dash (-draft) is a word, not a flag (-h is help); after -- every word is`,
  }))
  if (options.some((o) => o.name === 'artifact-id')) return [artifactPositional, ...words]
  const ids = options.filter((o) => o.required && o.to?.startsWith('params.') && o.name.endsWith('-id'))
  const [only] = ids
  if (ids.length !== 1 || !only) return words
  return [{ name: only.name.replace(/-id$/, ''), kind: 'id', flag: only.name, description: only.description }, ...words]
}

const limitCursor = (part: string) => part === 'query.limit' || part === 'query.cursor'

/** One command from its operation and override. */
export function deriveCommand(operationId: OperationId, override: CommandOverride): CommandSpec {
  const op: OperationSpec = operations[operationId]
  const list = (op.success.schema as Schema).properties?.nextCursor !== undefined
  const fields = [
    ...optionsOf('params', op.params as Schema | undefined, override.flags),
    ...optionsOf('query', op.query as Schema | undefined, override.flags),
    ...optionsOf('body', op.body as Schema | undefined, override.flags),
  ]
  // `dryRun` in a write's query is the global --dry-run (run/call-operation.ts), not a flag of its own.
  const options = fields.filter((o) => o.to !== 'query.dryRun')
  const json: OptionSpec[] = override.json
    ? [{ name: 'json', type: 'string', description: 'The whole body as JSON: inline, @FILE, or - for standard input', to: 'body' }]
    : []
  const positionals = positionalsOf(options, override.flags)
  return {
    path: override.command,
    ...(override.aliases?.length ? { aliases: override.aliases } : {}),
    summary: override.summary ?? op.summary,
    operation: operationId,
    ...(positionals.length ? { positionals } : {}),
    options: [...options.filter((o) => !limitCursor(o.to ?? '')), ...json, ...options.filter((o) => limitCursor(o.to ?? ''))],
    mutates: !op.hints.readOnly,
    ...(op.hints.destructive ? { destructive: true } : {}),
    output: list ? 'list' : 'object',
    ...(override.columns ? { columns: override.columns.map(columnOf) } : {}),
    ...(override.empty ? { empty: override.empty } : {}),
    ...(override.textField ? { textField: override.textField } : {}),
    ...(override.report ? { report: override.report } : {}),
    ...(override.says ? { says: override.says } : {}),
    ...(override.handler ? { handler: override.handler } : {}),
    ...(override.examples ? { examples: override.examples } : {}),
  }
}

/** The schema a variant's project parameters must have: exactly an owner and a project slug. */
const projectParams = ['owner', 'projectSlug']

/**
 * `command` with `variant` folded in: the project flag first, then the command's own. Throws (when
 * the command is derived: the catalog test derives every one) when the variant needs an input the command has no flag for, or
 * answers something else.
 */
export function withVariant(command: CommandSpec, operationId: OperationId, variant: ProjectVariant): CommandSpec {
  const op: OperationSpec = operations[operationId]
  const base: OperationSpec = operations[command.operation as OperationId]
  const where = `${operationId} through quire ${command.path.join(' ')} --${variant.projectFlag}`
  const params = Object.keys((op.params as Schema | undefined)?.properties ?? {})
  if (params.join(' ') !== projectParams.join(' ')) throw new Error(`${where}: its path parameters are not ${projectParams.join(', ')}`)
  // Compared as JSON: the built CLI takes the contract as data (build/plain-contract.ts), not the same objects.
  if (JSON.stringify(op.success.schema) !== JSON.stringify(base.success.schema))
    throw new Error(`${where}: it answers another schema than ${command.operation}`)
  const inputs = new Set(command.options.flatMap((o) => (o.to ? [o.to] : [])))
  for (const option of optionsOf('query', op.query as Schema | undefined))
    if (!inputs.has(option.to as InputTarget)) throw new Error(`${where}: no flag of the command fills ${option.to}`)
  if (op.body) throw new Error(`${where}: it takes a body`)
  const flag: OptionSpec = {
    name: variant.projectFlag,
    type: 'string',
    description: `${op.summary.replace(/\.$/, '')}, instead: the project as OWNER/PROJECT or its URL`,
    example: 'ada/notes',
    project: true,
  }
  return {
    ...command,
    summary: `${command.summary}; with --${variant.projectFlag}, a project's that you may read`,
    variant: { flag: variant.projectFlag, operation: operationId },
    options: [flag, ...command.options],
    examples: [...(command.examples ?? []), ...(variant.examples ?? [])],
  }
}

/**
 * Every derived command, in the order of the map, each derived on first use; hidden operations
 * give none, and a variant (`projectFlag`) joins the command it names.
 */
export function commandEntriesOf(overrides: CliOverrides): CommandEntry[] {
  const rows = Object.entries(overrides) as [OperationId, CliOverrides[OperationId]][]
  const entries = rows.flatMap(([id, entry]): CommandEntry[] => {
    if ('hidden' in entry || 'projectFlag' in entry) return []
    const each: readonly CommandOverride[] = Array.isArray(entry) ? entry : [entry as CommandOverride]
    return each.map((override) => {
      let spec: CommandSpec | undefined
      const aliases = override.aliases?.length ? { aliases: override.aliases } : {}
      return { path: override.command, ...aliases, spec: () => (spec ??= deriveCommand(id, override)) }
    })
  })
  return rows.reduce((all, [id, entry]) => {
    if (!('projectFlag' in entry)) return all
    const at = all.findIndex((c) => c.path.join(' ') === entry.command.join(' '))
    const base = all[at]
    if (!base) throw new Error(`${id}: no command quire ${entry.command.join(' ')} to run it`)
    let spec: CommandSpec | undefined
    return all.with(at, { ...base, spec: () => (spec ??= withVariant(base.spec(), id, entry)) })
  }, entries)
}

/** The operations left without a command, with their reasons (the surface check reads them). */
export function hiddenOf(overrides: CliOverrides): Readonly<Partial<Record<OperationId, string>>> {
  return Object.fromEntries(
    Object.entries(overrides).flatMap(([id, entry]) => ('hidden' in (entry as object) ? [[id, (entry as Hidden).hidden]] : [])),
  )
}
