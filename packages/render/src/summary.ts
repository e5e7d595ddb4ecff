/** About what a search result or a link preview shows of a page's description. */
const SUMMARY_LENGTH = 200

/**
 * Plain text for a meta description: whitespace collapsed, and cut at a word boundary with an
 * ellipsis when longer than a preview shows. Undefined when nothing is left.
 */
export function plainSummary(text: string): string | undefined {
  const collapsed = text.replace(/\s+/g, ' ').trim()
  if (!collapsed) return undefined
  if (collapsed.length <= SUMMARY_LENGTH) return collapsed
  const cut = collapsed.slice(0, SUMMARY_LENGTH - 1)
  const space = cut.lastIndexOf(' ')
  return `${(space > SUMMARY_LENGTH / 2 ? cut.slice(0, space) : cut).trimEnd()}…`
}

/** The first paragraph of plain text (up to the first blank line), summarised. */
export function firstTextParagraph(text: string): string | undefined {
  // A preview never needs more than the first few hundred characters; a 1 MiB file is not split.
  const head = text.trimStart().slice(0, SUMMARY_LENGTH * 8)
  return plainSummary(head.split(/\r?\n[ \t]*\r?\n/, 1)[0] ?? '')
}
