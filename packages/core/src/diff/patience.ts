import type { DiffState } from './diff-state.ts'
import { longestIncreasingChain } from './increasing-chain.ts'

/**
 * Anchors splitting a segment too different for an exact diff: lines paired across the sides,
 * reduced to the longest chain in the same order on both. Pairs are the lines occurring exactly
 * once on each side (patience diff); when there are none, the k-th occurrence of each line is
 * paired with the proportionally placed occurrence on the other side, so duplicate-heavy text
 * still gets a useful split. Expects `state.countA`/`countB` to hold the segment's occurrence
 * counts and every line of `xs` and `ys` to occur on both sides. Returns positions into `xs` and
 * `ys` as flat pairs `[i0, j0, i1, j1, ...]`, increasing on both sides; never empty.
 */
export function patienceAnchors(state: DiffState, xs: Int32Array, ys: Int32Array): Int32Array {
  const candidatesI = new Int32Array(xs.length)
  const candidatesJ = new Int32Array(xs.length)
  let count = uniquePairs(state, xs, ys, candidatesI, candidatesJ)
  if (count === 0) count = occurrencePairs(state, xs, ys, candidatesI, candidatesJ)
  const chain = longestIncreasingChain(candidatesJ, count)
  const anchors = new Int32Array(chain.length * 2)
  for (let k = 0; k < chain.length; k++) {
    anchors[2 * k] = candidatesI[chain[k]!]!
    anchors[2 * k + 1] = candidatesJ[chain[k]!]!
  }
  return anchors
}

function uniquePairs(state: DiffState, xs: Int32Array, ys: Int32Array, candidatesI: Int32Array, candidatesJ: Int32Array): number {
  const { idsA, idsB, countA, countB, slotB } = state
  for (let j = 0; j < ys.length; j++) {
    const id = idsB[ys[j]!]!
    if (countB[id] === 1 && countA[id] === 1) slotB[id] = j
  }
  let count = 0
  for (let i = 0; i < xs.length; i++) {
    const id = idsA[xs[i]!]!
    if (countA[id] !== 1 || countB[id] !== 1) continue
    candidatesI[count] = i
    candidatesJ[count] = slotB[id]!
    count++
  }
  return count
}

function occurrencePairs(state: DiffState, xs: Int32Array, ys: Int32Array, candidatesI: Int32Array, candidatesJ: Int32Array): number {
  const { idsA, idsB, countA, countB, slotB, cursor } = state
  // Group the positions of `ys` by line id (counting sort): slotB[id] is where the group starts.
  const positions = new Int32Array(ys.length)
  let total = 0
  for (let j = 0; j < ys.length; j++) {
    const id = idsB[ys[j]!]!
    if (cursor[id] !== 0) continue
    cursor[id] = 1
    slotB[id] = total
    total += countB[id]!
  }
  for (let j = 0; j < ys.length; j++) {
    const id = idsB[ys[j]!]!
    positions[slotB[id]! + cursor[id]! - 1] = j
    cursor[id]!++
  }
  for (let j = 0; j < ys.length; j++) cursor[idsB[ys[j]!]!] = 0
  for (let i = 0; i < xs.length; i++) {
    const id = idsA[xs[i]!]!
    const occurrence = cursor[id]!++
    candidatesI[i] = i
    candidatesJ[i] = positions[slotB[id]! + Math.floor((occurrence * countB[id]!) / countA[id]!)]!
  }
  for (let i = 0; i < xs.length; i++) cursor[idsA[xs[i]!]!] = 0
  return xs.length
}
