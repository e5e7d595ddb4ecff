import type { LineIds } from './line-ids.ts'

/**
 * What the line-matching stages share: the line ids of both sides, the changed-line flags they
 * fill in, and scratch tables indexed by line id. Lines not flagged as changed match in order: the
 * k-th unchanged line of `a` equals the k-th unchanged line of `b`.
 */
export interface DiffState {
  readonly idsA: Int32Array
  readonly idsB: Int32Array
  /** 1 where a line of `a` is deleted. */
  readonly changedA: Uint8Array
  /** 1 where a line of `b` is inserted. */
  readonly changedB: Uint8Array
  /** Occurrences per id in the segment being solved; all zero between segments. */
  readonly countA: Int32Array
  readonly countB: Int32Array
  /** Per-id scratch for the anchor search, only meaningful within one segment. */
  readonly slotB: Int32Array
  /** Per-id scratch for the anchor search; all zero between segments. */
  readonly cursor: Int32Array
}

/** A run of the problem still to solve: original line indices of each side, in order. */
export interface Segment {
  readonly xs: Int32Array
  readonly ys: Int32Array
}

/** Creates the state for diffing `ids`, with no line flagged as changed yet. */
export function createDiffState(ids: LineIds): DiffState {
  return {
    idsA: ids.a,
    idsB: ids.b,
    changedA: new Uint8Array(ids.a.length),
    changedB: new Uint8Array(ids.b.length),
    countA: new Int32Array(ids.symbolCount),
    countB: new Int32Array(ids.symbolCount),
    slotB: new Int32Array(ids.symbolCount),
    cursor: new Int32Array(ids.symbolCount),
  }
}

/** Flags every line of `xs` as deleted and every line of `ys` as inserted. */
export function markAllChanged(state: DiffState, xs: Int32Array, ys: Int32Array): void {
  for (let i = 0; i < xs.length; i++) state.changedA[xs[i]!] = 1
  for (let j = 0; j < ys.length; j++) state.changedB[ys[j]!] = 1
}
