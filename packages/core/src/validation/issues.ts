import type { TSchema } from 'typebox'
import type { TLocalizedValidationError } from 'typebox/error'
import type { FieldError } from '../contract/errors.ts'

/**
 * The one place a schema's complaints become field errors: a JSON pointer into the checked value
 * and a message read after the field's name, in the API's wording (`must NOT have more than 100
 * characters (got "…")`, `is required`, `is not an allowed field`, `must be one of a, b`), in the
 * order the API has always listed them (each schema's keywords in `ajv`'s order: the type, then
 * `const`/`enum`/`anyOf`, then the keywords of numbers, strings, arrays and objects; an object's
 * `required` and unknown fields before its fields, an array's size before its items, its items before `uniqueItems`).
 */

/** One field error (the contract's `FieldError`): where (RFC 6901 pointer, `''` is the value itself) and what is wrong. */
export type { FieldError }

type Node = Record<string, unknown>

/** Each keyword's place among a schema's checks. */
const rank: Readonly<Record<string, number>> = {
  const: 1,
  enum: 2,
  not: 3,
  anyOf: 4,
  oneOf: 5,
  allOf: 6,
  if: 7,
  maximum: 10,
  minimum: 11,
  exclusiveMaximum: 12,
  exclusiveMinimum: 13,
  multipleOf: 14,
  maxLength: 20,
  minLength: 21,
  pattern: 22,
  format: 23,
  maxItems: 30,
  minItems: 31,
  // The item keywords come before `uniqueItems` (ajv's `before`).
  prefixItems: 32,
  items: 33,
  contains: 34,
  uniqueItems: 35,
  maxProperties: 40,
  minProperties: 41,
  required: 42,
  propertyNames: 43,
  additionalProperties: 44,
  dependencies: 45,
  properties: 46,
  patternProperties: 47,
}

/** The first rank of each typed group of keywords. */
const groupOf: Readonly<Record<string, number>> = { number: 10, string: 20, array: 30, object: 40 }

function typesOf(node: Node): string[] {
  return typeof node.type === 'string' ? [node.type] : Array.isArray(node.type) ? (node.type as string[]) : []
}

const coercible = new Set(['string', 'number', 'integer', 'boolean', 'null'])

/**
 * Where a type error stands: first, unless the schema has one type, keywords of that type and no
 * coercion to try, when it comes after `const`/`enum`/`anyOf`, where that type's keywords would be.
 */
function typeRank(node: Node, coercing: boolean): number {
  const types = typesOf(node)
  const [only] = types
  if (types.length !== 1 || only === undefined || (coercing && coercible.has(only))) return 0
  const group = groupOf[only]
  if (group === undefined) return 0
  const ownKeywords = Object.keys(node).some((keyword) => {
    const place = rank[keyword]
    return place !== undefined && place >= group && place < group + 10
  })
  return ownKeywords ? group - 0.5 : 0
}

function unescapeToken(token: string): string {
  return token.replaceAll('~1', '/').replaceAll('~0', '~')
}

function tokens(pointer: string): string[] {
  return pointer === '' || pointer === '#' ? [] : pointer.replace(/^#/, '').slice(1).split('/').map(unescapeToken)
}

/** The place of an error in the API's order, and the schema it is about. */
function placeOf(root: TSchema, error: TLocalizedValidationError, coercing: boolean): { key: number[]; node: Node } {
  const steps = tokens(error.schemaPath)
  const fields = tokens(error.instancePath)
  let node = root as Node
  let field = 0
  const key: number[] = []
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i] as string
    if (step === 'properties') {
      const name = steps[++i] as string
      const properties = (node.properties ?? {}) as Record<string, Node>
      key.push(rank.properties as number, Object.keys(properties).indexOf(name))
      node = properties[name] ?? {}
      field++
    } else if (step === 'items') {
      key.push(rank.items as number, Number(fields[field++]))
      node = (node.items ?? {}) as Node
    } else if (step === 'anyOf' || step === 'oneOf' || step === 'allOf') {
      const index = Number(steps[++i])
      key.push(rank[step] as number, index)
      node = ((node[step] as Node[] | undefined)?.[index] ?? {}) as Node
    } else if (step === 'additionalProperties') {
      key.push(rank.additionalProperties as number, 0)
      node = (typeof node.additionalProperties === 'object' ? node.additionalProperties : {}) as Node
      field++
    } else key.push(99)
  }
  const keyword = error.keyword
  if (keyword === 'type') key.push(typeRank(node, coercing))
  else if (keyword === 'anyOf' || keyword === 'oneOf') key.push(rank[keyword] as number, Number.POSITIVE_INFINITY)
  else key.push(rank[keyword] ?? 98)
  return { key, node }
}

function compareKeys(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return (a[i] as number) - (b[i] as number)
  return a.length - b.length
}

/** The value at a pointer of the checked value. */
function valueAt(value: unknown, pointer: string): unknown {
  let here = value
  for (const token of tokens(pointer)) {
    if (typeof here !== 'object' || here === null) return undefined
    here = (here as Record<string, unknown>)[token]
  }
  return here
}

/** The offending value, quoted, when it is short enough to repeat back. */
function shown(data: unknown): string {
  if (typeof data === 'string' && data.length <= 120) return ` (got ${JSON.stringify(data)})`
  if (typeof data === 'number' || typeof data === 'boolean') return ` (got ${String(data)})`
  return ''
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return Number.isNaN(a) && Number.isNaN(b)
  if (Array.isArray(a) !== Array.isArray(b)) return false
  const keys = Object.keys(a)
  if (keys.length !== Object.keys(b).length) return false
  return keys.every((k) => Object.hasOwn(b, k) && deepEqual((a as Node)[k], (b as Node)[k]))
}

/** Which two items are the same, named as the API names them (scanning from the end). */
function duplicatePair(node: Node, items: readonly unknown[]): { i: number; j: number } | null {
  const itemTypes = typeof node.items === 'object' && node.items !== null ? typesOf(node.items as Node) : []
  if (itemTypes.length > 0 && !itemTypes.some((t) => t === 'object' || t === 'array')) {
    const seen = new Map<unknown, number>()
    for (let i = items.length - 1; i >= 0; i--) {
      const item = items[i]
      if (!itemTypes.some((t) => (t === 'integer' ? Number.isInteger(item) : typeof item === t))) continue
      const before = seen.get(item)
      if (before !== undefined) return { i, j: before }
      seen.set(item, i)
    }
    return null
  }
  for (let i = items.length - 1; i >= 0; i--) for (let j = i - 1; j >= 0; j--) if (deepEqual(items[i], items[j])) return { i, j }
  return null
}

function limitOf(error: TLocalizedValidationError, node: Node): unknown {
  return (error.params as { limit?: unknown }).limit ?? node[error.keyword]
}

/** The API's message for one complaint about `data`. */
function messageOf(error: TLocalizedValidationError, node: Node, data: unknown): string {
  const params = error.params as Record<string, unknown>
  switch (error.keyword) {
    case 'type':
      return `must be ${typesOf(node).join(',') || String(params.type)}${shown(data)}`
    case 'const':
      return `must be equal to constant${shown(data)}`
    case 'enum': {
      const allowed = (params.allowedValues ?? node.enum) as unknown[]
      return `must be one of ${allowed.join(', ')}${shown(data)}`
    }
    case 'anyOf':
      return `must match a schema in anyOf${shown(data)}`
    case 'oneOf':
      return `must match exactly one schema in oneOf${shown(data)}`
    case 'maxLength':
      return `must NOT have more than ${limitOf(error, node)} characters${shown(data)}`
    case 'minLength':
      return `must NOT have fewer than ${limitOf(error, node)} characters${shown(data)}`
    case 'pattern':
      return `must match pattern "${String(node.pattern)}"${shown(data)}`
    case 'format':
      return `must match format "${String(node.format)}"${shown(data)}`
    case 'maximum':
      return `must be <= ${limitOf(error, node)}${shown(data)}`
    case 'minimum':
      return `must be >= ${limitOf(error, node)}${shown(data)}`
    case 'exclusiveMaximum':
      return `must be < ${limitOf(error, node)}${shown(data)}`
    case 'exclusiveMinimum':
      return `must be > ${limitOf(error, node)}${shown(data)}`
    case 'multipleOf':
      return `must be multiple of ${String(node.multipleOf)}${shown(data)}`
    case 'maxItems':
      return `must NOT have more than ${limitOf(error, node)} items${Array.isArray(data) ? ` (has ${data.length})` : ''}`
    case 'minItems':
      return `must NOT have fewer than ${limitOf(error, node)} items`
    case 'maxProperties':
      return `must NOT have more than ${limitOf(error, node)} properties`
    case 'minProperties':
      return `must NOT have fewer than ${limitOf(error, node)} properties`
    case 'uniqueItems': {
      const pair = Array.isArray(data) ? duplicatePair(node, data) : null
      return pair ? `must NOT have duplicate items (items ## ${pair.j} and ${pair.i} are identical)` : 'must NOT have duplicate items'
    }
    default:
      return `${error.message}${shown(data)}`
  }
}

/**
 * A schema's complaints about a value (TypeBox's, all of them) as field errors, in the API's order
 * and wording (the offending value repeated back unless `quoting` is false): one per missing field (`is required`) and per unknown field (`is not an allowed
 * field`), at the field's own pointer.
 */
export function fieldErrorsOf(
  root: TSchema,
  value: unknown,
  errors: readonly TLocalizedValidationError[],
  coercing: boolean,
  quoting = true,
): FieldError[] {
  const placed = errors
    // An unknown field shows twice (the `false` schema, and the object's keyword): once is enough.
    .filter((error) => error.keyword !== 'boolean')
    .map((error, order) => ({ error, order, ...placeOf(root, error, coercing) }))
    .sort((a, b) => compareKeys(a.key, b.key) || a.order - b.order)
  const found: FieldError[] = []
  for (const { error, node } of placed) {
    const at = error.instancePath
    const params = error.params as Record<string, unknown>
    if (error.keyword === 'required') {
      for (const name of params.requiredProperties as string[]) found.push({ path: `${at}/${name}`, message: 'is required' })
    } else if (error.keyword === 'additionalProperties') {
      for (const name of params.additionalProperties as string[]) found.push({ path: `${at}/${name}`, message: 'is not an allowed field' })
    } else {
      // Without quoting, no value is repeated back (an array's size still is).
      const data = valueAt(value, at)
      found.push({ path: at, message: messageOf(error, node, quoting || Array.isArray(data) ? data : undefined) })
    }
  }
  return found
}

/** One error a field, the first said of it (for a form or a tool's caller, who fix one thing a field). */
export function firstPerField(errors: readonly FieldError[]): FieldError[] {
  const found = new Map<string, string>()
  for (const { path, message } of errors) if (!found.has(path)) found.set(path, message)
  return [...found].map(([path, message]) => ({ path, message }))
}
