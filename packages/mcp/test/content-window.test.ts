import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { windowOf } from '../src/index.ts'

const bytes = (text: string) => new TextEncoder().encode(text).length

/** Every window of a text from the start, following nextOffset. */
function walk(text: string, max: number): string[] {
  const windows: string[] = []
  let offset: number | null = 0
  while (offset !== null) {
    const window = windowOf(text, offset, max)
    if (!window.ok) throw new Error(window.error.message)
    expect(bytes(window.value.content)).toBeLessThanOrEqual(max)
    windows.push(window.value.content)
    offset = window.value.nextOffset
    if (windows.length > 10_000) throw new Error('no progress')
  }
  return windows
}

describe('content windows', () => {
  it('joined, reproduce the text exactly, and none splits a character', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 400 }), fc.integer({ min: 4, max: 64 }), (text, max) => {
        expect(walk(text, max).join('')).toBe(text)
      }),
    )
  })

  it('says truncated with the next offset, and nothing more at the end', () => {
    const text = 'é'.repeat(10) // 20 bytes
    const first = windowOf(text, 0, 7)
    expect(first.ok && first.value).toEqual({ content: 'ééé', offset: 0, truncated: true, nextOffset: 6 })
    const last = windowOf(text, 18, 7)
    expect(last.ok && last.value).toEqual({ content: 'é', offset: 18, truncated: false, nextOffset: null })
  })

  it('refuses an offset inside a character or past the end', () => {
    const inside = windowOf('é', 1, 10)
    expect(!inside.ok && inside.error.errors).toEqual([{ path: '/offset', message: 'must be the start of a character' }])
    const past = windowOf('abc', 4, 10)
    expect(!past.ok && past.error.code).toBe('validation_failed')
    const end = windowOf('abc', 3, 10)
    expect(end.ok && end.value).toEqual({ content: '', offset: 3, truncated: false, nextOffset: null })
  })
})
