import { parse } from 'csv-parse/sync'
import { escapeHtml } from './html.ts'

/** Rows shown as a table at most: enough to read, few enough that the page stays light. */
export const CSV_ROW_LIMIT = 5_000

/**
 * The records of a CSV file (RFC 4180 through csv-parse: quotes, escaped quotes, line breaks in
 * fields, a leading BOM), or null when it does not parse. Rows of different lengths are accepted:
 * a hand-written CSV often has them, and a table shows them fine.
 */
export function parseCsv(content: string): string[][] | null {
  try {
    return parse(content, { bom: true, relax_column_count: true, skip_empty_lines: true })
  } catch {
    return null
  }
}

/** One table row: every cell escaped, padded to the table's width so columns line up. */
function tableRow(cells: readonly string[], width: number, cellTag: 'th' | 'td'): string {
  const scope = cellTag === 'th' ? ' scope="col"' : ''
  let row = '<tr>'
  for (let i = 0; i < width; i++) row += `<${cellTag}${scope}>${escapeHtml(cells[i] ?? '')}</${cellTag}>`
  return `${row}</tr>\n`
}

/**
 * Records as a table: the first row is the header; at most `CSV_ROW_LIMIT` data rows, and a note
 * of how many more the raw file holds. Built from escaped text only, so it needs no sanitiser.
 */
export function csvTable(records: readonly (readonly string[])[], limit = CSV_ROW_LIMIT): string {
  const [header = [], ...rows] = records
  const shown = rows.slice(0, limit)
  const width = Math.max(header.length, ...shown.map((row) => row.length))
  let body = ''
  for (const row of shown) body += tableRow(row, width, 'td')
  const table = `<table class="csv">\n<thead>\n${tableRow(header, width, 'th')}</thead>\n<tbody>\n${body}</tbody>\n</table>\n`
  const hidden = rows.length - shown.length
  if (hidden <= 0) return table
  const more = `${hidden.toLocaleString('en-US')} more ${hidden === 1 ? 'row is' : 'rows are'}`
  return `${table}<p class="render-note">Showing the first ${limit.toLocaleString('en-US')} rows; ${more} in the raw file.</p>\n`
}
