import type { DiffState, Segment } from './diff-state.ts'
import { createDiffState, markAllChanged } from './diff-state.ts'
import type { LineIds } from './line-ids.ts'
import { editBudget, markMyersDiff } from './myers.ts'
import { patienceAnchors } from './patience.ts'

/** Which lines of each side are deleted (`changedA`) and inserted (`changedB`). */
export interface EditScript {
  readonly changedA: Uint8Array
  readonly changedB: Uint8Array
}

/**
 * Work allowed per input line, counting one unit per line of each segment visited and one per
 * unit of squared edit distance explored by Myers. Past it, whatever is still unsolved becomes
 * one deletion plus one insertion: a correct but coarse diff, and a hard bound on time.
 */
const WORK_PER_LINE = 16
const WORK_FLOOR = 1 << 16

/**
 * Decides which lines changed between two sides. Each segment (initially both whole sides) has
 * its common ends trimmed and the lines that cannot match (absent from the other side) removed,
 * then gets an exact Myers diff from jsdiff when its edit distance fits a budget; otherwise it is
 * split at patience anchors (see `patienceAnchors`) and the gaps between them are solved the
 * same way. Always correct; minimal whenever no segment exceeded its budget.
 */
export function computeEditScript(ids: LineIds): EditScript {
  const state = createDiffState(ids)
  const pending: Segment[] = [{ xs: indices(ids.a.length), ys: indices(ids.b.length) }]
  const limit = WORK_PER_LINE * (ids.a.length + ids.b.length) + WORK_FLOOR
  let work = 0
  for (let segment = pending.pop(); segment; segment = pending.pop()) {
    work += segment.xs.length + segment.ys.length
    if (work > limit) markAllChanged(state, segment.xs, segment.ys)
    else work += solveSegment(state, segment, pending)
  }
  return { changedA: state.changedA, changedB: state.changedB }
}

/** Solves a segment or splits it, queueing the gaps; returns the Myers work it spent. */
function solveSegment(state: DiffState, segment: Segment, pending: Segment[]): number {
  const { xs, ys } = trimCommonEnds(state, segment)
  if (xs.length === 0 || ys.length === 0) {
    markAllChanged(state, xs, ys)
    return 0
  }
  countOccurrences(state, xs, ys, 1)
  const ra = keepShared(state.idsA, xs, state.countB, state.changedA)
  const rb = keepShared(state.idsB, ys, state.countA, state.changedB)
  let anchors: Int32Array | undefined
  let work = 0
  if (ra.length === 0 || rb.length === 0) {
    markAllChanged(state, ra, rb)
  } else {
    const budget = editBudget(ra.length + rb.length)
    // The edit distance is at least the difference in length: skip hopeless attempts.
    const attempted = Math.abs(ra.length - rb.length) <= budget
    const distance = attempted ? markMyersDiff(state, ra, rb, budget) : undefined
    if (distance === undefined) anchors = patienceAnchors(state, ra, rb)
    work = distance !== undefined ? distance ** 2 : attempted ? budget ** 2 : 0
  }
  countOccurrences(state, xs, ys, -1)
  if (anchors !== undefined) queueGaps(anchors, ra, rb, pending)
  return work
}

/** Queues the stretches of `ra`/`rb` between consecutive anchors (and the sides' ends). */
function queueGaps(anchors: Int32Array, ra: Int32Array, rb: Int32Array, pending: Segment[]): void {
  let i = 0
  let j = 0
  for (let k = 0; k <= anchors.length; k += 2) {
    const nextI = k < anchors.length ? anchors[k]! : ra.length
    const nextJ = k < anchors.length ? anchors[k + 1]! : rb.length
    if (nextI > i || nextJ > j) pending.push({ xs: ra.subarray(i, nextI), ys: rb.subarray(j, nextJ) })
    i = nextI + 1
    j = nextJ + 1
  }
}

function trimCommonEnds(state: DiffState, { xs, ys }: Segment): Segment {
  const { idsA, idsB } = state
  let start = 0
  const shorter = Math.min(xs.length, ys.length)
  while (start < shorter && idsA[xs[start]!] === idsB[ys[start]!]) start++
  let endA = xs.length
  let endB = ys.length
  while (endA > start && endB > start && idsA[xs[endA - 1]!] === idsB[ys[endB - 1]!]) {
    endA--
    endB--
  }
  return { xs: xs.subarray(start, endA), ys: ys.subarray(start, endB) }
}

function countOccurrences(state: DiffState, xs: Int32Array, ys: Int32Array, delta: number): void {
  const { idsA, idsB, countA, countB } = state
  for (let i = 0; i < xs.length; i++) countA[idsA[xs[i]!]!]! += delta
  for (let j = 0; j < ys.length; j++) countB[idsB[ys[j]!]!]! += delta
}

/** Keeps the lines whose id occurs on the other side; flags the others as changed. */
function keepShared(ids: Int32Array, lines: Int32Array, otherCount: Int32Array, changed: Uint8Array): Int32Array {
  const kept = new Int32Array(lines.length)
  let length = 0
  for (let k = 0; k < lines.length; k++) {
    const line = lines[k]!
    if (otherCount[ids[line]!]! > 0) kept[length++] = line
    else changed[line] = 1
  }
  return kept.subarray(0, length)
}

function indices(length: number): Int32Array {
  const out = new Int32Array(length)
  for (let k = 0; k < length; k++) out[k] = k
  return out
}
