/**
 * `GET /api/search`: what the caller may read, found by title, description and content, ranked,
 * paged and with structured snippets; fresh in the very next request after a write; the same on
 * both engines. (Random principals against `decide()`: search-access.test.ts.)
 */
import type { SearchHit } from '@quire/core'
import { claimedAgent } from '@quire/testing/claimed-agent'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { count, engine, startTestApi, type TestApi } from './helper.ts'

let api: TestApi
beforeAll(async () => {
  api = await startTestApi()
})
afterAll(async () => {
  await api.close()
})

type User = Awaited<ReturnType<TestApi['user']>> & { email: string }

let n = 0
async function person(name: string, scopes?: Parameters<TestApi['user']>[1]): Promise<User> {
  const email = `${name}-${++n}@example.com`
  return { ...(await api.user(email, scopes)), email }
}

async function project(owner: User, ownerUsername = owner.username, slug = 'notes') {
  await api.call('POST', '/api/projects', owner.token, { ownerUsername, slug, title: 'Notes', icon: '📝' })
}

interface Publish {
  readonly slug: string
  readonly title: string
  readonly content: string
  readonly description?: string
  readonly type?: string
  readonly ownerUsername?: string
  readonly projectSlug?: string
  readonly publicView?: boolean
  readonly viewerEmails?: string[]
}

async function publish(owner: User, p: Publish): Promise<{ id: string }> {
  return api.call('POST', '/api/artifacts', owner.token, {
    ownerUsername: p.ownerUsername ?? owner.username,
    projectSlug: p.projectSlug ?? 'notes',
    slug: p.slug,
    type: p.type ?? 'md',
    title: p.title,
    ...(p.description === undefined ? {} : { description: p.description }),
    content: p.content,
    changelog: 'first',
    access: { publicView: p.publicView ?? false, publicEdit: false, ...(p.viewerEmails ? { viewerEmails: p.viewerEmails } : {}) },
  })
}

async function search(who: User | null, query: Record<string, string | number>) {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString()
  return api.request('GET', `/api/search?${qs}`, { token: who?.token ?? null })
}

async function hits(who: User, q: string, extra: Record<string, string | number> = {}): Promise<SearchHit[]> {
  const res = await search(who, { q, ...extra })
  if (res.statusCode !== 200) throw new Error(`search ${q}: ${res.statusCode} ${res.body}`)
  return res.json().items
}

const slugs = (items: readonly SearchHit[]) => items.map((h) => h.artifact.slug)

/** The snippets of a hit as text, matches in [brackets]. */
const marked = (hit: SearchHit | undefined) =>
  (hit?.snippets ?? []).map((s) => `${s.field}: ${s.segments.map((g) => (g.match ? `[${g.text}]` : g.text)).join('')}`)

describe(`searchArtifacts (${engine})`, () => {
  let ada: User
  beforeAll(async () => {
    ada = await person('ada')
    await project(ada)
    await publish(ada, {
      slug: 'deploy-checklist',
      title: 'Deploy checklist',
      description: 'What to check before a release',
      content: '# Deploy checklist\n\n1. Freeze the branch.\n2. Run the migrations.\n3. Watch ERR_CONN_RESET in the logs.\n',
    })
    await publish(ada, {
      slug: 'incident-notes',
      title: 'Incident notes',
      content: `# Incident\n\n${'Padding line about nothing in particular.\n'.repeat(30)}We were deploying on Friday when the cache fell over.\nThe hook useEffectOnce ran twice.\n`,
    })
    await publish(ada, {
      slug: 'zh-guide',
      title: '部署指南',
      content: '这是一个关于全文检索测试的文档。\n\n部署之前请检查日志。\n',
    })
    await publish(ada, {
      slug: 'recipes',
      title: 'Recipes',
      content: 'Bread, butter and a pinch of salt, mixed by the fooXbar helper.\n',
      type: 'txt',
    })
  })

  it('finds by words in any form, the title match ranked first, with snippets in segments around the matches', async () => {
    const found = await hits(ada, 'deploy')
    expect(slugs(found)).toEqual(['deploy-checklist', 'incident-notes'])
    const [best, second] = found
    expect(best?.version).toBe(1)
    expect(best?.score).toBeGreaterThan(second?.score ?? Number.POSITIVE_INFINITY)
    expect(best?.artifact).toMatchObject({ ownerUsername: ada.username, projectSlug: 'notes', slug: 'deploy-checklist', latestVersion: 1 })
    expect(marked(best)).toEqual([
      'title: [Deploy] checklist',
      'content: # [Deploy] checklist 1. Freeze the branch. 2. Run the migrations. 3. Watch ERR_CONN_RESET in the logs.',
    ])
    // "deploying" matched "deploy": the snippet shows the content around it, on the line it starts.
    expect(marked(second)).toEqual([expect.stringMatching(/^content: .*We were \[deploying\] on Friday when the cache fell over\./)])
    expect(second?.snippets[0]?.line).toBeGreaterThan(30)
    for (const hit of found) for (const s of hit.snippets) expect(s.segments.map((g) => g.text).join('')).not.toMatch(/<|&lt;/)
  })

  it('reads web-search syntax: all words, "phrases", -excluded, or', async () => {
    expect(slugs(await hits(ada, 'deploy friday'))).toEqual(['incident-notes'])
    expect(slugs(await hits(ada, '"run the migrations"'))).toEqual(['deploy-checklist'])
    expect(slugs(await hits(ada, '"migrations run"'))).toEqual([])
    expect(slugs(await hits(ada, 'deploy -cache'))).toEqual(['deploy-checklist'])
    expect(slugs(await hits(ada, 'bread or freeze')).sort()).toEqual(['deploy-checklist', 'recipes'])
    // Stop words alone find nothing; unbalanced syntax is no error.
    expect(await hits(ada, 'the')).toEqual([])
    expect((await search(ada, { q: '"unclosed -- or or - ( ) & | ! :*' })).statusCode).toBe(200)
  })

  it('finds identifiers and CJK text as substrings (the trigram index), and highlights them', async () => {
    expect(slugs(await hits(ada, 'ERR_CONN_RESET'))).toEqual(['deploy-checklist'])
    expect(slugs(await hits(ada, 'CONN_RESET'))).toEqual(['deploy-checklist'])
    expect(slugs(await hits(ada, 'err_conn_reset'))).toEqual(['deploy-checklist'])
    expect(slugs(await hits(ada, 'useEffect'))).toEqual(['incident-notes'])
    expect(marked((await hits(ada, 'useEffect'))[0])).toEqual([expect.stringContaining('The hook [useEffect]Once ran twice.')])
    expect(slugs(await hits(ada, '检索'))).toEqual(['zh-guide'])
    expect(slugs(await hits(ada, '部署'))).toEqual(['zh-guide'])
    expect(marked((await hits(ada, '部署'))[0])?.[0]).toBe('title: [部署]指南')
    expect(slugs(await hits(ada, '检索 -日志'))).toEqual([])
    expect(slugs(await hits(ada, 'ERR_CONN_RESET or 检索')).sort()).toEqual(['deploy-checklist', 'zh-guide'])
    // An underscore in a term is itself, not ILIKE's any-character.
    expect(slugs(await hits(ada, 'fooXbar'))).toEqual(['recipes'])
    expect(await hits(ada, 'foo_bar')).toEqual([])
  })

  it('ranks a substring term found in a title above one found in content only', async () => {
    const mei = await person('mei')
    await project(mei)
    await publish(mei, { slug: 'in-title', title: '部署指南', content: '这是文档。\n' })
    await publish(mei, { slug: 'in-content', title: '日志', content: '部署之前请检查日志。\n' })
    await publish(mei, { slug: 'id-in-title', title: 'The useEffectOnce hook', content: 'Notes.\n' })
    await publish(mei, { slug: 'id-in-content', title: 'Hooks', content: 'The useEffectOnce hook ran twice.\n' })
    const cjk = await hits(mei, '部署')
    expect(slugs(cjk)).toEqual(['in-title', 'in-content'])
    expect(cjk[0]?.score).toBeGreaterThan(cjk[1]?.score ?? Number.POSITIVE_INFINITY)
    expect(slugs(await hits(mei, 'useEffect'))).toEqual(['id-in-title', 'id-in-content'])
  })

  it('filters by owner, project, type and time changed', async () => {
    await project(ada, ada.username, 'other')
    await publish(ada, { slug: 'deploy-other', projectSlug: 'other', title: 'Deploy elsewhere', content: 'deploy', type: 'txt' })
    expect(slugs(await hits(ada, 'deploy', { project: `${ada.username}/other` }))).toEqual(['deploy-other'])
    expect(slugs(await hits(ada, 'deploy', { type: 'txt' }))).toEqual(['deploy-other'])
    expect(slugs(await hits(ada, 'deploy', { owner: ada.username })).length).toBe(3)
    expect(await hits(ada, 'deploy', { owner: 'nobody-here' })).toEqual([])
    expect(await hits(ada, 'deploy', { updatedAfter: new Date(Date.now() + 60_000).toISOString() })).toEqual([])
    expect((await hits(ada, 'deploy', { updatedAfter: '2020-01-01T00:00:00.000Z' })).length).toBe(3)
  })

  it('pages by score with full pages and no repeats; a cursor of another search is refused', async () => {
    const owner = await person('pager')
    await project(owner)
    for (let i = 0; i < 7; i++) {
      await publish(owner, { slug: `page-${i}`, title: `Note ${i}`, content: `${'lantern '.repeat(i + 1)}and more words` })
    }
    const seen: string[] = []
    let cursor: string | null = null
    let pages = 0
    do {
      const res = await search(owner, { q: 'lantern', limit: 3, ...(cursor ? { cursor } : {}) })
      expect(res.statusCode).toBe(200)
      const page: { items: SearchHit[]; nextCursor: string | null } = res.json()
      if (page.nextCursor) expect(page.items).toHaveLength(3)
      seen.push(...slugs(page.items))
      cursor = page.nextCursor
      pages++
    } while (cursor)
    expect(pages).toBe(3)
    expect(seen).toHaveLength(7)
    expect(new Set(seen).size).toBe(7)
    expect(seen).toEqual(slugs(await hits(owner, 'lantern', { limit: 100 })))
    const first = (await search(owner, { q: 'lantern', limit: 3 })).json()
    const other = await search(owner, { q: 'words', limit: 3, cursor: first.nextCursor })
    expect(other.statusCode).toBe(400)
    expect(other.json().code).toBe('invalid_cursor')
  })

  it('is fresh at commit: a new version, a restore, a deletion and an access change show in the very next search', async () => {
    const owner = await person('fresh')
    const reader = await person('reader')
    await project(owner)
    const art = await publish(owner, { slug: 'draft', title: 'Draft', content: 'The first idea: pelicans.', viewerEmails: [reader.email] })
    expect(slugs(await hits(reader, 'pelicans'))).toEqual(['draft'])
    await api.call('POST', `/api/artifacts/${art.id}/versions`, owner.token, {
      content: 'The second idea: flamingos.',
      changelog: 'second',
      expectedLatestVersion: 1,
    })
    expect(slugs(await hits(owner, 'flamingos'))).toEqual(['draft'])
    expect(await hits(owner, 'pelicans')).toEqual([])
    const old = await hits(owner, 'pelicans', { versions: 'all' })
    expect(old.map((h) => [h.artifact.slug, h.version, h.artifact.latestVersion])).toEqual([['draft', 1, 2]])
    expect(marked(old[0])).toEqual(['content: The first idea: [pelicans].'])
    // Both versions match: one hit, the newest of the best.
    expect((await hits(owner, 'idea', { versions: 'all' })).map((h) => h.version)).toEqual([2])
    await api.call('POST', `/api/artifacts/${art.id}/versions/1/restore`, owner.token, { changelog: 'back', expectedLatestVersion: 2 })
    expect((await hits(owner, 'pelicans')).map((h) => h.version)).toEqual([3])
    await api.call('PATCH', `/api/artifacts/${art.id}/access`, owner.token, { publicView: false, publicEdit: false, viewerEmails: [] })
    expect(await hits(reader, 'pelicans')).toEqual([])
    expect(slugs(await hits(owner, 'pelicans'))).toEqual(['draft'])
    await api.call('DELETE', `/api/artifacts/${art.id}`, owner.token)
    expect(await hits(owner, 'pelicans')).toEqual([])
    expect(await hits(owner, 'pelicans', { versions: 'all' })).toEqual([])
  })

  it('searches what the caller belongs to and was given, not what is merely public, and nothing of others', async () => {
    const owner = await person('sharer')
    const member = await person('member')
    const listed = await person('listed')
    const stranger = await person('stranger')
    const team = await api.call('POST', '/api/workspaces', owner.token, { slug: `crew-${n}`, name: 'Crew' })
    const invitation = await api.call('POST', `/api/workspaces/${team.id}/invitations`, owner.token, {
      email: member.email,
      role: 'member',
    })
    await api.call('POST', `/api/workspace-invitations/${invitation.id}/accept`, member.token)
    await project(owner, team.slug)
    await publish(owner, { ownerUsername: team.slug, slug: 'team-doc', title: 'Quokka plans', content: 'quokka' })
    await project(owner)
    await publish(owner, { slug: 'public-doc', title: 'Quokka public', content: 'quokka', publicView: true })
    await publish(owner, { slug: 'listed-doc', title: 'Quokka listed', content: 'quokka', viewerEmails: [listed.email] })
    expect(slugs(await hits(owner, 'quokka')).sort()).toEqual(['listed-doc', 'public-doc', 'team-doc'])
    expect(slugs(await hits(member, 'quokka'))).toEqual(['team-doc'])
    expect(slugs(await hits(listed, 'quokka'))).toEqual(['listed-doc'])
    expect(await hits(stranger, 'quokka')).toEqual([])
    // The public one is readable by the stranger, but not listed in the stranger's searches.
    expect((await api.request('GET', `/api/by-path/${owner.username}/notes/public-doc`, { token: stranger.token })).statusCode).toBe(200)
  })

  it('refuses what is not a search, never with a 500', async () => {
    const cases: [Record<string, string | number>, number, string][] = [
      [{}, 400, 'validation_failed'],
      [{ q: '' }, 400, 'validation_failed'],
      [{ q: '-only -excluded' }, 400, 'validation_failed'],
      [{ q: 'x'.repeat(257) }, 400, 'validation_failed'],
      [{ q: Array.from({ length: 17 }, (_, i) => `w${i}`).join(' ') }, 400, 'validation_failed'],
      [{ q: 'ok', project: 'no-slash' }, 400, 'validation_failed'],
      [{ q: 'ok', type: 'exe' }, 400, 'validation_failed'],
      [{ q: 'ok', versions: 'some' }, 400, 'validation_failed'],
      [{ q: 'ok', cursor: 'garbage' }, 400, 'invalid_cursor'],
      [{ q: 'a\u0000b' }, 400, 'validation_failed'],
    ]
    for (const [query, status, code] of cases) {
      const res = await search(ada, query)
      expect([JSON.stringify(query), res.statusCode, res.json().code]).toEqual([JSON.stringify(query), status, code])
    }
    const terms = await search(ada, { q: Array.from({ length: 17 }, (_, i) => `w${i}`).join(' ') })
    expect(terms.json().errors).toEqual([{ path: '/query/q', message: 'must hold at most 16 words or phrases' }])
  })

  it('lets an agent search as its person, capped by artifacts:read', async () => {
    const reader = await claimedAgent(api.runtime.deps, { userId: ada.userId, email: ada.email }, ['artifacts:read'])
    const found = await api.request('GET', '/api/search?q=checklist', { token: reader.token })
    expect([found.statusCode, slugs(found.json().items)]).toEqual([200, ['deploy-checklist']])
    const writer = await claimedAgent(api.runtime.deps, { userId: ada.userId, email: ada.email }, ['artifacts:create'])
    const refused = await api.request('GET', '/api/search?q=checklist', { token: writer.token })
    expect([refused.statusCode, refused.json().code]).toEqual([403, 'insufficient_scope'])
  })

  it('needs a signed-in caller with artifacts:read, acting for a person; searches are not audited', async () => {
    expect((await search(null, { q: 'deploy' })).statusCode).toBe(401)
    const limited = await api.user(`limited-${++n}@example.com`, ['artifacts:create'])
    const refused = await api.request('GET', '/api/search?q=deploy', { token: limited.token })
    expect([refused.statusCode, refused.json().code]).toEqual([403, 'insufficient_scope'])
    const before = await count(api, 'audit_events')
    await hits(ada, 'deploy')
    await hits(ada, 'checklist')
    expect(await count(api, 'audit_events')).toBe(before)
  })
})

describe(`searchArtifacts and the rate limit (${engine})`, () => {
  it("counts every search against the caller's budget, like any request", async () => {
    const limited = await startTestApi({ env: { RATE_LIMIT_MAX: '3' } })
    try {
      const user = await limited.user(`budget-${++n}@example.com`)
      const statuses: number[] = []
      for (let i = 0; i < 4; i++) statuses.push((await limited.request('GET', '/api/search?q=anything', { token: user.token })).statusCode)
      expect(statuses).toEqual([200, 200, 200, 429])
    } finally {
      await limited.close()
    }
  })
})
