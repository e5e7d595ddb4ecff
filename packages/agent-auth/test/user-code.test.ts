import { describe, expect, it } from 'vitest'
import { normaliseUserCode } from '../src/index.ts'
import { displayUserCode, generateUserCode, userCodeAlphabet, userCodeLength } from '../src/user-code.ts'

describe('user codes', () => {
  it('use the 20 consonants of RFC 8628 §6.1, 8 of them', () => {
    expect(userCodeAlphabet).toBe('BCDFGHJKLMNPQRSTVWXZ')
    expect(new Set(userCodeAlphabet).size).toBe(20)
    expect(userCodeAlphabet).not.toMatch(/[AEIOUY0-9]/)
    expect(userCodeLength).toBe(8)
  })

  it('are generated in the normalised form, from the alphabet only', () => {
    for (let i = 0; i < 500; i++) {
      const code = generateUserCode()
      expect(code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{8}$/)
      expect(normaliseUserCode(code)).toBe(code)
    }
  })

  it('redraw bytes at or above 240 (no modulo bias)', () => {
    const draws = [new Uint8Array(16).fill(255), Uint8Array.from({ length: 16 }, (_, i) => (i % 2 === 0 ? 240 + i : i))]
    let call = 0
    const code = generateUserCode((buffer) => {
      buffer.set(draws[Math.min(call++, draws.length - 1)] as Uint8Array)
    })
    // Only the odd positions of the second draw (1, 3, 5 … 15) were below 240.
    expect(code).toBe([1, 3, 5, 7, 9, 11, 13, 15].map((i) => userCodeAlphabet[i % 20]).join(''))
    expect(call).toBe(2)
  })

  it('map the 240 accepted byte values evenly: each letter 12 times', () => {
    const counts = new Map<string, number>()
    let next = 0
    const sequential = (buffer: Uint8Array) => {
      for (let i = 0; i < buffer.length; i++) buffer[i] = next++ % 256
    }
    // 30 codes of 8 letters = 240 letters; the counter skips 240…255 on its way round.
    next = 0
    const letters: string[] = []
    while (letters.length < 240) letters.push(...generateUserCode(sequential))
    for (const letter of letters.slice(0, 240)) counts.set(letter, (counts.get(letter) ?? 0) + 1)
    expect([...counts.values()].every((n) => n === 12)).toBe(true)
    expect(counts.size).toBe(20)
  })

  it('are spread evenly by the real generator (within 6 standard deviations)', () => {
    const counts = new Map<string, number>()
    const codes = 20_000
    for (let i = 0; i < codes; i++) for (const letter of generateUserCode()) counts.set(letter, (counts.get(letter) ?? 0) + 1)
    const n = codes * userCodeLength
    const expected = n / 20
    const sigma = Math.sqrt(n * (1 / 20) * (19 / 20))
    expect(counts.size).toBe(20)
    for (const count of counts.values()) expect(Math.abs(count - expected)).toBeLessThan(6 * sigma)
  })

  it('are displayed as two groups of four', () => {
    expect(displayUserCode('BCDFGHJK')).toBe('BCDF-GHJK')
  })

  it('are normalised case-insensitively, ignoring hyphens and spaces', () => {
    for (const typed of ['BCDF-GHJK', 'bcdf-ghjk', 'bcdfghjk', ' BCDF GHJK ', 'Bc-Df-Gh-Jk', 'BCDF–GHJK', 'BCDF\tGHJK']) {
      expect(normaliseUserCode(typed)).toBe('BCDFGHJK')
    }
  })

  it('refuse what is not 8 letters of the alphabet', () => {
    for (const typed of [
      '',
      'BCDF-GHJ',
      'BCDF-GHJKL',
      'ABCD-EFGH',
      'BCDF-GHJ1',
      'BCDF_GHJK',
      'BCDF.GHJK',
      'ВCDF-GHJK',
      `${'-'.repeat(100)}BCDFGHJK`,
    ]) {
      expect(normaliseUserCode(typed)).toBeNull()
    }
  })
})
