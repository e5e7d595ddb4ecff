import { FILE_HEADERS_ONLY, formatPatch } from 'diff'
import { computeEditScript } from './edit-script.ts'
import { buildHunks } from './hunks.ts'
import { internLines } from './line-ids.ts'
import { splitLines } from './lines.ts'

/** Options of {@link unifiedDiff}. */
export interface UnifiedDiffOptions {
  /** Name on the `---` header line. Default `'from'`. */
  fromLabel?: string
  /** Name on the `+++` header line. Default `'to'`. */
  toLabel?: string
  /** Unchanged lines shown around each change: a non-negative integer, or `Infinity` for one whole-file hunk. Default 3. */
  context?: number
}

/** A unified diff and its size. */
export interface UnifiedDiff {
  /** `---`/`+++` headers then hunks, as `diff -u` writes them; `''` when the inputs are equal. */
  text: string
  /** Number of `+` lines. */
  additions: number
  /** Number of `-` lines. */
  deletions: number
}

/**
 * Computes the line-based unified diff from `from` to `to`, suitable for jsdiff's `applyPatch`
 * and GNU `patch`. Lines keep their exact bytes (a CRLF line differs from an LF line) and a
 * missing final newline is marked with `\ No newline at end of file`.
 *
 * Time is near O((N + M) log(N + M)) even on adversarial input: the diff is minimal when the
 * inputs are similar (jsdiff's Myers within an edit budget) and otherwise falls back to patience
 * anchoring, which is always correct but may report more changed lines than strictly needed.
 */
export function unifiedDiff(from: string, to: string, options: UnifiedDiffOptions = {}): UnifiedDiff {
  const context = options.context ?? 3
  if (!(context >= 0) || (!Number.isInteger(context) && context !== Number.POSITIVE_INFINITY)) {
    throw new RangeError(`unifiedDiff: context must be a non-negative integer or Infinity, got ${context}`)
  }
  if (from === to) return { text: '', additions: 0, deletions: 0 }
  const fromLines = splitLines(from)
  const toLines = splitLines(to)
  const script = computeEditScript(internLines(fromLines, toLines))
  const { hunks, additions, deletions } = buildHunks(fromLines, toLines, script, context)
  const patch = {
    oldFileName: options.fromLabel ?? 'from',
    newFileName: options.toLabel ?? 'to',
    oldHeader: undefined,
    newHeader: undefined,
    hunks,
  }
  return { text: formatPatch(patch, FILE_HEADERS_ONLY), additions, deletions }
}
