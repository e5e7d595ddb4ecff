import type { TextLines } from './lines.ts'

/** Both sides of a diff as integer line ids: equal ids mean byte-identical lines (newline included). */
export interface LineIds {
  readonly a: Int32Array
  readonly b: Int32Array
  /** Ids are in `[0, symbolCount)`. */
  readonly symbolCount: number
}

/** Failed probes allowed per line before the sampled hash table gives way to a `Map`. */
const PROBES_PER_LINE = 4

/**
 * Interns the lines of both sides to integers. A last line without a newline never shares an id
 * with a newline-terminated line, so a change to the final newline shows up as a changed line.
 *
 * Lines go through an open-addressing table keyed by a hash of a few sampled characters, which
 * is much cheaper than hashing whole lines; if crafted lines make it probe too often it starts
 * over with a `Map`, so the cost stays linear.
 */
export function internLines(from: TextLines, to: TextLines): LineIds {
  const table = new SampledTable(from.lines.length + to.lines.length)
  let a = table.internAll(from)
  let b = a && table.internAll(to)
  let symbolCount = table.size
  if (!a || !b) {
    const map = new Map<string, number>()
    a = internWithMap(from, map)
    b = internWithMap(to, map)
    symbolCount = map.size
  }
  const lastA = from.lines.length - 1
  const lastB = to.lines.length - 1
  if (from.missingFinalNewline) a[lastA] = symbolCount++
  if (to.missingFinalNewline) {
    const sameUnterminated = from.missingFinalNewline && from.lines[lastA] === to.lines[lastB]
    b[lastB] = sameUnterminated ? symbolCount - 1 : symbolCount++
  }
  return { a, b, symbolCount }
}

/** Lines that get an id from the table: all but an unterminated last line. */
function internedCount(text: TextLines): number {
  return text.missingFinalNewline ? text.lines.length - 1 : text.lines.length
}

class SampledTable {
  readonly #slots: Int32Array
  readonly #keys: string[] = []
  #probesLeft: number

  constructor(lines: number) {
    let capacity = 1024
    while (capacity < 2 * lines) capacity *= 2
    this.#slots = new Int32Array(capacity).fill(-1)
    this.#probesLeft = PROBES_PER_LINE * lines + 1024
  }

  get size(): number {
    return this.#keys.length
  }

  /** Ids for the lines of `text`, or undefined when the probe allowance ran out. */
  internAll(text: TextLines): Int32Array | undefined {
    const { lines } = text
    const ids = new Int32Array(lines.length)
    const slots = this.#slots
    const keys = this.#keys
    const mask = slots.length - 1
    for (let i = 0, count = internedCount(text); i < count; i++) {
      const line = lines[i] as string
      let slot = sampleHash(line) & mask
      for (;;) {
        const id = slots[slot]!
        if (id < 0) {
          slots[slot] = keys.length
          ids[i] = keys.length
          keys.push(line)
          break
        }
        if (keys[id] === line) {
          ids[i] = id
          break
        }
        if (--this.#probesLeft < 0) return undefined
        slot = (slot + 1) & mask
      }
    }
    return ids
  }
}

/** FNV-1a over the length and up to 24 characters: the first, middle and last eight. */
function sampleHash(line: string): number {
  const length = line.length
  let hash = Math.imul(0x811c9dc5 ^ length, 0x01000193)
  if (length <= 24) {
    for (let c = 0; c < length; c++) hash = Math.imul(hash ^ line.charCodeAt(c), 0x01000193)
  } else {
    const middle = (length >>> 1) - 4
    for (let c = 0; c < 8; c++) {
      hash = Math.imul(hash ^ line.charCodeAt(c), 0x01000193)
      hash = Math.imul(hash ^ line.charCodeAt(middle + c), 0x01000193)
      hash = Math.imul(hash ^ line.charCodeAt(length - 8 + c), 0x01000193)
    }
  }
  return hash ^ (hash >>> 15)
}

function internWithMap(text: TextLines, table: Map<string, number>): Int32Array {
  const { lines } = text
  const ids = new Int32Array(lines.length)
  for (let i = 0, count = internedCount(text); i < count; i++) {
    const line = lines[i] as string
    let id = table.get(line)
    if (id === undefined) {
      id = table.size
      table.set(line, id)
    }
    ids[i] = id
  }
  return ids
}
