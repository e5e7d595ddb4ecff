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

describe('failureResult', () => {
  it('names the free slugs a refusal offers, in the text and in the error', () => {
    const taken = failureResult({
      code: 'slug_taken',
      message: 'A project `notes` already exists under `ada`.',
      meta: { suggestions: ['notes-2', 'notes-3'] },
    })
    const [text, json] = taken.content as { text: string }[]
    expect(text?.text).toContain(
      'Choose another slug (check_project_slug_availability tells which project slugs are free; create_artifact with `dryRun: true` checks an artifact slug, writing nothing). Free slugs instead: `notes-2`, `notes-3`.',
    )
    expect(JSON.parse(json?.text ?? '')).toMatchObject({ error: { code: 'slug_taken', suggestions: ['notes-2', 'notes-3'] } })
    const reserved = failureResult({
      code: 'validation_failed',
      message: 'The project slug `x` is reserved.',
      errors: [{ path: '/body/slug', message: 'is reserved' }],
      meta: { suggestions: ['x-2'] },
    })
    expect((reserved.content as { text: string }[])[0]?.text).toContain('call the tool again. Free slugs instead: `x-2`.')
    // An artifact's taken slug (create_artifact, or its dry run) names them the same way.
    const artifact = failureResult({
      code: 'slug_taken',
      message: 'An artifact `plan` already exists in `ada/notes`.',
      meta: { suggestions: ['launch-plan', 'plan-2'] },
    })
    expect((artifact.content as { text: string }[])[0]?.text).toMatch(/ada\/notes`\.\n\n.*Free slugs instead: `launch-plan`, `plan-2`\.$/)
    const none = failureResult({ code: 'slug_taken', message: 'Taken.', meta: { suggestions: [] } })
    expect((none.content as { text: string }[])[0]?.text).not.toContain('Free slugs')
  })
})
