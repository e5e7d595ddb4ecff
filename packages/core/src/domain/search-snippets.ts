import { SEARCH_SNIPPETS_PER_HIT, type SearchField, type Snippet, type SnippetSegment } from '../contract/schemas/search.ts'

/*
 * Snippets are built here, for the page of hits being returned only, rather than by
 * `ts_headline`: that reads the whole document again, uses no index, runs at a few MB/s, and
 * answers HTML to escape. Here a snippet is plain text in segments, `match` marking what the query
 * found: a word whose lower-cased form starts with one of the query's stems (the stem of
 * "deploying" is "deploy", which marks "deployment" too), or a substring term anywhere.
 */

/** What marks a match: the stems of the query's words (lower case), and its substring terms. */
export interface Highlighter {
  readonly stems: readonly string[]
  readonly substrings: readonly string[]
}

/** The text of a hit's version that snippets are cut from. */
export interface SnippetSource {
  readonly title: string
  readonly description: string
  readonly content: string
}

/** Characters of context a snippet shows before its first match, and its length at most. */
const LEAD = 60
const SNIPPET_LENGTH = 200

type Range = readonly [start: number, end: number]

const WORD = /[\p{L}\p{N}_]+/gu

/** Where the highlighter matches in a text: sorted, merged ranges. */
export function matchRanges(text: string, highlighter: Highlighter): Range[] {
  const ranges: Range[] = []
  const stems = highlighter.stems.filter((stem) => stem.length > 0)
  if (stems.length > 0) {
    for (const match of text.matchAll(WORD)) {
      const word = match[0].toLowerCase()
      if (stems.some((stem) => word === stem || (stem.length >= 3 && word.startsWith(stem)))) {
        ranges.push([match.index, match.index + match[0].length])
      }
    }
  }
  const lower = text.toLowerCase()
  // Lower-casing a few characters changes their length; then only exact case is safe to map back.
  const haystack = lower.length === text.length ? lower : text
  for (const substring of highlighter.substrings) {
    const needle = haystack === lower ? substring.toLowerCase() : substring
    if (needle.length === 0) continue
    for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) {
      ranges.push([at, at + needle.length])
    }
  }
  ranges.sort((a, b) => a[0] - b[0] || a[1] - b[1])
  const merged: [number, number][] = []
  for (const [start, end] of ranges) {
    const last = merged.at(-1)
    if (last && start <= last[1]) last[1] = Math.max(last[1], end)
    else merged.push([start, end])
  }
  return merged
}

/** The segments of `text[start, end)`, whitespace runs shown as one space. */
function segmentsOf(text: string, start: number, end: number, ranges: readonly Range[]): SnippetSegment[] {
  const segments: SnippetSegment[] = []
  const push = (from: number, to: number, match: boolean) => {
    if (to <= from) return
    const piece = text.slice(from, to).replace(/\s+/g, ' ')
    const last = segments.at(-1)
    if (last && last.match === match) segments[segments.length - 1] = { text: last.text + piece, match }
    else segments.push({ text: piece, match })
  }
  let at = start
  for (const [s, e] of ranges) {
    if (e <= start || s >= end) continue
    push(at, Math.max(s, start), false)
    push(Math.max(s, start), Math.min(e, end), true)
    at = Math.min(e, end)
  }
  push(at, end, false)
  const first = segments[0]
  if (first && !first.match) segments[0] = { text: first.text.trimStart(), match: false }
  const last = segments.at(-1)
  if (last && !last.match) segments[segments.length - 1] = { text: last.text.trimEnd(), match: false }
  return segments.filter((segment) => segment.text.length > 0)
}

/** A window of at most `SNIPPET_LENGTH` characters that shows the match at `range`, cut at spaces or a line's start. */
function windowAround(text: string, range: Range): Range {
  let start = Math.max(0, range[0] - LEAD)
  // A passage starts at the start of the match's line when that is near enough.
  const lineStart = text.lastIndexOf('\n', range[0] - 1) + 1
  if (lineStart >= start) start = lineStart
  else if (start > 0) {
    const space = text.slice(start, range[0]).search(/\s/)
    if (space !== -1) start += space + 1
  }
  let end = Math.min(text.length, Math.max(range[1], start + SNIPPET_LENGTH))
  if (end < text.length) {
    const space = text.slice(range[1], end).search(/\s\S*$/)
    if (space !== -1) end = range[1] + space
  }
  return [start, end]
}

function lineAt(text: string, index: number): number {
  let line = 1
  for (let at = text.indexOf('\n'); at !== -1 && at < index; at = text.indexOf('\n', at + 1)) line++
  return line
}

function snippet(field: SearchField, text: string, window: Range, ranges: readonly Range[]): Snippet {
  const segments = segmentsOf(text, window[0], window[1], ranges)
  return field === 'content' ? { field, line: lineAt(text, window[0]), segments } : { field, segments }
}

/**
 * Up to `SEARCH_SNIPPETS_PER_HIT` snippets of a hit: the title when it matches, the description
 * around its first match, then passages of the content around matches (in the order of the
 * content), each chosen for a term not shown yet where there is one. A hit whose matches the
 * highlighter cannot place (a stem it does not recognise) shows the start of its content instead,
 * unmarked.
 */
export function searchSnippets(source: SnippetSource, highlighter: Highlighter): Snippet[] {
  const snippets: Snippet[] = []
  const titleRanges = matchRanges(source.title, highlighter)
  if (titleRanges.length > 0) snippets.push(snippet('title', source.title, [0, source.title.length], titleRanges))
  const descriptionRanges = matchRanges(source.description, highlighter)
  const firstInDescription = descriptionRanges[0]
  if (firstInDescription) {
    snippets.push(snippet('description', source.description, windowAround(source.description, firstInDescription), descriptionRanges))
  }
  const contentRanges = matchRanges(source.content, highlighter)
  const termOf = (r: Range) => source.content.slice(r[0], r[1]).toLowerCase()
  const shown = new Set<string>()
  const windows: Range[] = []
  while (snippets.length + windows.length < SEARCH_SNIPPETS_PER_HIT) {
    const free = contentRanges.filter((r) => !windows.some((w) => r[0] < w[1] && r[1] > w[0]))
    const pick = free.find((r) => !shown.has(termOf(r))) ?? free[0]
    if (!pick) break
    let [start, end] = windowAround(source.content, pick)
    // Passages never overlap: one next to another starts (or ends) where that one ends (or starts).
    for (const w of windows) {
      if (w[1] <= pick[0] && w[1] > start) start = w[1]
      if (w[0] >= pick[1] && w[0] < end) end = w[0]
    }
    windows.push([start, end])
    for (const r of contentRanges) if (r[0] >= start && r[1] <= end) shown.add(termOf(r))
  }
  windows.sort((a, b) => a[0] - b[0])
  for (const window of windows) snippets.push(snippet('content', source.content, window, contentRanges))
  if (snippets.length === 0) {
    const text = source.content.trim() === '' ? source.description : source.content
    const field: SearchField = text === source.content ? 'content' : 'description'
    const window = windowAround(text, [0, 0])
    if (window[1] > window[0]) snippets.push(snippet(field, text, window, []))
  }
  return snippets
}
