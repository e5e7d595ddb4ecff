import { type TObject, type TSchema, Type } from 'typebox'
import { Compile } from 'typebox/compile'
import { Settings } from 'typebox/system'
import { Value } from 'typebox/value'
import type { OperationSpec } from '../contract/operation.ts'
import { IdempotencyKey } from '../contract/schemas/common.ts'
import { illFormedText } from '../contract/text.ts'
import { coerce } from './coerce.ts'
import { registerFormats } from './formats.ts'
import { type FieldError, fieldErrorsOf } from './issues.ts'

/**
 * THE validator: every surface (the REST routes, the MCP tools, the web forms) checks its input
 * with these, compiled from the operation table's TypeBox schemas, and answers the same field
 * errors (a JSON pointer and a message in one wording).
 */

/** What a check answers: the value as checked (coerced and defaulted, changed in place), or why not. */
export type CheckResult = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly errors: readonly FieldError[] }

export interface CheckOptions {
  /** Text where the schema says number, integer or boolean is read as one (path, query, headers). */
  readonly coerce?: boolean
  /** A missing field with a `default` in its schema gets it. */
  readonly defaults?: boolean
  /** Messages repeat the offending value (`(got "x")`), as the API's do; default true. A form, which shows it, says false. */
  readonly quoteValues?: boolean
}

export type Check = (value: unknown) => CheckResult

/** TypeBox stops at 8 errors unless told; the API has always named every one. */
function allErrorsOf(validator: ReturnType<typeof Compile>, value: unknown): ReturnType<ReturnType<typeof Compile>['Errors']> {
  const settings = Settings.Get()
  const before = settings.maxErrors
  Settings.Set({ maxErrors: Number.MAX_SAFE_INTEGER })
  try {
    return validator.Errors(value)
  } finally {
    Settings.Set({ maxErrors: before })
  }
}

const compiled = new WeakMap<TSchema, Map<string, Check>>()

/** Whether a schema declares a `default` anywhere in it (a field named `default` counts too: it only costs a fill). */
function declaresDefault(schema: unknown): boolean {
  if (typeof schema !== 'object' || schema === null) return false
  return Object.hasOwn(schema, 'default') || Object.values(schema).some(declaresDefault)
}

/**
 * The check of one schema: core's text rule first (every string and field name well-formed, so a
 * lone surrogate is named as such before anything else looks at it), then coercion and defaults
 * when asked, then the schema. Compiled once per schema and options.
 */
export function checkOf(schema: TSchema, options: CheckOptions = {}): Check {
  const quoting = options.quoteValues !== false
  const variant = `${options.coerce === true}:${options.defaults === true}:${quoting}`
  const bySchema = compiled.get(schema) ?? new Map<string, Check>()
  compiled.set(schema, bySchema)
  const known = bySchema.get(variant)
  if (known) return known
  registerFormats()
  const validator = Compile(schema)
  const coercing = options.coerce === true
  const filling = options.defaults === true && declaresDefault(schema)
  const check: Check = (input) => {
    const text = illFormedText(input)
    if (text.length > 0) return { ok: false, errors: text.map(({ path, message }) => ({ path, message })) }
    // A value that passes as it is needs nothing more: coercion changes only what does not have its
    // declared type, and a schema without defaults has none to fill in.
    if (!filling && validator.Check(input)) return { ok: true, value: input }
    let value = input
    if (coercing) value = coerce(schema, value)
    if (filling) value = Value.Default(schema, value)
    if (validator.Check(value)) return { ok: true, value }
    return { ok: false, errors: fieldErrorsOf(schema, value, allErrorsOf(validator, value), coercing, quoting) }
  }
  bySchema.set(variant, check)
  return check
}

/** The parts of a request, in the order the API checks them (the first part at fault is answered). */
export const inputParts = ['params', 'body', 'query', 'headers'] as const
export type InputPart = (typeof inputParts)[number]

/** The query of an operation that takes none: any field is refused. */
export const NoQuery = Type.Object({}, { additionalProperties: false })

/** The headers of an operation that takes an `Idempotency-Key`. */
export const IdempotencyHeaders = Type.Object({ 'idempotency-key': Type.Optional(IdempotencyKey) })

/** What each part of an operation's input is checked against. */
export interface InputSchemas {
  readonly params?: TObject
  readonly query: TObject
  readonly headers?: TObject
  readonly body?: TSchema
}

/** The schemas an operation's input is checked against, part by part, as the routes declare them. */
export function inputSchemasOf(op: OperationSpec): InputSchemas {
  return {
    ...(op.params ? { params: op.params } : {}),
    query: op.query ?? NoQuery,
    ...(op.idempotencyKey ? { headers: IdempotencyHeaders } : {}),
    ...(op.body ? { body: op.body } : {}),
  }
}

/** The check of one part of a request: bodies are JSON (no coercion); the rest arrives as text. */
export function partCheckOf(part: InputPart, schema: TSchema, quoteValues = true): Check {
  return checkOf(schema, { coerce: part !== 'body', defaults: true, quoteValues })
}

export type InputCheckResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly errors: readonly FieldError[] }

/**
 * An operation's input (params, query and body, as a surface built it) checked as the API checks
 * a request: part by part in the API's order, the errors of the first part at fault, each at its
 * pointer from the part (`/body/title`). A part left out is empty (`{}`); so is an optional body.
 * A form, which shows what was typed, passes `quoteValues: false`.
 */
export function checkInput<T extends { params?: unknown; query?: unknown; body?: unknown }>(
  op: OperationSpec,
  input: T,
  options: { readonly quoteValues?: boolean } = {},
): InputCheckResult<T> {
  const schemas = inputSchemasOf(op)
  const checked: Record<string, unknown> = { ...input }
  for (const part of ['params', 'body', 'query'] as const) {
    const schema = schemas[part]
    if (!schema) continue
    const given = input[part] ?? (part === 'body' && !op.bodyOptional ? null : {})
    const result = partCheckOf(part, schema, options.quoteValues !== false)(given)
    if (!result.ok) return { ok: false, errors: result.errors.map(({ path, message }) => ({ path: `/${part}${path}`, message })) }
    checked[part] = result.value
  }
  return { ok: true, value: checked as T }
}
