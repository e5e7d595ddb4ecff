import type { Segment } from '../registry/types.ts'

/*
 * A list table's geometry: how wide text shows on a terminal, cutting a cell to a width with …,
 * and the columns' widths. Cells are segments, so a cut keeps what is marked as a match; the
 * renderer paints them (output.ts).
 */

/** The widest a column grows, but the one that fills the terminal. */
export const COLUMN_MAX = 60
/** The narrowest the filling column is cut to before the others are; then the narrowest any column is cut to. */
const FILL_MIN = 24
const COLUMN_MIN = 8
const GAP = 2

/** Columns of a terminal a character takes: 2 for East Asian wide ones and emoji, 0 for combining marks. */
function charWidth(codePoint: number): number {
  if (codePoint === 0x200d || (codePoint >= 0x300 && codePoint <= 0x36f) || (codePoint >= 0xfe00 && codePoint <= 0xfe0f)) return 0
  const wide =
    (codePoint >= 0x1100 && codePoint <= 0x115f) ||
    (codePoint >= 0x2e80 && codePoint <= 0xa4cf && codePoint !== 0x303f) ||
    (codePoint >= 0xac00 && codePoint <= 0xd7a3) ||
    (codePoint >= 0xf900 && codePoint <= 0xfaff) ||
    (codePoint >= 0xfe30 && codePoint <= 0xfe4f) ||
    (codePoint >= 0xff00 && codePoint <= 0xff60) ||
    (codePoint >= 0xffe0 && codePoint <= 0xffe6) ||
    (codePoint >= 0x1f300 && codePoint <= 0x1faff) ||
    (codePoint >= 0x20000 && codePoint <= 0x3fffd)
  return wide ? 2 : 1
}

export function textWidth(text: string): number {
  let width = 0
  for (const char of text) width += charWidth(char.codePointAt(0) ?? 0)
  return width
}

export const segmentsWidth = (segments: readonly Segment[]) => segments.reduce((sum, s) => sum + textWidth(s.text), 0)

/**
 * Text that cannot drive the terminal: control characters (an escape sequence in a document, a
 * newline in a title) become spaces.
 */
export const printable = (text: string) => text.replace(/\p{Cc}+/gu, ' ')

/** The segments cut to at most `width` columns, ending in … when cut. */
export function cut(segments: readonly Segment[], width: number): Segment[] {
  if (segmentsWidth(segments) <= width) return [...segments]
  const kept: Segment[] = []
  let used = 0
  for (const segment of segments) {
    let text = ''
    for (const char of segment.text) {
      const w = charWidth(char.codePointAt(0) ?? 0)
      if (used + w > width - 1) break
      text += char
      used += w
    }
    if (text) kept.push({ text, match: segment.match })
    if (text.length < segment.text.length) break
  }
  return [...kept, { text: '…', match: false }]
}

/**
 * The columns' widths: each as wide as its widest cell (or header), at most `COLUMN_MAX`; the
 * filling column as wide as its cells. Given a terminal's width, the filling column takes what the
 * others leave, down to `FILL_MIN`; below that the widest others are narrowed first (down to
 * `COLUMN_MIN`), the first last (it names the row: a path to copy); a terminal narrower still gets
 * a narrower filling column, then lines that wrap.
 */
export function columnWidths(natural: readonly number[], fill: number, terminal: number | undefined): number[] {
  const widths = natural.map((w, i) => (i === fill ? w : Math.min(COLUMN_MAX, w)))
  if (fill < 0 || terminal === undefined) return widths
  const room = terminal - GAP * (widths.length - 1)
  const others = () => widths.reduce((sum, w, i) => (i === fill ? sum : sum + w), 0)
  const want = Math.min(natural[fill] ?? 0, FILL_MIN)
  while (room - others() < want) {
    let widest = -1
    widths.forEach((w, i) => {
      if (i !== fill && i !== 0 && w > COLUMN_MIN && (widest < 0 || w > (widths[widest] ?? 0))) widest = i
    })
    if (widest < 0 && fill !== 0 && (widths[0] ?? 0) > COLUMN_MIN) widest = 0
    if (widest < 0) break
    widths[widest] = (widths[widest] ?? 0) - 1
  }
  widths[fill] = Math.max(1, Math.min(natural[fill] ?? 0, room - others()))
  return widths
}
