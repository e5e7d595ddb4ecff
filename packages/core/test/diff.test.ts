import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { threadCpuMs } from '@quire/testing/cpu-time'
import { applyPatch, diffLines, parsePatch } from 'diff'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { unifiedDiff } from '../src/diff/unified-diff.ts'

interface Line {
  text: string
  eol: '\n' | '\r\n'
}

interface Doc {
  lines: Line[]
  finalNewline: boolean
}

type Edit =
  | { kind: 'insert'; at: number; line: Line }
  | { kind: 'delete'; at: number }
  | { kind: 'modify'; at: number; line: Line }
  | { kind: 'move'; at: number; length: number; to: number }
  | { kind: 'toggle-crlf'; at: number }
  | { kind: 'toggle-final-newline' }

function render(doc: Doc): string {
  const text = doc.lines.map((line) => line.text + line.eol).join('')
  const last = doc.lines.at(-1)
  return last && !doc.finalNewline ? text.slice(0, -last.eol.length) : text
}

function applyEdits(doc: Doc, edits: readonly Edit[]): Doc {
  const lines = [...doc.lines]
  let finalNewline = doc.finalNewline
  for (const edit of edits) {
    if (edit.kind === 'toggle-final-newline') {
      finalNewline = !finalNewline
      continue
    }
    if (edit.kind === 'insert') {
      lines.splice(edit.at % (lines.length + 1), 0, edit.line)
      continue
    }
    if (lines.length === 0) continue
    const at = edit.at % lines.length
    const line = lines[at] as Line
    if (edit.kind === 'delete') lines.splice(at, 1)
    else if (edit.kind === 'modify') lines[at] = edit.line
    else if (edit.kind === 'toggle-crlf') lines[at] = { text: line.text, eol: line.eol === '\n' ? '\r\n' : '\n' }
    else {
      const moved = lines.splice(at, edit.length)
      lines.splice(edit.to % (lines.length + 1), 0, ...moved)
    }
  }
  return { lines, finalNewline }
}

const tinyText = fc.constantFrom('a', 'b', 'c', '', ' ')
const trickyText = fc.constantFrom('-', '+', ' ', '\\', '\\ No newline at end of file', '@@ -1 +1 @@', '--- a', '+++ b', 'x\r', '\r')
const wordText = fc.string({ unit: fc.constantFrom('x', 'y', 'z', ' ', '\t', '\r', 'é', '-', '+', '@'), maxLength: 8 })

function lineOf(text: fc.Arbitrary<string>): fc.Arbitrary<Line> {
  return fc.record({ text, eol: fc.constantFrom<Line['eol']>('\n', '\n', '\n', '\r\n') })
}

function docOf(line: fc.Arbitrary<Line>, maxLength: number): fc.Arbitrary<Doc> {
  return fc.record({ lines: fc.array(line, { maxLength, size: 'max' }), finalNewline: fc.boolean() })
}

function editOf(line: fc.Arbitrary<Line>): fc.Arbitrary<Edit> {
  const at = fc.nat({ max: 10_000 })
  return fc.oneof(
    fc.record({ kind: fc.constant('insert' as const), at, line }),
    fc.record({ kind: fc.constant('delete' as const), at }),
    fc.record({ kind: fc.constant('modify' as const), at, line }),
    fc.record({ kind: fc.constant('move' as const), at, length: fc.integer({ min: 1, max: 6 }), to: at }),
    fc.record({ kind: fc.constant('toggle-crlf' as const), at }),
    fc.constant({ kind: 'toggle-final-newline' as const }),
  )
}

/** A document and an edited copy of it, as texts. */
function editedPair(line: fc.Arbitrary<Line>, maxLines: number, maxEdits: number): fc.Arbitrary<[string, string]> {
  return fc
    .tuple(docOf(line, maxLines), fc.array(editOf(line), { maxLength: maxEdits, size: 'max' }))
    .map(([doc, edits]): [string, string] => [render(doc), render(applyEdits(doc, edits))])
}

const mixedLine = lineOf(fc.oneof(tinyText, trickyText, wordText))
const smallPairs = fc.oneof(
  editedPair(mixedLine, 30, 8),
  editedPair(lineOf(tinyText), 30, 8),
  fc.tuple(docOf(mixedLine, 12), docOf(mixedLine, 12)).map(([a, b]): [string, string] => [render(a), render(b)]),
)

/** Counts the `+` and `-` lines of a patch's hunks. */
function countChangedLines(text: string): { additions: number; deletions: number } {
  let additions = 0
  let deletions = 0
  for (const hunk of parsePatch(text)[0]?.hunks ?? []) {
    for (const line of hunk.lines) {
      if (line.startsWith('+')) additions++
      else if (line.startsWith('-')) deletions++
    }
  }
  return { additions, deletions }
}

function minimalEditCount(from: string, to: string): number {
  let count = 0
  for (const change of diffLines(from, to)) if (change.added || change.removed) count += change.count
  return count
}

function expectRoundTrip(from: string, to: string): void {
  const result = unifiedDiff(from, to)
  if (from === to) {
    expect(result).toEqual({ text: '', additions: 0, deletions: 0 })
    return
  }
  expect(applyPatch(from, result.text)).toBe(to)
  expect(countChangedLines(result.text)).toEqual({ additions: result.additions, deletions: result.deletions })
}

const hasGnuPatch = existsSync('/usr/bin/patch')

/** Applies `patch` to `source` with GNU patch and returns the result. */
function applyWithGnuPatch(source: string, patch: string): string {
  const directory = mkdtempSync(join(tmpdir(), 'quire-diff-test-'))
  try {
    const file = join(directory, 'doc.txt')
    const output = join(directory, 'out.txt')
    writeFileSync(file, source)
    const result = spawnSync('/usr/bin/patch', ['--quiet', '--binary', `--output=${output}`, file], { input: patch, encoding: 'utf8' })
    if (result.status !== 0) throw new Error(`patch failed: ${result.stdout}${result.stderr}`)
    return readFileSync(output, 'utf8')
  } finally {
    rmSync(directory, { recursive: true, force: true })
  }
}

describe('unifiedDiff properties', () => {
  it('applyPatch(from, diff) gives to, and the counts match the +/- lines', () => {
    fc.assert(
      fc.property(smallPairs, ([from, to]) => expectRoundTrip(from, to)),
      { numRuns: 1500 },
    )
  })

  it('is a minimal diff on small inputs (same edit count as jsdiff diffLines)', () => {
    fc.assert(
      fc.property(smallPairs, ([from, to]) => {
        const result = unifiedDiff(from, to)
        expect(result.additions + result.deletions).toBe(minimalEditCount(from, to))
      }),
      { numRuns: 500 },
    )
  })

  it('round-trips with any amount of context', () => {
    fc.assert(
      fc.property(smallPairs, fc.integer({ min: 0, max: 6 }), ([from, to], context) => {
        const result = unifiedDiff(from, to, { context })
        // Without context a hunk may hold only CRLF '+' lines, which jsdiff's line-ending
        // auto-conversion would rewrite for an LF source; the patch itself is exact.
        expect(applyPatch(from, result.text, { autoConvertLineEndings: false })).toBe(from === to ? from : to)
      }),
      { numRuns: 500 },
    )
  })

  it.skipIf(!hasGnuPatch)('is applied by GNU patch too', () => {
    fc.assert(
      fc.property(smallPairs, ([from, to]) => {
        fc.pre(from !== to)
        expect(applyWithGnuPatch(from, unifiedDiff(from, to).text)).toBe(to)
      }),
      { numRuns: 150 },
    )
  })

  it('gives an empty diff for identical inputs', () => {
    fc.assert(
      fc.property(docOf(mixedLine, 30), (doc) => {
        const text = render(doc)
        expect(unifiedDiff(text, text)).toEqual({ text: '', additions: 0, deletions: 0 })
      }),
    )
  })

  it('round-trips on larger duplicate-heavy and reordered documents (heuristic paths)', () => {
    const duplicateHeavy = editedPair(lineOf(tinyText), 1500, 300)
    const move = fc.record({ kind: fc.constant('move' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 80 }), to: fc.nat() })
    const reordered = fc
      .tuple(
        fc.integer({ min: 200, max: 1500 }),
        fc.array(move, { maxLength: 60, size: 'max' }),
        fc.array(editOf(lineOf(tinyText)), { maxLength: 60, size: 'max' }),
      )
      .map(([length, moves, edits]): [string, string] => {
        const doc: Doc = { lines: Array.from({ length }, (_, k) => ({ text: `line ${k % 700}`, eol: '\n' })), finalNewline: true }
        return [render(doc), render(applyEdits(doc, [...moves, ...edits]))]
      })
    fc.assert(
      fc.property(fc.oneof(duplicateHeavy, reordered), ([from, to]) => expectRoundTrip(from, to)),
      { numRuns: 60 },
    )
  })
})

describe('unifiedDiff examples', () => {
  it('matches GNU diff -u hunks, including the missing final newline marker', () => {
    const from = 'a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\n'
    const to = 'a\nb\nC\nd\ne\nf\ng\nh\nj\nk\nl\nm\nn'
    const body = [' a', ' b', '-c', '+C', ' d', ' e', ' f', ' g', ' h', '-i', ' j', ' k', ' l', ' m', '+n']
    expect(unifiedDiff(from, to)).toEqual({
      text: ['--- from', '+++ to', '@@ -1,13 +1,13 @@', ...body, '\\ No newline at end of file', ''].join('\n'),
      additions: 2,
      deletions: 2,
    })
  })

  it('splits distant changes into hunks with three lines of context', () => {
    const from = `${Array.from({ length: 20 }, (_, k) => `line ${k}`).join('\n')}\n`
    const to = from.replace('line 2\n', 'line two\n').replace('line 17\n', '')
    const { text } = unifiedDiff(from, to, { fromLabel: 'v1/doc.md', toLabel: 'v2/doc.md' })
    expect(text.split('\n').filter((line) => line.startsWith('@@') || line.startsWith('---') || line.startsWith('+++'))).toEqual([
      '--- v1/doc.md',
      '+++ v2/doc.md',
      '@@ -1,6 +1,6 @@',
      '@@ -15,6 +15,5 @@',
    ])
  })

  it('merges changes up to 2 · context lines apart into one hunk, like GNU diff', () => {
    const from = `${Array.from({ length: 20 }, (_, k) => `line ${k}`).join('\n')}\n`
    const hunkHeaders = (to: string): string[] =>
      unifiedDiff(from, to)
        .text.split('\n')
        .filter((line) => line.startsWith('@@'))
    expect(hunkHeaders(from.replace('line 2\n', 'line two\n').replace('line 9\n', 'line nine\n'))).toEqual(['@@ -1,13 +1,13 @@'])
    expect(hunkHeaders(from.replace('line 2\n', 'line two\n').replace('line 10\n', 'line ten\n'))).toEqual([
      '@@ -1,6 +1,6 @@',
      '@@ -8,7 +8,7 @@',
    ])
  })

  it('handles empty documents on either side', () => {
    expect(unifiedDiff('', 'x\ny\n')).toEqual({ text: '--- from\n+++ to\n@@ -0,0 +1,2 @@\n+x\n+y\n', additions: 2, deletions: 0 })
    expect(unifiedDiff('x\n', '')).toEqual({ text: '--- from\n+++ to\n@@ -1,1 +0,0 @@\n-x\n', additions: 0, deletions: 1 })
    expect(unifiedDiff('', '')).toEqual({ text: '', additions: 0, deletions: 0 })
  })

  it('marks an unterminated last line that is context, deleted or inserted', () => {
    expect(unifiedDiff('a\nb', 'x\nb').text).toBe('--- from\n+++ to\n@@ -1,2 +1,2 @@\n-a\n+x\n b\n\\ No newline at end of file\n')
    expect(unifiedDiff('a\nb', 'a\nc').text).toBe(
      '--- from\n+++ to\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n',
    )
  })

  it('treats a change of final newline or line ending as a changed line', () => {
    expect(unifiedDiff('a\nb', 'a\nb\n').text).toBe('--- from\n+++ to\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n')
    const crlf = unifiedDiff('a\r\nb\r\n', 'a\r\nb\n')
    expect(crlf.text).toBe('--- from\n+++ to\n@@ -1,2 +1,2 @@\n a\r\n-b\r\n+b\n')
    expect(applyPatch('a\r\nb\r\n', crlf.text)).toBe('a\r\nb\n')
  })

  it('rejects an invalid context', () => {
    expect(() => unifiedDiff('a', 'b', { context: -1 })).toThrow(RangeError)
    expect(() => unifiedDiff('a', 'b', { context: 1.5 })).toThrow(RangeError)
  })

  it.skipIf(!hasGnuPatch)('produces a patch that GNU patch applies', () => {
    const from = 'title\n\nfirst paragraph\nsecond\r\nthird\n'
    const to = 'title\n\nfirst paragraph, edited\nsecond\r\nthird\nfourth'
    expect(applyWithGnuPatch(from, unifiedDiff(from, to).text)).toBe(to)
  })
})

describe('unifiedDiff bounds (denial-of-service guard)', () => {
  const lines = 50_000
  let seed = 42
  const random = (): number => {
    seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0
    return seed / 2 ** 32
  }
  const join = (items: readonly string[]): string => items.map((item) => `${item}\n`).join('')
  const alphabet = (): string[] =>
    Array.from({ length: lines }, () => ['alpha', 'beta', 'gamma', 'delta', 'epsilon'][Math.floor(random() * 5)] as string)
  const unique = Array.from({ length: lines }, (_, k) => `line ${k}: some prose that does not repeat`)
  const shuffled = [...unique]
  for (let k = shuffled.length - 1; k > 0; k--) {
    const other = Math.floor(random() * (k + 1))
    ;[shuffled[k], shuffled[other]] = [shuffled[other] as string, shuffled[k] as string]
  }
  const sparse = (): string[] => Array.from({ length: lines }, () => (random() < 0.01 ? 'y' : 'x'))
  const block = Array.from({ length: 100 }, (_, k) => `block line ${k}`)
  const blocks = (): string[] =>
    Array.from({ length: 1000 }, () => block.slice(Math.floor(random() * 50)))
      .flat()
      .slice(0, lines)
  // Same length and same first, middle and last characters: defeats sampled line hashing.
  const colliding = (k: number): string =>
    `${'A'.repeat(24)}${String(k).padStart(8, '0')}${'B'.repeat(40)}${String(k * 7).padStart(8, '0')}${'C'.repeat(20)}`
  // Every level of recursion finds a single unique anchor, and random low levels defeat Myers.
  const ruler = (): string[] =>
    Array.from({ length: 1 << 16 }, (_, k) => {
      const level = 31 - Math.clz32((k + 1) & -(k + 1))
      return level < 3 ? `L${Math.floor(random() * 3)}` : `L${level}`
    })
  const cases: [string, () => [string, string]][] = [
    ['50k lines from a 5-line alphabet', () => [join(alphabet()), join(alphabet())]],
    ['50k unique lines shuffled', () => [join(unique), join(shuffled)]],
    ['50k unique lines reversed', () => [join(unique), join([...unique].reverse())]],
    ['50k lines of x with sparse y', () => [join(sparse()), join(sparse())]],
    ['50k lines of repeated blocks', () => [join(blocks()), join(blocks())]],
    ['65k lines nested like a ruler sequence', () => [join(ruler()), join(ruler())]],
    [
      '50k lines with colliding samples',
      () => [join(unique.map((_, k) => colliding(k))), join(unique.map((_, k) => colliding(lines - k)))],
    ],
  ]

  for (const [name, build] of cases) {
    it(`${name}: takes under 2 s of CPU with a correct patch`, () => {
      const [from, to] = build()
      // What the diff costs, whatever else the machine runs (packages/testing/src/cpu-time.ts).
      const start = threadCpuMs()
      const result = unifiedDiff(from, to)
      const spent = threadCpuMs() - start
      expect(spent).toBeLessThan(2000)
      expect(applyPatch(from, result.text)).toBe(to)
    })
  }
})
