import fc from 'fast-check'

/** The subset of JSON Schema our TypeBox contract uses. */
interface Schema {
  type?: string
  properties?: Record<string, Schema>
  required?: string[]
  items?: Schema
  anyOf?: Schema[]
  enum?: unknown[]
  const?: unknown
  pattern?: string
  format?: string
  minLength?: number
  maxLength?: number
  minimum?: number
  maximum?: number
  maxItems?: number
}

/**
 * A fast-check arbitrary producing values that satisfy a JSON Schema (for the constructs the
 * contract uses). Strings stay short so a run explores shapes, not sizes.
 */
export function arbitraryFor(schema: Schema): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const)
  if (schema.enum) return fc.constantFrom(...schema.enum)
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map(arbitraryFor))
  switch (schema.type) {
    case 'object': {
      const props = schema.properties ?? {}
      const required = new Set(schema.required ?? [])
      const record: Record<string, fc.Arbitrary<unknown>> = {}
      for (const [k, v] of Object.entries(props)) record[k] = arbitraryFor(v)
      return fc.record(record, { requiredKeys: [...required].filter((k) => k in props) })
    }
    case 'array':
      return fc.array(arbitraryFor(schema.items ?? {}), { maxLength: Math.min(schema.maxItems ?? 5, 5) })
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1000, max: Math.min(schema.maximum ?? 1000, 1000) })
    case 'number':
      return fc.double({ noNaN: true })
    case 'boolean':
      return fc.boolean()
    case 'null':
      return fc.constant(null)
    case 'string': {
      if (schema.format === 'email') return fc.emailAddress()
      if (schema.format === 'date-time') return fc.date({ noInvalidDate: true }).map((d) => d.toISOString())
      if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern))
      return fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 40, 40) })
    }
    default:
      return fc.jsonValue({ maxDepth: 2 })
  }
}

/** Breaks a valid value: drop a field, add an unknown one, or put a wrong type somewhere. */
export function mutated(value: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc
    .tuple(value, fc.nat(), fc.jsonValue({ maxDepth: 2 }), fc.constantFrom('drop', 'extra', 'retype', 'replace'))
    .map(([v, n, junk, how]) => {
      if (how === 'replace' || v === null || typeof v !== 'object' || Array.isArray(v)) return junk
      const copy = { ...(v as Record<string, unknown>) }
      const keys = Object.keys(copy)
      const key = keys.length > 0 ? keys[n % keys.length] : undefined
      if (how === 'drop' && key !== undefined) delete copy[key]
      else if (how === 'retype' && key !== undefined) copy[key] = junk
      else copy[`unexpected_${n % 7}`] = junk
      return copy
    })
}
