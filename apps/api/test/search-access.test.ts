/**
 * Search returns exactly what the caller may read, decided inside the query: random worlds of
 * people, team workspaces with random members and roles, and artifacts with random access
 * settings, versions and deletions, built through the API. For every person and word, every hit
 * (walked page by page) is readable by the one `decide()`, and the hits are exactly a brute-force
 * scan: the live artifacts whose text holds the word and that the person may read without the
 * public switch (a merely public artifact is not listed in other people's searches).
 */
import type { Principal, Resource, SearchHit } from '@quire/core'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { engine, startTestApi, type TestApi } from './helper.ts'

let api: TestApi
beforeAll(async () => {
  api = await startTestApi()
})
afterAll(async () => {
  await api.close()
})

/** Made-up words, each its own stem, so that what full text matches is what the text holds. */
const vocabulary = ['zorblax', 'quintar', 'plombic', 'vexilon', 'trundock', 'maravel'] as const

const world = fc.record({
  people: fc.integer({ min: 3, max: 5 }),
  teams: fc.array(
    fc.record({
      owner: fc.nat(),
      members: fc.array(fc.record({ who: fc.nat(), role: fc.constantFrom('admin', 'member') }), { maxLength: 3 }),
    }),
    { minLength: 1, maxLength: 2 },
  ),
  artifacts: fc.array(
    fc.record({
      home: fc.nat(),
      publicView: fc.boolean(),
      viewers: fc.array(fc.nat(), { maxLength: 2 }),
      outsiderViewer: fc.boolean(),
      words: fc.subarray([...vocabulary], { minLength: 1, maxLength: 3 }),
      later: fc.option(fc.subarray([...vocabulary], { minLength: 1, maxLength: 2 }), { nil: null }),
      deleted: fc.boolean(),
    }),
    { minLength: 4, maxLength: 14 },
  ),
})
type World = typeof world extends fc.Arbitrary<infer W> ? W : never

interface Person {
  readonly token: string
  readonly userId: string
  readonly username: string
  readonly email: string
}

let run = 0

/** Builds the world through the API; returns its people. */
async function build(w: World): Promise<Person[]> {
  const tag = `${++run}${Math.random().toString(36).slice(2, 6)}`
  const people: Person[] = []
  for (let i = 0; i < w.people; i++) {
    const email = `p${i}-${tag}@example.com`
    people.push({ ...(await api.user(email)), email })
  }
  const at = (i: number) => people[i % people.length] as Person
  // Every namespace with its creator: each person's own, and the teams (created by their owner).
  const homes: { owner: string; creator: Person }[] = people.map((p) => ({ owner: p.username, creator: p }))
  for (const [t, team] of w.teams.entries()) {
    const owner = at(team.owner)
    const created = await api.call('POST', '/api/workspaces', owner.token, { slug: `team-${t}-${tag}`, name: 'Team' })
    for (const { who, role } of team.members) {
      const member = at(who)
      if (member === owner) continue
      const invitation = await api.request('POST', `/api/workspaces/${created.id}/invitations`, {
        token: owner.token,
        body: { email: member.email, role },
      })
      // Inviting the same person twice is refused: they are invited once, with the first role.
      if (invitation.statusCode === 201) await api.call('POST', `/api/workspace-invitations/${invitation.json().id}/accept`, member.token)
    }
    homes.push({ owner: created.slug, creator: owner })
  }
  for (const home of homes) {
    await api.call('POST', '/api/projects', home.creator.token, { ownerUsername: home.owner, slug: 'p', title: 'P', icon: '📝' })
  }
  for (const [i, a] of w.artifacts.entries()) {
    const home = homes[a.home % homes.length] as (typeof homes)[number]
    const viewerEmails = [...new Set([...a.viewers.map((v) => at(v).email), ...(a.outsiderViewer ? [`outsider-${tag}@example.com`] : [])])]
    const created = await api.call('POST', '/api/artifacts', home.creator.token, {
      ownerUsername: home.owner,
      projectSlug: 'p',
      slug: `a${i}`,
      type: 'md',
      title: `Note ${i}`,
      content: `Words: ${a.words.join(' ')}.`,
      changelog: '',
      access: { publicView: a.publicView, publicEdit: false, viewerEmails },
    })
    if (a.later) {
      await api.call('POST', `/api/artifacts/${created.id}/versions`, home.creator.token, {
        content: `Now: ${a.later.join(' ')}.`,
        changelog: '',
        expectedLatestVersion: 1,
      })
    }
    if (a.deleted) await api.call('DELETE', `/api/artifacts/${created.id}`, home.creator.token)
  }
  return people
}

/** Every hit of a search, walked in pages of 3. */
async function allHits(person: Person, q: string, versions: 'latest' | 'all'): Promise<SearchHit[]> {
  const hits: SearchHit[] = []
  let cursor: string | null = null
  do {
    const query = new URLSearchParams({ q, versions, limit: '3', ...(cursor ? { cursor } : {}) })
    const res = await api.request('GET', `/api/search?${query}`, { token: person.token })
    expect(res.statusCode).toBe(200)
    const page = res.json() as { items: SearchHit[]; nextCursor: string | null }
    if (page.nextCursor !== null) expect(page.items).toHaveLength(3)
    hits.push(...page.items)
    cursor = page.nextCursor
  } while (cursor !== null)
  return hits
}

interface ArtifactFacts {
  readonly resource: Extract<Resource, { type: 'artifact' }>
  readonly live: boolean
  /** The text of each version, latest last. */
  readonly texts: readonly string[]
}

/** The facts `decide()` reads, for one person, straight from the database. */
async function factsFor(person: Person): Promise<{ principal: Principal; artifacts: Map<string, ArtifactFacts> }> {
  const { db } = api.runtime.database
  const user = await db.selectFrom('users').selectAll().where('id', '=', person.userId).executeTakeFirstOrThrow()
  const roles = new Map(
    (await db.selectFrom('memberships').select(['workspace_id', 'role']).where('user_id', '=', person.userId).execute()).map((m) => [
      m.workspace_id,
      m.role,
    ]),
  )
  const rows = await db
    .selectFrom('artifacts as a')
    .innerJoin('versions as v', 'v.artifact_id', 'a.id')
    .innerJoin('contents as c', 'c.sha256', 'v.content_sha256')
    .select(['a.id', 'a.workspace_id', 'a.public_view', 'a.public_edit', 'a.viewer_emails', 'a.deleted_at', 'v.number', 'c.body'])
    .orderBy('v.number')
    .execute()
  const artifacts = new Map<string, ArtifactFacts>()
  for (const r of rows) {
    const known = artifacts.get(r.id)
    artifacts.set(r.id, {
      resource: {
        type: 'artifact',
        id: r.id,
        workspaceId: r.workspace_id,
        role: roles.get(r.workspace_id) ?? null,
        publicView: r.public_view,
        publicEdit: r.public_edit,
        viewerEmails: r.viewer_emails,
      },
      live: r.deleted_at === null,
      texts: [...(known?.texts ?? []), r.body],
    })
  }
  const principal: Principal = {
    kind: 'api_key',
    credentialId: 'key',
    user: { id: user.id, email: user.email, emailVerified: user.email_verified, username: user.username },
    scopes: ['artifacts:read'],
  }
  return { principal, artifacts }
}

const holds = (text: string, word: string) => new RegExp(`\\b${word}\\b`, 'i').test(text)

describe(`search returns exactly what the caller may read (${engine})`, () => {
  it('for random people, memberships and access settings: every hit readable by decide(), the hits a brute-force scan', async () => {
    const { decide } = api.runtime.deps.policy
    await fc.assert(
      fc.asyncProperty(world, async (w) => {
        const people = await build(w)
        for (const person of people) {
          const { principal, artifacts } = await factsFor(person)
          for (const word of vocabulary) {
            for (const versions of ['latest', 'all'] as const) {
              const hits = await allHits(person, word, versions)
              const ids = hits.map((h) => h.artifact.id)
              expect(new Set(ids).size).toBe(ids.length)
              for (const id of ids) {
                const facts = artifacts.get(id)
                expect(facts && decide(principal, 'artifact.read', facts.resource).allow).toBe(true)
              }
              const expected = [...artifacts.entries()]
                .filter(([, f]) => f.live)
                .filter(([, f]) => (versions === 'all' ? f.texts : f.texts.slice(-1)).some((text) => holds(text, word)))
                .filter(([, f]) => decide(principal, 'artifact.read', { ...f.resource, publicView: false }).allow)
                .map(([id]) => id)
              expect([...ids].sort()).toEqual(expected.sort())
            }
          }
        }
      }),
      { numRuns: 6 },
    )
  }, 600_000)
})
