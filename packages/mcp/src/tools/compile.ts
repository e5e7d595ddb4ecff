import {
  type Check,
  checkOf,
  type FieldError,
  fail,
  firstPerField,
  IdempotencyKey,
  type OperationId,
  type OperationSpec,
  operations,
  type Result,
  type Scope,
  scopesOf,
} from '@quire/core'
import { type TObject, type TSchema, Type } from 'typebox'
import type { ExtraField, FieldSource, ToolSpec } from './define.ts'
import { outputOf } from './output.ts'

/** The MCP tool annotations (all four always set: the protocol's defaults are the pessimistic ones). */
export interface ToolAnnotations {
  readonly title: string
  readonly readOnlyHint: boolean
  readonly destructiveHint: boolean
  readonly idempotentHint: boolean
  readonly openWorldHint: false
}

/** What a tool call turns into: one operation of the table with its input. */
export interface OperationCall {
  readonly operation: OperationId
  readonly input: { params: Record<string, unknown>; query: Record<string, unknown>; body: unknown }
  readonly idempotencyKey?: string
}

/** A row of the tool table made ready to serve: JSON Schemas, annotations, scopes and the mapping to its operation. */
export interface CompiledTool {
  readonly spec: ToolSpec
  readonly name: string
  readonly title: string
  readonly description: string
  /** JSON Schema of the arguments, from the operation's TypeBox schemas. */
  readonly inputSchema: Record<string, unknown>
  /** JSON Schema of `structuredContent`. */
  readonly outputSchema: Record<string, unknown>
  readonly annotations: ToolAnnotations
  /** The scopes a credential needs for the tool (all of them, for one challenge). */
  readonly scopes: readonly Scope[]
  /** The arguments checked against the input schema: the operation call, or `validation_failed` naming each field. */
  parse(args: unknown): Result<{ call: OperationCall; args: Record<string, unknown> }>
}

/** The schema at a field source of an operation, and whether the operation requires it. */
function sourceSchema(op: OperationSpec, source: FieldSource): { schema: TSchema; required: boolean } {
  if (source === 'idempotencyKey') return { schema: IdempotencyKey, required: false }
  if (source === 'body') {
    if (!op.body) throw new Error('the operation has no body')
    return { schema: op.body, required: !op.bodyOptional }
  }
  const [part, name] = source.split('.') as ['params' | 'query' | 'body', string]
  const container = op[part] as TObject | undefined
  const schema = container?.properties?.[name]
  if (!container || !schema) throw new Error(`the operation has no ${source}`)
  return { schema, required: (container.required ?? []).includes(name) }
}

function isExtra(value: FieldSource | ExtraField): value is ExtraField {
  return typeof value === 'object'
}

/** A schema as plain JSON (no TypeBox markers), for `tools/list`. */
function plain(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>
}

/** The input schema of a tool: each field's schema is its operation's, required where the operation requires it. */
export function inputSchemaOf(spec: ToolSpec): TObject {
  const op: OperationSpec = operations[spec.operation]
  const properties: Record<string, TSchema> = {}
  for (const [field, source] of Object.entries({ ...spec.fields, ...spec.extensions })) {
    if (isExtra(source)) {
      properties[field] = Type.Optional(source.schema)
      continue
    }
    const { schema, required } = sourceSchema(op, source)
    const optional = !required || spec.without?.field === field
    // A spread copy drops TypeBox's optional marker: the field is required here.
    properties[field] = optional && !spec.require?.includes(field) ? Type.Optional(schema) : { ...schema }
  }
  return Type.Object(properties, { additionalProperties: false })
}

/** Every scope the tool's operations need (each operation's own and those it also needs), once each. */
function toolScopes(spec: ToolSpec): Scope[] {
  const ids = [spec.operation, ...(spec.without ? [spec.without.operation] : [])]
  return [...new Set(ids.flatMap((id) => scopesOf(operations[id])))]
}

/** The arguments' field errors, from core's one validator (ill-formed text first, then the schema), one a field. */
function argumentErrors(check: Check, args: unknown): FieldError[] {
  const result = check(args)
  return result.ok ? [] : firstPerField(result.errors.map(({ path, message }) => ({ path: path || '/', message })))
}

function sentenceOf(errors: readonly { path: string; message: string }[]): string {
  const named = errors.map(({ path, message }) => `\`${path.slice(1) || 'arguments'}\` ${message}`)
  return `The arguments are not valid: ${named.join('; ')}.`
}

/** Where an argument goes in an operation's input: a path or query field, the body (or one of its fields), the idempotency key. */
interface ArgumentPlace {
  readonly field: string
  readonly place: 'idempotencyKey' | 'body' | { readonly part: 'params' | 'query' | 'body'; readonly name: string }
}

/** Compiles one row of the tool table. */
export function compileTool(spec: ToolSpec): CompiledTool {
  const op: OperationSpec = operations[spec.operation]
  const input = inputSchemaOf(spec)
  // Arguments are JSON: checked as a request body is (no coercion); defaults are the operation's own.
  const check = checkOf(input)
  const hints = op.hints
  // Where each argument goes in the operation's input, worked out once (extensions go nowhere).
  const places = Object.entries({ ...spec.fields, ...spec.extensions }).flatMap(([field, source]): ArgumentPlace[] => {
    if (isExtra(source)) return []
    if (source === 'idempotencyKey' || source === 'body') return [{ field, place: source }]
    const [part, name] = source.split('.') as ['params' | 'query' | 'body', string]
    return [{ field, place: { part, name } }]
  })
  return {
    spec,
    name: spec.name,
    title: spec.title,
    description: spec.description,
    inputSchema: plain(input),
    outputSchema: plain(outputOf(spec)),
    annotations: {
      title: spec.title,
      readOnlyHint: hints.readOnly,
      destructiveHint: hints.destructive,
      idempotentHint: hints.idempotent,
      openWorldHint: false,
    },
    scopes: toolScopes(spec),
    parse(raw) {
      const args = raw ?? {}
      const errors = argumentErrors(check, args)
      if (errors.length > 0) return fail('validation_failed', sentenceOf(errors), { errors })
      const given = args as Record<string, unknown>
      const operation = spec.without && given[spec.without.field] === undefined ? spec.without.operation : spec.operation
      const call: { -readonly [K in keyof OperationCall]: OperationCall[K] } = {
        operation,
        input: { params: {}, query: {}, body: (operations[operation] as OperationSpec).body ? {} : undefined },
      }
      for (const { field, place } of places) {
        const value = given[field]
        if (value === undefined) continue
        if (place === 'idempotencyKey') call.idempotencyKey = value as string
        else if (place === 'body') call.input.body = value
        else (call.input[place.part] as Record<string, unknown>)[place.name] = value
      }
      return { ok: true, value: { call, args: given } }
    },
  }
}
