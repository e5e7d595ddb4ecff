import { describe, expect, it } from 'vitest'
import { undescribedFields } from '../src/schema-descriptions.ts'

describe('undescribedFields', () => {
  it('finds a field without a description in nested objects, array items and union members', () => {
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
        one: { description: 'One of.', oneOf: [{ type: 'object', properties: { inOneOf: { type: 'string' } } }] },
        all: { description: 'All of.', allOf: [{ type: 'object', properties: { inAllOf: { type: 'string' } } }] },
        'a/b': { type: 'object', properties: { deep: { type: 'object', description: 'D.', properties: { leaf: {} } } } },
      },
    }
    expect(undescribedFields([{ at: 'root #', schema: nested }])).toEqual([
      'root #/properties/blank',
      'root #/properties/list/items/properties/inItem',
      'root #/properties/either/anyOf/0/properties/inUnion',
      'root #/properties/one/oneOf/0/properties/inOneOf',
      'root #/properties/all/allOf/0/properties/inAllOf',
      'root #/properties/a~1b',
      'root #/properties/a~1b/properties/deep/properties/leaf',
    ])
  })

  it('follows each $ref once, names what it finds there by the reference, and takes a described target for a field', () => {
    const components: Record<string, unknown> = {
      Switches: { type: 'object', properties: { on: { type: 'boolean' }, named: { type: 'string', description: 'N.' } } },
      Who: { type: 'object', description: 'Someone.', properties: { id: { type: 'string', description: 'Id.' } } },
    }
    const resolve = (ref: string) => components[ref.replace('#/components/schemas/', '')]
    const roots = [
      {
        at: 'a #',
        schema: {
          type: 'object',
          properties: {
            // Described beside the reference, described by its target, neither.
            now: { $ref: '#/components/schemas/Switches', description: 'Now.' },
            by: { $ref: '#/components/schemas/Who' },
            bare: { $ref: '#/components/schemas/Switches' },
          },
        },
      },
      { at: 'b #', schema: { type: 'array', items: { $ref: '#/components/schemas/Switches' } } },
    ]
    expect(undescribedFields(roots, resolve)).toEqual(['#/components/schemas/Switches/properties/on', 'a #/properties/bare'])
    expect(() => undescribedFields([{ at: 'c #', schema: { $ref: '#/components/schemas/Nowhere' } }], resolve)).toThrow(
      '#/components/schemas/Nowhere names no schema',
    )
    expect(() => undescribedFields(roots)).toThrow('no $ref')
  })
})
