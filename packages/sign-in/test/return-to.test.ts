import { describe, expect, it } from 'vitest'
import { safeReturnTo } from '../src/return-to.ts'

describe('return_to', () => {
  it.each([
    ['/', '/'],
    ['/projects/notes?tab=history#top', '/projects/notes?tab=history#top'],
    ['/a/b', '/a/b'],
  ])('keeps the same-origin path %s', (value, expected) => {
    expect(safeReturnTo(value)).toBe(expected)
  })

  it.each([
    'https://evil.example',
    '//evil.example',
    '/\\evil.example',
    '\\\\evil.example',
    'javascript:alert(1)',
    '/\t/evil.example',
    '/\n/evil.example',
    'evil.example',
    '',
    `/${'a'.repeat(3000)}`,
  ])('replaces %j with /', (value) => {
    expect(safeReturnTo(value)).toBe('/')
  })

  it('replaces anything that is not one string with /', () => {
    expect(safeReturnTo(['/a', '/b'])).toBe('/')
    expect(safeReturnTo(undefined)).toBe('/')
  })
})
