import { schemaMapKeywords, subschemaKeywords } from '@quire/core/contract'

/**
 * Which fields of a set of JSON Schemas have no description, at any depth. The contract's
 * schemas, the OpenAPI document and the MCP tool schemas are each checked with it
 * (packages/core/test/schema-descriptions.test.ts, apps/api/test/openapi.test.ts,
 * packages/mcp/test/tools.test.ts): a field without one is a field an agent or a person has to
 * guess.
 */

type Schema = Record<string, unknown>

/** A schema to check, and where it is (the start of the pointers found in it). */
export interface SchemaRoot {
  readonly at: string
  readonly schema: unknown
}

/** The schema a `$ref` names, or undefined when it names none. */
export type ResolveRef = (ref: string) => unknown

/** Map keywords other than `properties`, which is walked on its own: its members are the fields. */
const nestedMapKeywords = schemaMapKeywords.filter((keyword) => keyword !== 'properties')

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function token(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1')
}

function described(schema: Schema): boolean {
  return typeof schema.description === 'string' && schema.description.trim() !== ''
}

function noRefs(ref: string): never {
  throw new Error(`${ref}: these schemas have no $ref to follow`)
}

/**
 * The JSON pointers of the fields (object properties) that carry no non-empty `description`,
 * wherever they are: in nested objects, array items, the members of `anyOf`, `oneOf` and `allOf`,
 * and the schemas a `$ref` names. A field that is a `$ref` is described by its own description or
 * by the one of the schema it names. Each named schema is walked once, under its reference
 * (`#/components/schemas/AccessSwitches/properties/publicView`); a `$ref` that names nothing is
 * an error.
 */
export function undescribedFields(roots: readonly SchemaRoot[], resolve: ResolveRef = noRefs): string[] {
  const found: string[] = []
  const walked = new Set<string>()

  /** The schema a `$ref` names, walked the first time it is met. */
  const referred = (ref: string): Schema => {
    const target = resolve(ref)
    if (!isSchema(target)) throw new Error(`${ref} names no schema`)
    if (!walked.has(ref)) {
      walked.add(ref)
      walk(target, ref)
    }
    return target
  }

  const walk = (schema: Schema, at: string): void => {
    if (typeof schema.$ref === 'string') referred(schema.$ref)
    if (isSchema(schema.properties))
      for (const [name, field] of Object.entries(schema.properties)) {
        if (!isSchema(field)) continue
        const fieldAt = `${at}/properties/${token(name)}`
        const ok = described(field) || (typeof field.$ref === 'string' && described(referred(field.$ref)))
        if (!ok) found.push(fieldAt)
        walk(field, fieldAt)
      }
    for (const keyword of subschemaKeywords) {
      const value = schema[keyword]
      if (Array.isArray(value)) {
        for (const [i, item] of value.entries()) if (isSchema(item)) walk(item, `${at}/${keyword}/${i}`)
      } else if (isSchema(value)) walk(value, `${at}/${keyword}`)
    }
    for (const keyword of nestedMapKeywords) {
      const value = schema[keyword]
      if (!isSchema(value)) continue
      for (const [name, item] of Object.entries(value)) if (isSchema(item)) walk(item, `${at}/${keyword}/${token(name)}`)
    }
  }

  for (const { at, schema } of roots) {
    if (!isSchema(schema) || walked.has(at)) continue
    walked.add(at)
    walk(schema, at)
  }
  return [...new Set(found)]
}
