import type { SearchHit, Snippet } from '@quire/core/contract'
import type { Column, Fields, Segment } from './types.ts'

/*
 * `quire search` as a table: one row per hit, best first. PATH names the artifact as every
 * command takes it; TITLE is its title, the matched words marked when the title matched; SNIPPET is
 * the first passage of the description or content around a match (a content passage after its
 * line number, an older version's after `vN`), cut to the terminal's width. The segments are the
 * server's: `match` is what the query found, shown highlighted on a terminal.
 */

const plain = (text: string): Segment[] => (text ? [{ text, match: false }] : [])

const hitOf = (row: Fields) => row as unknown as SearchHit

const pathOf = (hit: SearchHit) => `${hit.artifact.ownerUsername}/${hit.artifact.projectSlug}/${hit.artifact.slug}`

/** The passage a row shows: the first that is not the title's. */
const passageOf = (hit: SearchHit): Snippet | undefined => hit.snippets.find((snippet) => snippet.field !== 'title')

export const searchColumns: readonly Column[] = [
  { field: 'artifact', header: 'PATH', cell: (row) => plain(pathOf(hitOf(row))) },
  {
    field: 'artifact.title',
    header: 'TITLE',
    cell: (row) => {
      const hit = hitOf(row)
      return hit.snippets.find((snippet) => snippet.field === 'title')?.segments ?? plain(hit.artifact.title)
    },
  },
  {
    field: 'snippets',
    header: 'SNIPPET',
    fill: true,
    cell: (row) => {
      const hit = hitOf(row)
      const passage = passageOf(hit)
      const older = hit.version !== hit.artifact.latestVersion ? `v${hit.version} ` : ''
      if (!passage) return plain(`${older}${hit.artifact.description ?? ''}`.trim())
      return [...plain(`${older}${passage.line === undefined ? '' : `${passage.line}: `}`), ...passage.segments]
    },
  },
]

/** What a search that finds nothing says, with what to try. */
export function noHits(args: Fields): string {
  const older = args.versions === 'all' ? '' : ', or add --versions all to search older versions too'
  return `Nothing you may read matches ${JSON.stringify(String(args.query ?? ''))}. Words match in any form; try fewer words${older}.`
}
