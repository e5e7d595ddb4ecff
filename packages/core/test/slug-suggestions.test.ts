/**
 * Project slugs are not usernames: they are checked against the second segments the web app
 * serves under an owner only. A refused slug (reserved or taken) comes with free alternatives.
 */
import { describe, expect, it } from 'vitest'
import { reservedProjectSlugs, reservedSlugs, slugCandidates, slugify, slugProblem, suggestSlugs, webOwnerSegments } from '../src/index.ts'

describe('reserved names by kind', () => {
  it('refuses the web app’s names for users and workspaces, not for projects', () => {
    for (const name of ['status', 'docs', 'blog', 'api', 'search', 'public', 'home', 'help', 'projects', 'settings', 'raw']) {
      expect(slugProblem(name, 'owner'), name).toBe('reserved')
      expect(slugProblem(name, 'project'), name).toBeNull()
    }
  })

  it('reserves for projects exactly the segments the web app serves under an owner', () => {
    expect([...reservedProjectSlugs].sort()).toEqual([...webOwnerSegments].sort())
    for (const name of reservedProjectSlugs) expect(slugProblem(name, 'project'), name).toBe('reserved')
  })

  it('checks no reserved name for artifacts, and the pattern for every kind', () => {
    expect(slugProblem('settings', 'artifact')).toBeNull()
    for (const kind of ['owner', 'project', 'artifact'] as const) expect(slugProblem('Not_Valid', kind)).toBe('invalid')
  })
})

describe('slugify', () => {
  it('makes a slug of a title', () => {
    expect(slugify('Status reports!')).toBe('status-reports')
    expect(slugify('  Café — Über  ')).toBe('cafe-uber')
    expect(slugify('!!!')).toBe('')
    expect(slugify('a'.repeat(70))).toHaveLength(64)
  })
})

describe('slugCandidates', () => {
  it('tries the title, the slug with a word of the title, then numbers', () => {
    expect(slugCandidates('status', 'project', 'Status reports').slice(0, 4)).toEqual([
      'status-reports',
      'status-2',
      'status-3',
      'status-4',
    ])
    expect(slugCandidates('status', 'project', 'Weekly').slice(0, 3)).toEqual(['weekly', 'status-weekly', 'status-2'])
    expect(slugCandidates('notes', 'project').slice(0, 2)).toEqual(['notes-2', 'notes-3'])
  })

  it('offers only valid slugs of the kind, never the slug itself, each once', () => {
    const long = 'a'.repeat(64)
    const candidates = slugCandidates(long, 'project', long)
    expect(candidates[0]).toBe(`${'a'.repeat(62)}-2`)
    for (const name of candidates) expect(slugProblem(name, 'project'), name).toBeNull()
    expect(new Set(candidates).size).toBe(candidates.length)
    expect(candidates).not.toContain(long)
    // A title that is a reserved username is no suggestion for a username.
    expect(slugCandidates('ada', 'owner', 'Settings')).not.toContain('settings')
    expect(reservedSlugs.has('settings')).toBe(true)
  })
})

describe('suggestSlugs', () => {
  it('keeps up to three free candidates, in order, asking no more than needed', async () => {
    const asked: string[] = []
    const taken = new Set(['notes-2', 'notes-4'])
    const free = await suggestSlugs(['notes-2', 'notes-3', 'notes-4', 'notes-5', 'notes-6', 'notes-7'], async (name) => {
      asked.push(name)
      return taken.has(name)
    })
    expect(free).toEqual(['notes-3', 'notes-5', 'notes-6'])
    expect(asked).toEqual(['notes-2', 'notes-3', 'notes-4', 'notes-5', 'notes-6'])
  })

  it('answers none when every candidate is taken', async () => {
    expect(await suggestSlugs(['a-2', 'a-3'], async () => true)).toEqual([])
  })
})
