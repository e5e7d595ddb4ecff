import { describe, expect, it } from 'vitest'
import { operationIds, operations, Problem } from '../src/contract/index.ts'

/**
 * Every field of every schema an operation takes or answers carries a `description`: MCP tools,
 * the OpenAPI document and the CLI's help all read them from these schemas, so a field without
 * one is a field an agent or a person has to guess.
 */

type Schema = Record<string, unknown>

/** Keywords whose value is one subschema or a list of them. */
const subschemaKeywords = [
  'items',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'anyOf',
  'oneOf',
  'allOf',
  'prefixItems',
]
/** Keywords whose value maps names to subschemas (`properties` is walked on its own). */
const schemaMapKeywords = ['patternProperties', '$defs', 'definitions']

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function token(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1')
}

/** JSON pointers (into `schema`) of the properties, at any depth, that have no non-empty description. */
export function undescribedProperties(schema: Schema, pointer = ''): string[] {
  const found: string[] = []
  const properties = schema.properties
  if (isSchema(properties)) {
    for (const [name, property] of Object.entries(properties)) {
      const at = `${pointer}/properties/${token(name)}`
      if (!isSchema(property)) continue
      const description = property.description
      if (typeof description !== 'string' || description.trim() === '') found.push(at)
      found.push(...undescribedProperties(property, at))
    }
  }
  for (const keyword of subschemaKeywords) {
    const value = schema[keyword]
    if (Array.isArray(value)) {
      for (const [i, item] of value.entries()) if (isSchema(item)) found.push(...undescribedProperties(item, `${pointer}/${keyword}/${i}`))
    } else if (isSchema(value)) found.push(...undescribedProperties(value, `${pointer}/${keyword}`))
  }
  for (const keyword of schemaMapKeywords) {
    const value = schema[keyword]
    if (!isSchema(value)) continue
    for (const [name, item] of Object.entries(value))
      if (isSchema(item)) found.push(...undescribedProperties(item, `${pointer}/${keyword}/${token(name)}`))
  }
  return found
}

/** Every schema reachable from the operation table, named by operation and part. */
function contractSchemas(): { where: string; schema: Schema }[] {
  const roots: { where: string; schema: Schema }[] = []
  for (const id of operationIds) {
    const op = operations[id]
    const parts: [string, unknown][] = [
      ['params', 'params' in op ? op.params : undefined],
      ['query', 'query' in op ? op.query : undefined],
      ['body', 'body' in op ? op.body : undefined],
      [`success ${op.success.status}`, op.success.schema],
    ]
    for (const [part, schema] of parts) if (isSchema(schema)) roots.push({ where: `${id} ${part}`, schema })
  }
  // Every operation answers its errors with problem details.
  roots.push({ where: 'every operation, error Problem', schema: Problem as unknown as Schema })
  return roots
}

describe('schema descriptions', () => {
  it('every property of every operation schema has a description', () => {
    const missing = contractSchemas().flatMap(({ where, schema }) => undescribedProperties(schema).map((pointer) => `${where} #${pointer}`))
    expect(missing, `properties without a description:\n${missing.join('\n')}`).toEqual([])
  })

  it('walks every part: params, query, body, success and the problem, nested objects, array items and unions', () => {
    const roots = contractSchemas()
    for (const part of ['params', 'query', 'body', 'success'])
      expect(
        roots.some((r) => r.where.includes(` ${part}`)),
        part,
      ).toBe(true)
    const nested = {
      type: 'object',
      properties: {
        described: { type: 'string', description: 'Yes.' },
        blank: { type: 'string', description: ' ' },
        list: {
          type: 'array',
          description: 'A list.',
          items: { type: 'object', properties: { inItem: { type: 'string' } } },
        },
        either: {
          description: 'One or none.',
          anyOf: [{ type: 'object', properties: { inUnion: { type: 'integer' } } }, { type: 'null' }],
        },
        'a/b': { type: 'object', properties: { deep: { type: 'object', description: 'D.', properties: { leaf: {} } } } },
      },
    }
    expect(undescribedProperties(nested)).toEqual([
      '/properties/blank',
      '/properties/list/items/properties/inItem',
      '/properties/either/anyOf/0/properties/inUnion',
      '/properties/a~1b',
      '/properties/a~1b/properties/deep/properties/leaf',
    ])
  })
})
