/**
 * No route of the operation table answers a request meant for another. The router tries a static
 * segment before a parameter, so where two paths of one method first differ by a static segment
 * against a parameter (`/api/projects/slug-availability/:owner/:slug` against
 * `/api/projects/:owner/:projectSlug/artifacts`), the parameter may never take that word: its
 * schema's pattern refuses it (prefixed ids), or it names a namespace or project, and the word is
 * a reserved slug no namespace (`reservedSlugs`) or project (`reservedProjectSlugs`) can take.
 */
import { describe, expect, it } from 'vitest'
import { type OperationSpec, operations, reservedProjectSlugs, reservedSlugs } from '../src/index.ts'

/** Path parameters whose values are namespace or project slugs, and the reserved words each never takes. */
function reservedFor(name: string, owners: ReadonlySet<string>): ReadonlySet<string> {
  if (name === 'owner') return owners
  if (name === 'projectSlug') return reservedProjectSlugs
  return new Set()
}

type Table = Readonly<Record<string, Pick<OperationSpec, 'method' | 'path' | 'params'>>>

const isParam = (segment: string) => segment.startsWith(':')

/** Whether the parameter `name` of `op` can take the value `word`. */
function canTake(op: Table[string], name: string, word: string, reserved: ReadonlySet<string>): boolean {
  const schema = (op.params?.properties as Record<string, { pattern?: string }> | undefined)?.[name]
  if (schema?.pattern !== undefined && !new RegExp(schema.pattern).test(word)) return false
  return !reservedFor(name, reserved).has(word)
}

/** Every request one route takes from another: "`GET a` answers `GET b` when :param is `word`". */
export function shadowings(table: Table, reserved: ReadonlySet<string>): string[] {
  const found: string[] = []
  const entries = Object.entries(table)
  for (const [aId, a] of entries)
    for (const [bId, b] of entries) {
      if (aId === bId || a.method !== b.method) continue
      const as = a.path.split('/')
      const bs = b.path.split('/')
      if (as.length !== bs.length) continue
      // Both must match some one URL: equal statics wherever both are static.
      if (as.some((s, i) => !isParam(s) && !isParam(bs[i] as string) && s !== bs[i])) continue
      const first = as.findIndex((s, i) => isParam(s) !== isParam(bs[i] as string))
      if (first < 0) continue
      const word = as[first] as string
      const param = (bs[first] as string).slice(1)
      if (isParam(word) || !canTake(b, param, word, reserved)) continue
      found.push(`${aId} (${a.method} ${a.path}) answers ${bId} (${b.path}) when :${param} is \`${word}\``)
    }
  return found
}

describe('route shadowing', () => {
  it('no operation answers a request meant for another', () => {
    expect(shadowings(operations, reservedSlugs)).toEqual([])
  })

  it('names a static segment a namespace could take', () => {
    const table: Table = {
      checkProjectSlug: operations.checkProjectSlug,
      listProjectArtifacts: operations.listProjectArtifacts,
      getArtifact: operations.getArtifact,
      checkArtifactSlug: operations.checkArtifactSlug,
    }
    const withoutIt = new Set([...reservedSlugs].filter((s) => s !== 'slug-availability'))
    expect(shadowings(table, withoutIt)).toEqual([
      'checkProjectSlug (GET /api/projects/slug-availability/:owner/:slug) answers listProjectArtifacts (/api/projects/:owner/:projectSlug/artifacts) when :owner is `slug-availability`',
    ])
    expect(shadowings(table, reservedSlugs)).toEqual([])
  })
})
