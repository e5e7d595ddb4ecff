import type { Artifact, VersionDiff } from '@quire/core/contract'
import { html, type SafeHtml } from '@quire/render'
import { artifactCrumbs } from './crumbs.ts'
import { compareForm } from './history.ts'
import { layout, type Visitor } from './layout.ts'
import { artifactParams, webRoutes } from './web-routes.ts'

/** One row of a rendered diff: a line on either side or both, or the end-of-file note. */
export interface DiffLine {
  readonly kind: 'context' | 'add' | 'del' | 'note'
  readonly oldNumber: number | null
  readonly newNumber: number | null
  readonly text: string
}

/** A hunk: its `@@ … @@` header and its lines. */
export interface DiffHunk {
  readonly header: string
  readonly lines: DiffLine[]
}

/** The hunks of a unified diff, up to a number of lines, and whether more were left out. */
export interface ParsedDiff {
  readonly hunks: DiffHunk[]
  readonly shown: number
  readonly truncated: boolean
}

export interface DiffView {
  readonly artifact: Artifact
  readonly diff: VersionDiff
  /** The diff, parsed for display (at most `lineLimit` lines). */
  readonly parsed: ParsedDiff
  readonly lineLimit: number
  /** Where the whole unified diff is, as plain text. */
  readonly patchHref: string
  /** Who is signed in; null on a diff of two named versions, which is the same for every reader. */
  readonly visitor: Visitor | null
}

const HUNK_HEADER = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/

/** A line as it is shown: without the carriage return of a CRLF line, which would show as nothing anyway. */
function displayText(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line
}

/**
 * Reads core's unified diff text (`---`/`+++` headers, then hunks) into rows with old and new line
 * numbers. It walks the text line by line and stops after `limit` rows, so a huge diff costs no
 * more than the part of it shown.
 */
export function parseUnifiedDiff(text: string, limit: number): ParsedDiff {
  const hunks: DiffHunk[] = []
  let current: DiffHunk | null = null
  let oldLine = 0
  let newLine = 0
  let shown = 0
  let start = 0
  while (start < text.length) {
    const end = text.indexOf('\n', start)
    const line = text.slice(start, end === -1 ? text.length : end)
    start = end === -1 ? text.length : end + 1
    const header = HUNK_HEADER.exec(line)
    if (header) {
      current = { header: line, lines: [] }
      hunks.push(current)
      oldLine = Number(header[1])
      newLine = Number(header[2])
      continue
    }
    if (current === null) continue // the `---`/`+++` file headers
    if (shown >= limit) return { hunks, shown, truncated: true }
    const sign = line[0]
    const body = displayText(line.slice(1))
    if (sign === '+') current.lines.push({ kind: 'add', oldNumber: null, newNumber: newLine++, text: body })
    else if (sign === '-') current.lines.push({ kind: 'del', oldNumber: oldLine++, newNumber: null, text: body })
    else if (sign === '\\') current.lines.push({ kind: 'note', oldNumber: null, newNumber: null, text: line.slice(2) })
    else if (sign === ' ') current.lines.push({ kind: 'context', oldNumber: oldLine++, newNumber: newLine++, text: body })
    else continue
    shown++
  }
  return { hunks, shown, truncated: false }
}

/**
 * One row: the two line numbers, then the line. The change is told by the row's class (colour),
 * a sign drawn by the stylesheet (shape) and hidden text for screen readers, never by colour alone.
 */
function lineRow(line: DiffLine): SafeHtml {
  if (line.kind === 'note') return html`<tr class="note"><td class="ln"></td><td class="ln"></td><td class="code">${line.text}</td></tr>`
  const marker =
    line.kind === 'add' ? html`<span class="sr-only">+ </span>` : line.kind === 'del' ? html`<span class="sr-only">− </span>` : null
  return html`<tr class="${line.kind}"><td class="ln">${line.oldNumber}</td><td class="ln">${line.newNumber}</td><td class="code">${marker}${line.text}</td></tr>`
}

/** A hunk as a group of rows under its `@@` header. */
function hunkRows(hunk: DiffHunk): SafeHtml {
  return html`<tbody>
<tr class="hunk"><th colspan="3" scope="rowgroup">${hunk.header}</th></tr>
${hunk.lines.map(lineRow)}
</tbody>`
}

/**
 * The inline diff table, inside a box that scrolls sideways on its own so the page never does.
 * It needs only the two version numbers besides the parsed lines, so a preview's diff from the
 * latest to an unsaved version is shown by it too.
 */
export function diffTable(view: { readonly diff: Pick<VersionDiff, 'fromVersion' | 'toVersion'>; readonly parsed: ParsedDiff }): SafeHtml {
  const { diff } = view
  return html`<div class="diff-scroll" role="region" aria-label="Changes" tabindex="0">
<table class="diff-table">
  <caption class="sr-only">Changes from version ${diff.fromVersion} to version ${diff.toVersion}</caption>
  <thead class="sr-only"><tr><th scope="col">Old line</th><th scope="col">New line</th><th scope="col">Line</th></tr></thead>
${view.parsed.hunks.map(hunkRows)}
</table>
</div>`
}

/** The counts of added and removed lines, in words as well as signs. */
export function diffStat(diff: Pick<VersionDiff, 'additions' | 'deletions'>): SafeHtml {
  const lines = (n: number) => (n === 1 ? 'line' : 'lines')
  return html`<span class="stat add">+${diff.additions} <span class="word">${lines(diff.additions)} added</span></span>
      <span class="stat del">−${diff.deletions} <span class="word">${lines(diff.deletions)} removed</span></span>`
}

/** The page comparing two versions: what changed, inline, with line numbers. */
export function diffPage(view: DiffView): string {
  const { artifact, diff } = view
  const params = artifactParams(artifact)
  const { fromVersion: from, toVersion: to } = diff
  const equal = diff.diff === ''
  return layout(
    {
      title: `Changes from version ${from} to ${to} of ${artifact.title}`,
      visitor: view.visitor,
      head: html`<meta name="robots" content="noindex">`,
    },
    html`<div class="diff-page">
  <header class="artifact-head">
    ${artifactCrumbs(artifact)}
    <h1>Changes from version ${from} to version ${to}</h1>
    ${equal ? null : html`<p class="meta">${diffStat(diff)}</p>`}
    <nav class="artifact-actions" aria-label="This comparison">
      <a href="${webRoutes.artifact.path(params, { version: from })}">View version ${from}</a>
      <a href="${webRoutes.artifact.path(params, { version: to })}">View version ${to}</a>
      ${from !== to ? html`<a href="${webRoutes.diff.path(params, { from: to, to: from })}">Swap sides</a>` : null}
      <a href="${view.patchHref}">Raw diff</a>
      <a href="${webRoutes.history.path(params)}">History</a>
    </nav>
  </header>
  ${
    equal
      ? html`<p class="notice" role="note">No differences: version ${from} and version ${to} have the same content.</p>`
      : html`${
          view.parsed.truncated
            ? html`<p class="notice" role="note">This diff is long: only its first ${view.lineLimit.toLocaleString('en')} lines are shown. <a href="${view.patchHref}">Open the whole unified diff</a>.</p>`
            : null
        }
  ${diffTable(view)}`
  }
  ${artifact.latestVersion > 1 ? compareForm(artifact, from, to) : null}
</div>`,
  )
}
