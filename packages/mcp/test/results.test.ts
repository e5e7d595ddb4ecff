/**
 * Tool results: the HTTP path writes them without parsing them again, so their JSON must be
 * exactly `JSON.stringify` of a result of the protocol's shape, for any answer an operation gives.
 */
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { failureResult } from '../src/index.ts'
import { resultJson, successResult } from '../src/results.ts'

const answers = fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 6 })

describe('resultJson', () => {
  it('writes a success exactly as JSON.stringify does, its text block the JSON of its structuredContent', () => {
    fc.assert(
      fc.property(answers, (structured) => {
        const result = successResult(structured)
        const written = resultJson(result)
        expect(written).toBe(JSON.stringify(result))
        const sent = JSON.parse(written) as { content: { text: string }[]; structuredContent: unknown }
        // Of the protocol's shape (zod's parse drops a `__proto__` member, so the values are compared on what was sent).
        expect(CallToolResultSchema.safeParse(sent).success).toBe(true)
        expect(sent.structuredContent).toEqual(JSON.parse(JSON.stringify(structured)))
        expect(JSON.parse(sent.content[0]?.text ?? '')).toEqual(sent.structuredContent)
      }),
      { numRuns: 2000 },
    )
  })

  it("writes a failure (and any result it did not make) as JSON.stringify does, of the protocol's shape", () => {
    const failure = failureResult({
      code: 'version_conflict',
      message: 'Version 3 is the latest.',
      meta: { latestVersion: 3, diff: '-a\n+b' },
    })
    expect(resultJson(failure)).toBe(JSON.stringify(failure))
    expect(CallToolResultSchema.parse(JSON.parse(resultJson(failure))).isError).toBe(true)
    const copy = { ...successResult({ a: 1 }) }
    expect(resultJson(copy)).toBe(JSON.stringify(copy))
  })
})
