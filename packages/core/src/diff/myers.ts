import type { ArrayChange } from 'diff'
import { diffArrays } from 'diff'
import type { DiffState } from './diff-state.ts'

/** Segments up to this many lines (both sides together) may always get an exact Myers diff. */
const EXACT_SIZE = 64

/**
 * The largest edit distance jsdiff's Myers may explore on a segment of `size` lines. Its cost
 * grows with the square of the distance, so past small segments `2·√size` keeps an attempt
 * linear in `size`.
 */
export function editBudget(size: number): number {
  return Math.min(size, Math.max(EXACT_SIZE, Math.ceil(2 * Math.sqrt(size))))
}

/** Thrown by the comparator to abandon a Myers run that compares more lines than allowed. */
const comparisonsExhausted = new Error('unifiedDiff: comparison budget exhausted')

/**
 * Diffs the lines `xs` against `ys` with jsdiff's `diffArrays` (Myers, minimal) limited to
 * `budget` edits, and flags the changed lines. Returns the edit distance, or undefined (flagging
 * nothing) when it exceeds the budget or the run compares more lines than such a budget warrants.
 */
export function markMyersDiff(state: DiffState, xs: Int32Array, ys: Int32Array, budget: number): number | undefined {
  let comparisonsLeft = 4 * (xs.length + ys.length) + 2 * budget * budget
  const comparator = (left: number, right: number): boolean => {
    if (--comparisonsLeft < 0) throw comparisonsExhausted
    return left === right
  }
  let changes: ArrayChange<number>[] | undefined
  try {
    changes = diffArrays(idsOf(state.idsA, xs), idsOf(state.idsB, ys), { maxEditLength: budget, comparator })
  } catch (error) {
    if (error === comparisonsExhausted) return undefined
    throw error
  }
  if (changes === undefined) return undefined
  let i = 0
  let j = 0
  let distance = 0
  for (const change of changes) {
    const count = change.count
    if (change.removed) {
      for (let k = 0; k < count; k++) state.changedA[xs[i + k]!] = 1
      i += count
      distance += count
    } else if (change.added) {
      for (let k = 0; k < count; k++) state.changedB[ys[j + k]!] = 1
      j += count
      distance += count
    } else {
      i += count
      j += count
    }
  }
  return distance
}

function idsOf(ids: Int32Array, lines: Int32Array): number[] {
  const out = new Array<number>(lines.length)
  for (let k = 0; k < lines.length; k++) out[k] = ids[lines[k]!]!
  return out
}
