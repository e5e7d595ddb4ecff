/**
 * Where a JSON Schema (2020-12, as TypeBox writes it and OpenAPI 3.1 takes it) holds other
 * schemas: what every walk over the contract's schemas follows (the OpenAPI document's components,
 * the tests that every field is described).
 */

/** Keywords whose value is one subschema or a list of them. */
export const subschemaKeywords: readonly string[] = [
  'items',
  'prefixItems',
  'additionalItems',
  'additionalProperties',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'allOf',
  'anyOf',
  'oneOf',
]

/** Keywords whose value maps names (data, not keywords) to subschemas; `properties` maps the fields. */
export const schemaMapKeywords: readonly string[] = ['properties', 'patternProperties', 'dependentSchemas', '$defs', 'definitions']
