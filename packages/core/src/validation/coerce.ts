import type { TSchema } from 'typebox'

/**
 * Path parameters, query strings and headers arrive as text; their schemas declare numbers and
 * booleans. This turns such text into the declared type, in place, by the rules the API has always
 * applied (`ajv`'s `coerceTypes`), which are narrower than TypeBox's `Value.Convert` (that one reads
 * `""` as 0, `"TRUE"` and `"1"` as true): a value keeps its text unless it reads exactly as the
 * type, and the schema's check then names it.
 */

type Coercion = (value: unknown) => { value: unknown } | null

/**
 * Text that reads as a finite number (as `+text` reads it; `""` does not). `"Infinity"` stays text,
 * refused as not a number: ajv made it a number, refused by the field's bound instead (the one
 * difference in wording from the former validator; every field of the contract has bounds).
 */
function numeric(value: unknown): value is string {
  return typeof value === 'string' && value !== '' && Number.isFinite(Number(value))
}

const coercions: Record<string, Coercion> = {
  number: (value) => (typeof value === 'boolean' || value === null || numeric(value) ? { value: Number(value) } : null),
  integer: (value) =>
    typeof value === 'boolean' || value === null || (numeric(value) && !(Number(value) % 1)) ? { value: Number(value) } : null,
  boolean: (value) =>
    value === 'false' || value === 0 || value === null ? { value: false } : value === 'true' || value === 1 ? { value: true } : null,
  string: (value) =>
    typeof value === 'number' || typeof value === 'boolean' ? { value: String(value) } : value === null ? { value: '' } : null,
  null: (value) => (value === '' || value === 0 || value === false ? { value: null } : null),
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'number':
      return typeof value === 'number'
    case 'integer':
      return typeof value === 'number' && !(value % 1) && !Number.isNaN(value)
    case 'null':
      return value === null
    case 'array':
      return Array.isArray(value)
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value)
    default:
      return typeof value === type
  }
}

/** One value turned into its schema's single declared scalar type, when it reads as one. */
function coerceValue(schema: TSchema, value: unknown): unknown {
  const type = (schema as { type?: unknown }).type
  if (typeof type !== 'string' || hasType(value, type)) return value
  const coerced = coercions[type]?.(value)
  return coerced ? coerced.value : value
}

/** The value with every field and item its schema types coerced (objects and arrays changed in place). */
export function coerce(schema: TSchema, value: unknown): unknown {
  const node = schema as { properties?: Record<string, TSchema>; items?: TSchema }
  if (Array.isArray(value) && node.items && typeof node.items === 'object') {
    for (let i = 0; i < value.length; i++) value[i] = coerce(node.items, value[i])
    return value
  }
  if (typeof value === 'object' && value !== null && node.properties) {
    const fields = value as Record<string, unknown>
    for (const [name, field] of Object.entries(node.properties)) if (fields[name] !== undefined) fields[name] = coerce(field, fields[name])
    return value
  }
  return coerceValue(schema, value)
}
