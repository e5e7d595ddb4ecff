import { describe, expect, it } from 'vitest'
import { capAtLine } from '../src/use-cases/read-versions.ts'

describe('capAtLine (the catch-up diff cap)', () => {
  it('keeps a text that fits, whole', () => {
    expect(capAtLine('a\nb\n', 4)).toEqual({ text: 'a\nb\n', bytes: 4, truncated: false })
    expect(capAtLine('', 0)).toEqual({ text: '', bytes: 0, truncated: false })
  })

  it('cuts at the last whole line that fits, counting bytes of UTF-8', () => {
    expect(capAtLine('aa\nbb\ncc\n', 7)).toEqual({ text: 'aa\nbb\n', bytes: 9, truncated: true })
    expect(capAtLine('aa\nbb\ncc\n', 6)).toEqual({ text: 'aa\nbb\n', bytes: 9, truncated: true })
    expect(capAtLine('aa\nbb\ncc\n', 5)).toEqual({ text: 'aa\n', bytes: 9, truncated: true })
    // 'é' is two bytes: the second line does not fit in 5 bytes.
    expect(capAtLine('é\néé\n', 5)).toEqual({ text: 'é\n', bytes: 8, truncated: true })
  })

  it('never splits a character or a line: a first line longer than the cap gives nothing', () => {
    expect(capAtLine('ééé\n', 3)).toEqual({ text: '', bytes: 7, truncated: true })
  })
})
