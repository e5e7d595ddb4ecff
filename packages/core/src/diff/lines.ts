/**
 * A text split into lines the way `diff` and jsdiff's `applyPatch` see it: each entry is one line's
 * content without its `\n` (a CRLF line keeps its `\r`), and the text's final newline is a flag.
 */
export interface TextLines {
  readonly lines: readonly string[]
  /** True when the text is non-empty and does not end with `\n`, so its last line has no newline. */
  readonly missingFinalNewline: boolean
}

/** Splits `text` into lines; the empty string has no lines, `'\n'` has one empty line. */
export function splitLines(text: string): TextLines {
  if (text === '') return { lines: [], missingFinalNewline: false }
  const lines = text.split('\n')
  const missingFinalNewline = lines[lines.length - 1] !== ''
  if (!missingFinalNewline) lines.pop()
  return { lines, missingFinalNewline }
}
