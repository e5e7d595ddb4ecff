import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { illFormedText } from '../src/contract/text.ts'

/** Strings made of a few code units, acceptable or not: NUL, a lone surrogate of either half, a pair. */
const text = fc.string({ unit: fc.constantFrom('a', '/', '~', 'é', '\u0000', '\ud83d', '\ude00', '😀'), maxLength: 6 })
const input = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, text, fc.integer(), fc.boolean(), fc.constant(null), tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.dictionary(text, tie('value'), { maxKeys: 4 }),
})).value

const good = (s: string) => !s.includes('\u0000') && s.isWellFormed()

/** Every defect by brute force: each string and field name, with the pointer of its place. */
function defects(value: unknown, path = ''): string[] {
  if (typeof value === 'string') return good(value) ? [] : [path]
  if (Array.isArray(value)) return value.flatMap((item, i) => defects(item, `${path}/${i}`))
  if (typeof value !== 'object' || value === null) return []
  // An object's bad field names first (each reported on the object), then its fields' values.
  const entries = Object.entries(value)
  return [
    ...entries.filter(([key]) => !good(key)).map(() => path),
    ...entries
      .filter(([key]) => good(key))
      .flatMap(([key, item]) => defects(item, `${path}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`)),
  ]
}

describe('illFormedText', () => {
  it('finds exactly the ill-formed strings and field names, each at its pointer, in order', () => {
    fc.assert(
      fc.property(input, (value) => {
        expect(illFormedText(value, 1000).map((issue) => issue.path)).toEqual(defects(value))
      }),
      { numRuns: 2000 },
    )
  })

  it('finds a defect deeper than any quick look, and says nothing of a deep value that has none', () => {
    let deep: unknown = 'fine'
    let bad: unknown = 'bad\u0000'
    for (let i = 0; i < 100; i++) {
      deep = { a: [deep] }
      bad = { a: [bad] }
    }
    expect(illFormedText(deep)).toEqual([])
    expect(illFormedText(bad)).toEqual([
      { path: '/a/0'.repeat(100), message: 'must be well-formed text: it contains NUL (U+0000) at index 3' },
    ])
  })

  it('walks a value built in code with a cycle once', () => {
    const looped: Record<string, unknown> = { name: 'ok' }
    looped.self = looped
    expect(illFormedText(looped)).toEqual([])
    looped.other = '\ud800'
    expect(illFormedText(looped)).toEqual([
      { path: '/other', message: 'must be well-formed text: it contains a lone surrogate (U+D800) at index 0' },
    ])
  })
})
