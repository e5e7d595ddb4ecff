import type { StructuredPatchHunk } from 'diff'
import type { EditScript } from './edit-script.ts'
import type { TextLines } from './lines.ts'

const NO_NEWLINE = '\\ No newline at end of file'

/** Unified-diff hunks for an edit script, with the number of inserted and deleted lines. */
export interface Hunks {
  readonly hunks: StructuredPatchHunk[]
  readonly additions: number
  readonly deletions: number
}

/**
 * Groups the changes of `script` into hunks (in jsdiff's structured form) with up to `context`
 * unchanged lines around each change; changes at most `2 · context` lines apart share a hunk.
 */
export function buildHunks(from: TextLines, to: TextLines, script: EditScript, context: number): Hunks {
  const blocks = changeBlocks(script)
  const writer = new HunkWriter(from, to)
  const hunks: StructuredPatchHunk[] = []
  let additions = 0
  let deletions = 0
  let previousEnd = 0
  for (let first = 0; first < blocks.length; ) {
    let last = first
    while (last + 4 < blocks.length && blocks[last + 4]! - blocks[last + 1]! <= 2 * context) last += 4
    const before = Math.min(context, blocks[first]! - previousEnd)
    const nextStart = last + 4 < blocks.length ? blocks[last + 4]! : from.lines.length
    const after = Math.min(context, nextStart - blocks[last + 1]!)
    const startA = blocks[first]! - before
    const startB = blocks[first + 2]! - before
    const lines: string[] = []
    writer.common(lines, startA, blocks[first]!)
    for (let k = first; k <= last; k += 4) {
      const deletedFrom = blocks[k]!
      const deletedEnd = blocks[k + 1]!
      const insertedFrom = blocks[k + 2]!
      const insertedEnd = blocks[k + 3]!
      writer.deleted(lines, deletedFrom, deletedEnd)
      writer.inserted(lines, insertedFrom, insertedEnd)
      deletions += deletedEnd - deletedFrom
      additions += insertedEnd - insertedFrom
      writer.common(lines, deletedEnd, k < last ? blocks[k + 4]! : deletedEnd + after)
    }
    const endA = blocks[last + 1]! + after
    const endB = blocks[last + 3]! + after
    hunks.push({ oldStart: startA + 1, oldLines: endA - startA, newStart: startB + 1, newLines: endB - startB, lines })
    previousEnd = blocks[last + 1]!
    first = last + 4
  }
  return { hunks, additions, deletions }
}

/** Maximal runs of changes as flat quadruples `[fromA, endA, fromB, endB, ...]`. */
function changeBlocks({ changedA, changedB }: EditScript): number[] {
  const blocks: number[] = []
  const lengthA = changedA.length
  const lengthB = changedB.length
  let i = 0
  let j = 0
  while (i < lengthA || j < lengthB) {
    if (i < lengthA && j < lengthB && changedA[i] === 0 && changedB[j] === 0) {
      i++
      j++
      continue
    }
    const fromA = i
    const fromB = j
    while (i < lengthA && changedA[i] === 1) i++
    while (j < lengthB && changedB[j] === 1) j++
    if (i === fromA && j === fromB) throw new Error('unifiedDiff: unchanged lines do not pair up')
    blocks.push(fromA, i, fromB, j)
  }
  return blocks
}

/** Renders hunk lines, adding the no-newline marker after a side's unterminated last line. */
class HunkWriter {
  readonly #from: TextLines
  readonly #to: TextLines

  constructor(from: TextLines, to: TextLines) {
    this.#from = from
    this.#to = to
  }

  common(out: string[], from: number, end: number): void {
    this.#write(out, ' ', this.#from, from, end)
  }

  deleted(out: string[], from: number, end: number): void {
    this.#write(out, '-', this.#from, from, end)
  }

  inserted(out: string[], from: number, end: number): void {
    this.#write(out, '+', this.#to, from, end)
  }

  #write(out: string[], prefix: string, text: TextLines, from: number, end: number): void {
    const { lines } = text
    for (let k = from; k < end; k++) out.push(prefix + lines[k])
    if (end === lines.length && end > from && text.missingFinalNewline) out.push(NO_NEWLINE)
  }
}
