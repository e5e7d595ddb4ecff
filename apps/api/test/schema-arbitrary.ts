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
 * Characters that have broken services: NUL and other controls, lone surrogates (both halves, at
 * the ends of the range), odd whitespace and invisible marks, non-ASCII letters and symbols (one
 * astral), and URL, path and quoting syntax.
 */
export const nastyCharacters = [
  '\u0000',
  '\ud800',
  '\udbff',
  '\udc00',
  '\udfff',
  '\u0001',
  '\u0008',
  '\u001b',
  '\u007f',
  '\u0085',
  '\u00a0',
  '\u2028',
  '\u202e',
  '\ufeff',
  '\ufffd',
  '\uffff',
  '\u3002',
  'é',
  'ß',
  '漢',
  '📝',
  '\u{10ffff}',
  '\t',
  '\n',
  '\r',
  ' ',
  '"',
  "'",
  '<',
  '%',
  '\\',
  '/',
  '?',
  '#',
  '&',
  '=',
  '+',
  '..',
]

/** One unit of text: mostly printable graphemes, sometimes a nasty character or any UTF-16 code unit (a lone surrogate now and then). */
const nastyUnit = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: fc.constantFrom(...nastyCharacters) },
  { weight: 1, arbitrary: fc.nat(0xffff).map((unit) => String.fromCharCode(unit)) },
)

/** How long the "very long" strings get where the schema sets no bound (content). */
const unboundedLong = [5_000, 100_000]

/**
 * Text for a free string field: with `clean`, well-formed printable text (non-ASCII included)
 * within the bounds, which a service must accept; otherwise also NUL, lone surrogates, control
 * characters and odd Unicode, and very long strings (at, just past and far past the bound).
 */
export function textArbitrary(options: { minLength?: number; maxLength?: number; clean?: boolean } = {}): fc.Arbitrary<string> {
  const minLength = options.minLength ?? 0
  const short = Math.max(minLength, Math.min(options.maxLength ?? 40, 40))
  const clean = fc.string({ unit: 'grapheme', minLength, maxLength: short })
  if (options.clean) return clean
  const lengths = options.maxLength === undefined ? unboundedLong : [options.maxLength, options.maxLength + 1, options.maxLength * 4]
  const long = fc
    .tuple(
      fc.constantFrom('a', 'é', '📝', ' ', '\u0000', '\ud800'),
      fc.constantFrom(...lengths),
      fc.constantFrom('', '\u0000', '\udfff', '\u0007'),
    )
    .map(([unit, length, tail]) => unit.repeat(Math.max(0, length - tail.length)) + tail)
  return fc.oneof(
    { weight: 2, arbitrary: clean },
    { weight: 4, arbitrary: fc.string({ unit: nastyUnit, minLength, maxLength: short }) },
    { weight: 1, arbitrary: long },
  )
}

/** Patterns that only exclude characters (`^[^…]*$`): free text, not a grammar to generate from. */
function isExclusionPattern(pattern: string): boolean {
  return /^\^\[\^[^\]]*\][*+]\$$/.test(pattern)
}

export interface ArbitraryOptions {
  /** Only values a service must accept as text (well-formed, within bounds); shapes are still random. */
  readonly clean?: boolean
  /** Values to prefer for a property of this name, at any depth (real ids and names of the test's world). */
  readonly overrides?: Readonly<Record<string, fc.Arbitrary<unknown>>>
  /** Integers also at their bounds and just past them (`maximum` 2147483647, then 2147483648). */
  readonly boundaries?: boolean
}

/** An integer's bounds and the values just past them. */
export function integerBoundaries(schema: Pick<Schema, 'minimum' | 'maximum'>): number[] {
  return [
    ...(schema.minimum === undefined ? [] : [schema.minimum - 1, schema.minimum]),
    ...(schema.maximum === undefined ? [] : [schema.maximum, schema.maximum + 1]),
  ]
}

/**
 * A fast-check arbitrary producing values that satisfy a JSON Schema (for the constructs the
 * contract uses), except that free text also carries ill-formed and hostile strings unless `clean`.
 */
export function arbitraryFor(schema: Schema, options: ArbitraryOptions = {}): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const)
  if (schema.enum) return fc.constantFrom(...schema.enum)
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((s) => arbitraryFor(s, options)))
  const hostile = options.clean ? null : textArbitrary({ maxLength: schema.maxLength ?? 64 })
  const orHostile = (valid: fc.Arbitrary<unknown>) =>
    hostile ? fc.oneof({ weight: 4, arbitrary: valid }, { weight: 1, arbitrary: hostile }) : valid
  switch (schema.type) {
    case 'object': {
      const props = schema.properties ?? {}
      const required = new Set(schema.required ?? [])
      const record: Record<string, fc.Arbitrary<unknown>> = {}
      for (const [k, v] of Object.entries(props)) {
        const own = arbitraryFor(v, options)
        const preferred = options.overrides?.[k]
        record[k] = preferred ? fc.oneof({ weight: 3, arbitrary: preferred }, { weight: 1, arbitrary: own }) : own
      }
      return fc.record(record, { requiredKeys: [...required].filter((k) => k in props) })
    }
    case 'array':
      return fc.array(arbitraryFor(schema.items ?? {}, options), { maxLength: Math.min(schema.maxItems ?? 5, 5) })
    case 'integer': {
      const inRange = fc.integer({ min: schema.minimum ?? -1000, max: Math.min(schema.maximum ?? 1000, 1000) })
      const edges = options.boundaries ? integerBoundaries(schema) : []
      return edges.length === 0 ? inRange : fc.oneof({ weight: 2, arbitrary: inRange }, { weight: 1, arbitrary: fc.constantFrom(...edges) })
    }
    case 'number':
      return fc.double({ noNaN: true })
    case 'boolean':
      return fc.boolean()
    case 'null':
      return fc.constant(null)
    case 'string': {
      if (schema.format === 'email') return orHostile(fc.emailAddress())
      if (schema.format === 'date-time') return orHostile(fc.date({ noInvalidDate: true }).map((d) => d.toISOString()))
      if (schema.pattern && !isExclusionPattern(schema.pattern)) return orHostile(fc.stringMatching(new RegExp(schema.pattern)))
      return textArbitrary({
        ...(schema.minLength === undefined ? {} : { minLength: schema.minLength }),
        ...(schema.maxLength === undefined ? {} : { maxLength: schema.maxLength }),
        ...(options.clean ? { clean: true } : {}),
      })
    }
    default:
      return fc.jsonValue({ maxDepth: 2 })
  }
}

/** Breaks a valid value: drop a field, add an unknown one (its name hostile text too), or put a wrong type somewhere. */
export function mutated(value: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc
    .tuple(value, fc.nat(), fc.jsonValue({ maxDepth: 2 }), fc.constantFrom('drop', 'extra', 'retype', 'replace', 'name'), textArbitrary())
    .map(([v, n, junk, how, text]) => {
      if (how === 'replace' || v === null || typeof v !== 'object' || Array.isArray(v)) return junk
      const copy = { ...(v as Record<string, unknown>) }
      const keys = Object.keys(copy)
      const key = keys.length > 0 ? keys[n % keys.length] : undefined
      if (how === 'drop' && key !== undefined) delete copy[key]
      else if (how === 'retype' && key !== undefined) copy[key] = junk
      else if (how === 'name') copy[text.slice(0, 50)] = junk
      else copy[`unexpected_${n % 7}`] = junk
      return copy
    })
}
