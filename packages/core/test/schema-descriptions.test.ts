import { type SchemaRoot, undescribedFields } from '@quire/testing/schema-descriptions'
import { describe, expect, it } from 'vitest'
import { operationIds, operations, Problem } from '../src/contract/index.ts'

/**
 * Every field of every schema an operation takes or answers carries a `description`: MCP tools,
 * the OpenAPI document and the CLI's help all read them from these schemas, so a field without
 * one is a field an agent or a person has to guess.
 */

/** Every schema reachable from the operation table, named by operation and part. */
function contractSchemas(): SchemaRoot[] {
  const roots: SchemaRoot[] = []
  for (const id of operationIds) {
    const op = operations[id]
    const parts: [string, unknown][] = [
      ['params', 'params' in op ? op.params : undefined],
      ['query', 'query' in op ? op.query : undefined],
      ['body', 'body' in op ? op.body : undefined],
      [`success ${op.success.status}`, op.success.schema],
      ['dryRun', 'dryRun' in op ? op.dryRun.schema : undefined],
    ]
    for (const [part, schema] of parts) if (schema !== undefined) roots.push({ at: `${id} ${part} #`, schema })
  }
  // Every operation answers its errors with problem details.
  roots.push({ at: 'every operation, error Problem #', schema: Problem })
  return roots
}

describe('schema descriptions', () => {
  it('every field of every operation schema has a description, at any depth', () => {
    const missing = undescribedFields(contractSchemas())
    expect(missing, `fields without a description:\n${missing.join('\n')}`).toEqual([])
  })

  it('walks every part: params, query, body, success, the dry run and the problem', () => {
    const roots = contractSchemas()
    for (const part of ['params', 'query', 'body', 'success', 'dryRun', 'Problem'])
      expect(
        roots.some((r) => r.at.includes(` ${part}`)),
        part,
      ).toBe(true)
  })
})
