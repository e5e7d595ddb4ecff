import { diffArrays } from 'diff'
import type { DiffState } from './diff-state.ts'

/** Below this many lines (both sides together) a segment always gets an exact Myers diff. */
const EXACT_SIZE = 64

/**
 * The largest edit distance jsdiff's Myers may explore on a segment of `size` lines. Its cost
 * grows with the square of the distance, so `2·√size` keeps a failed attempt linear in `size`.
 */
export function editBudget(size: number): number {
  if (size <= EXACT_SIZE) return size
  return Math.max(EXACT_SIZE, Math.ceil(2 * Math.sqrt(size)))
}

/**
 * Diffs the lines `xs` against `ys` with jsdiff's `diffArrays` (Myers, minimal) limited to
 * `budget` edits and flags the changed lines. Returns false, flagging nothing, when the edit
 * distance exceeds the budget.
 */
export function markMyersDiff(state: DiffState, xs: Int32Array, ys: Int32Array, budget: number): boolean {
  const changes = diffArrays(idsOf(state.idsA, xs), idsOf(state.idsB, ys), {
    maxEditLength: budget,
  })
  if (changes === undefined) return false
  let i = 0
  let j = 0
  for (const change of changes) {
    const end = change.count
    if (change.removed) {
      for (let k = 0; k < end; k++) state.changedA[xs[i + k]!] = 1
      i += end
    } else if (change.added) {
      for (let k = 0; k < end; k++) state.changedB[ys[j + k]!] = 1
      j += end
    } else {
      i += end
      j += end
    }
  }
  return true
}

function idsOf(ids: Int32Array, lines: Int32Array): number[] {
  const out = new Array<number>(lines.length)
  for (let k = 0; k < lines.length; k++) out[k] = ids[lines[k]!]!
  return out
}
