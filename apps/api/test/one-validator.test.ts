import { illFormedText, inputSchemasOf, type OperationSpec, operationIds, operations, partCheckOf } from '@quire/core'
import { Ajv, type ErrorObject } from 'ajv'
import addFormats from 'ajv-formats'
import fc from 'fast-check'
import type { TSchema } from 'typebox'
import { describe, expect, it } from 'vitest'
import { arbitraryFor, mutated } from './schema-arbitrary.ts'

/**
 * The one validator (core/validation) answers every input exactly as the API's former validator
 * did: ajv (bodies strict, URL parts and headers coerced, defaults, every error, verbose) behind
 * core's text rule, read by the problem mapping into `{path, message}`. Inputs: per operation and
 * part, valid values, hostile ones, broken ones (fields dropped, added, retyped), and for each
 * field a fixed list of wrong, too long, ill-formed and coercible values.
 */

function reference(coerceTypes: boolean): Ajv {
  const ajv = new Ajv({ strict: false, allErrors: true, useDefaults: true, removeAdditional: false, verbose: true, coerceTypes })
  addFormats.default(ajv)
  return ajv
}
const bodyAjv = reference(false)
const stringAjv = reference(true)

function shown(data: unknown): string {
  if (typeof data === 'string' && data.length <= 120) return ` (got ${JSON.stringify(data)})`
  if (typeof data === 'number' || typeof data === 'boolean') return ` (got ${String(data)})`
  return ''
}

/** The former mapping (server/plugins/problem.ts) of one ajv error, the part's name left out. */
function formerError(issue: ErrorObject): { path: string; message: string } {
  if (issue.keyword === 'required') return { path: `${issue.instancePath}/${String(issue.params.missingProperty)}`, message: 'is required' }
  if (issue.keyword === 'additionalProperties')
    return { path: `${issue.instancePath}/${String(issue.params.additionalProperty)}`, message: 'is not an allowed field' }
  if (issue.keyword === 'enum' && Array.isArray(issue.params.allowedValues))
    return { path: issue.instancePath, message: `must be one of ${issue.params.allowedValues.join(', ')}${shown(issue.data)}` }
  if (issue.keyword === 'maxItems' && Array.isArray(issue.data))
    return { path: issue.instancePath, message: `${issue.message ?? 'has too many items'} (has ${issue.data.length})` }
  return { path: issue.instancePath, message: `${issue.message ?? 'is not valid'}${shown(issue.data)}` }
}

type Verdict = { ok: true; value: unknown } | { ok: false; errors: { path: string; message: string }[] }

const formerChecks = new Map<TSchema, (value: unknown) => Verdict>()

function formerCheckOf(part: string, schema: TSchema): (value: unknown) => Verdict {
  const known = formerChecks.get(schema)
  if (known) return known
  const validate = (part === 'body' ? bodyAjv : stringAjv).compile(schema as object)
  const check = (data: unknown): Verdict => {
    const text = illFormedText(data)
    if (text.length > 0) return { ok: false, errors: text.map(({ path, message }) => ({ path, message })) }
    // ajv coerces and defaults in place: through a holder, so that a root value is replaced too.
    const holder = { data }
    if (validate(data, { instancePath: '', parentData: holder, parentDataProperty: 'data', rootData: holder, dynamicAnchors: {} }))
      return { ok: true, value: holder.data }
    return { ok: false, errors: (validate.errors ?? []).map(formerError) }
  }
  formerChecks.set(schema, check)
  return check
}

const wrongValues: unknown[] = [
  0,
  1,
  -1,
  1.5,
  101,
  2147483648,
  '',
  'x',
  ' ',
  true,
  false,
  null,
  [],
  ['a', 'a'],
  {},
  { a: 1 },
  '\ud800',
  'a\u0000b',
  'é漢📝',
  'a@b.co',
  'not an email',
  '2024-02-30T00:00:00Z',
  '2024-01-01T00:00:00Z',
  '2024-01-01 00:00:00+01:00',
  'art_01jc0000000000000000000000',
  ['a@b.co', 'a@b.co'],
  ['a@b.co', 5, 'bad', null],
  ['artifacts:read', 'artifacts:read', 'nope'],
  Array.from({ length: 101 }, (_, i) => `u${i}@example.com`),
  { publicView: 'yes', publicEdit: 1, viewerEmails: 'a@b.co', extra: true },
  { publicView: true, viewerEmails: ['a@b.co', 'a@b.co'] },
]

/** Text as a URL part or a header arrives: numbers and booleans spelt out, oddly or not. */
const coercibleValues: string[] = [
  '5',
  '0',
  '-1',
  '1.5',
  '1.0',
  '101',
  '1e2',
  ' 5',
  '0x10',
  '-0',
  'true',
  'false',
  'TRUE',
  '1',
  'null',
  '50',
  '100',
  'Infinity',
  '-Infinity',
  '1e400',
  'NaN',
  '00',
  '+5',
]

function schemaProperties(schema: TSchema): Record<string, TSchema & { maxLength?: number; minLength?: number }> {
  return ((schema as { properties?: Record<string, TSchema> }).properties ?? {}) as Record<string, TSchema>
}

/** The inputs of one part of one operation. */
function inputsFor(part: string, schema: TSchema, seed: number): unknown[] {
  const valid = fc.sample(arbitraryFor(schema as never, { clean: true }), { numRuns: 25, seed })
  const hostile = fc.sample(arbitraryFor(schema as never), { numRuns: 25, seed: seed + 1 })
  const broken = fc.sample(mutated(arbitraryFor(schema as never)), { numRuns: 60, seed: seed + 2 })
  const inputs: unknown[] = [...valid, ...hostile, ...broken, null, [], 'x', 5, {}, { unexpected: 1 }]
  const base = (valid[0] ?? {}) as Record<string, unknown>
  const fields = schemaProperties(schema)
  const asText = part !== 'body'
  for (const sample of valid) {
    if (typeof sample !== 'object' || sample === null || Array.isArray(sample)) continue
    // URL parts and headers arrive as text: the valid values spelt out.
    if (asText) inputs.push(Object.fromEntries(Object.entries(sample).map(([k, v]) => [k, typeof v === 'object' ? v : String(v)])))
  }
  for (const [name, field] of Object.entries(fields)) {
    const without = { ...base }
    delete without[name]
    inputs.push(without, { ...base, [`${name}_extra`]: 'x' })
    const tooLong =
      field.maxLength === undefined ? [] : ['a'.repeat(field.maxLength + 1), 'é'.repeat(field.maxLength), '📝'.repeat(field.maxLength + 1)]
    const tooShort = field.minLength === undefined || field.minLength === 0 ? [] : ['a'.repeat(field.minLength - 1)]
    for (const value of [...wrongValues, ...tooLong, ...tooShort, ...(asText ? coercibleValues : [])])
      inputs.push({ ...base, [name]: value })
    // Two fields wrong at once: the order of the errors counts too.
    for (const [other] of Object.entries(fields)) if (other !== name) inputs.push({ ...base, [name]: 1.5, [other]: null, extra: 1 })
  }
  return inputs
}

/**
 * The one deliberate difference: ajv read the text `Infinity` as a number, refused by the field's
 * bound (`must be <= 100 (got Infinity)`); the one validator leaves it text, refused as not a number
 * (`must be integer (got "Infinity")`). Both refuse it (every number of a URL part has bounds).
 */
function isInfinityText(input: unknown): boolean {
  return (
    typeof input === 'object' &&
    input !== null &&
    Object.values(input).some((v) => typeof v === 'string' && /^\s*[+-]?Infinity\s*$|^1e400$/.test(v))
  )
}

describe('the one validator', () => {
  it('answers every input of every operation as the former REST validator did (verdict, value and errors)', () => {
    let compared = 0
    let infinities = 0
    const differences: unknown[] = []
    for (const [index, id] of operationIds.entries()) {
      const op: OperationSpec = operations[id]
      for (const [part, schema] of Object.entries(inputSchemasOf(op)) as [string, TSchema][]) {
        const former = formerCheckOf(part, schema)
        const check = partCheckOf(part as never, schema)
        for (const input of inputsFor(part, schema, 1000 + index * 10)) {
          const expected = former(structuredClone(input))
          const actual = check(structuredClone(input))
          compared++
          if (isInfinityText(input) && !expected.ok && !actual.ok) {
            infinities++
            continue
          }
          const same =
            expected.ok === actual.ok &&
            JSON.stringify(expected.ok ? expected.value : expected.errors) === JSON.stringify(actual.ok ? actual.value : actual.errors)
          if (!same && differences.length < 20) differences.push({ id, part, input, expected, actual })
        }
      }
    }
    console.info(`one validator: ${compared} inputs compared with the former REST validator (${infinities} refused by both in other words)`)
    expect(differences).toEqual([])
    expect(compared).toBeGreaterThan(10_000)
  })
})
