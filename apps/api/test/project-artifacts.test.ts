import { createClient, isQuireApiError } from '@quire/client'
import { claimedAgent } from '@quire/testing/claimed-agent'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { engine, startTestApi, type TestApi } from './helper.ts'
import { join } from './operation-world.ts'

/**
 * `GET /api/projects/:owner/:projectSlug/artifacts` over the real app and database: the project
 * page's listing rule (members see every artifact; anyone else what they may read), paged as the
 * other lists, and one 404 for a project that does not exist and one where the caller may read
 * nothing. The typed client lists and pages it over real HTTP.
 */
let api: TestApi
let owner: { token: string; username: string; userId: string }
let member: { token: string; username: string; userId: string }
let stranger: { token: string }
let viewer: { token: string; userId: string }
let team: { id: string; slug: string }
/** Slugs of the artifacts of `team/guides`, newest first (the deleted one and those of `team/other` left out). */
const all = ['public-new', 'private-b', 'shared', 'private-a', 'public-old']
const viewerEmail = 'plist.viewer@example.com'

const listing = (path: string, token: string | null) => api.request('GET', path, { token })
const slugs = (body: { items: { slug: string }[] }) => body.items.map((a) => a.slug)

beforeAll(async () => {
  api = await startTestApi()
  owner = await api.user('plist.owner@example.com')
  member = await api.user('plist.member@example.com')
  stranger = await api.user('plist.stranger@example.com')
  viewer = await api.user(viewerEmail)
  team = await api.call('POST', '/api/workspaces', owner.token, { slug: 'plist-team', name: 'Project list team' })
  await join(api, owner.token, team.id, { ...member, email: 'plist.member@example.com' }, 'member')
  for (const slug of ['guides', 'other', 'secret'])
    await api.call('POST', '/api/projects', owner.token, { ownerUsername: team.slug, slug, title: slug, icon: 'p' })
  const create = (projectSlug: string, slug: string, access: Record<string, unknown>) =>
    api.call('POST', '/api/artifacts', owner.token, {
      ownerUsername: team.slug,
      projectSlug,
      slug,
      type: 'md',
      title: `Title of ${slug}`,
      content: `# ${slug}\n`,
      changelog: '',
      access: { publicView: false, publicEdit: false, ...access },
    })
  await create('guides', 'public-old', { publicView: true })
  await create('other', 'elsewhere', { publicView: true })
  await create('guides', 'private-a', {})
  await create('guides', 'shared', { viewerEmails: [viewerEmail.toUpperCase()] })
  const gone = await create('guides', 'deleted', { publicView: true })
  await api.call('DELETE', `/api/artifacts/${gone.id}`, owner.token)
  await create('guides', 'private-b', {})
  await create('guides', 'public-new', { publicView: true })
  await create('secret', 'hidden', { viewerEmails: [viewerEmail] })
})
afterAll(() => api?.close())

describe(`listProjectArtifacts over REST (${engine})`, () => {
  it("lists every live artifact of the project to its namespace's members, newest first, as listMyArtifacts shows them", async () => {
    for (const who of [owner, member]) {
      const res = await listing(`/api/projects/${team.slug}/guides/artifacts`, who.token)
      expect(res.statusCode).toBe(200)
      expect(slugs(res.json())).toEqual(all)
      expect(res.json().nextCursor).toBeNull()
    }
    // The same items, field for field, as the caller's own list gives them.
    const mine = (await api.call('GET', '/api/profile/artifacts', owner.token)).items as { projectSlug: string }[]
    const project = (await api.call('GET', `/api/projects/${team.slug}/guides/artifacts`, owner.token)).items
    expect(project).toEqual(mine.filter((a) => a.projectSlug === 'guides'))
  })

  it('pages with limit and cursor, each page the shape of the other lists', async () => {
    const seen: string[] = []
    let cursor: string | null = null
    let pages = 0
    do {
      const query: string = `limit=2${cursor ? `&cursor=${cursor}` : ''}`
      const res = await listing(`/api/projects/${team.slug}/guides/artifacts?${query}`, member.token)
      expect(res.statusCode).toBe(200)
      const page = res.json() as { items: { slug: string }[]; nextCursor: string | null }
      expect(Object.keys(page).sort()).toEqual(['items', 'nextCursor'])
      expect(page.items.length).toBeLessThanOrEqual(2)
      seen.push(...slugs(page))
      cursor = page.nextCursor
      pages++
    } while (cursor !== null)
    expect(seen).toEqual(all)
    expect(pages).toBe(3)
    const tooMany = await listing(`/api/projects/${team.slug}/guides/artifacts?limit=101`, member.token)
    expect(tooMany.statusCode).toBe(400)
    expect(tooMany.json().code).toBe('validation_failed')
    const forged = await listing(`/api/projects/${team.slug}/guides/artifacts?cursor=forged`, member.token)
    expect(forged.statusCode).toBe(400)
    expect(forged.json().code).toBe('invalid_cursor')
  })

  it('lists to anyone else what they may read: the public ones, and those allowlisting their verified email', async () => {
    const as = async (token: string | null) => slugs((await listing(`/api/projects/${team.slug}/guides/artifacts`, token)).json())
    expect(await as(null)).toEqual(['public-new', 'public-old'])
    expect(await as(stranger.token)).toEqual(['public-new', 'public-old'])
    expect(await as(viewer.token)).toEqual(['public-new', 'shared', 'public-old'])
    // Where only the allowlist lets them in, they see that one and nobody else sees the project.
    const secret = await listing(`/api/projects/${team.slug}/secret/artifacts`, viewer.token)
    expect(secret.statusCode).toBe(200)
    expect(slugs(secret.json())).toEqual(['hidden'])
  })

  it('answers a project where the caller may read nothing exactly as one that does not exist, cursor or not', async () => {
    const answer = async (path: string, token: string | null) => {
      const res = await listing(path, token)
      // Everything the caller can tell apart but the request's own id.
      const { requestId: _, ...problem } = res.json()
      return { status: res.statusCode, problem, challenge: res.headers['www-authenticate'] ?? null }
    }
    const cursor = (await api.call('GET', `/api/projects/${team.slug}/guides/artifacts?limit=1`, owner.token)).nextCursor as string
    for (const token of [stranger.token, null]) {
      const hidden = await answer(`/api/projects/${team.slug}/secret/artifacts`, token)
      expect(hidden.status).toBe(404)
      expect(hidden.problem.code).toBe('not_found')
      for (const path of [
        `/api/projects/${team.slug}/no-such-project/artifacts`,
        '/api/projects/nobody-at-all/secret/artifacts',
        `/api/projects/${team.slug}/secret/artifacts?cursor=${cursor}`,
      ])
        expect(await answer(path, token), path).toEqual(hidden)
    }
  })

  it('caps a key or an agent by its scopes: without artifacts:read, 403 insufficient_scope', async () => {
    const readOnly = await api.user('plist.owner@example.com', ['artifacts:read'])
    expect(slugs((await listing(`/api/projects/${team.slug}/guides/artifacts`, readOnly.token)).json())).toEqual(all)
    const writeOnly = await api.user('plist.owner@example.com', ['artifacts:create'])
    const strangerWriteOnly = await api.user('plist.stranger@example.com', ['artifacts:create'])
    for (const token of [writeOnly.token, strangerWriteOnly.token]) {
      const res = await listing(`/api/projects/${team.slug}/guides/artifacts`, token)
      expect(res.statusCode).toBe(403)
      expect(res.json()).toMatchObject({ code: 'insufficient_scope' })
    }
    const agent = await claimedAgent(api.runtime.deps, { userId: viewer.userId, email: viewerEmail }, ['artifacts:read'])
    expect(slugs((await listing(`/api/projects/${team.slug}/guides/artifacts`, agent.token)).json())).toEqual([
      'public-new',
      'shared',
      'public-old',
    ])
    const blindAgent = await claimedAgent(api.runtime.deps, { userId: viewer.userId, email: viewerEmail }, ['artifacts:create'])
    expect((await listing(`/api/projects/${team.slug}/guides/artifacts`, blindAgent.token)).json().code).toBe('insufficient_scope')
  })

  it('keeps the route its own: no namespace can be named like the slug check beside it', async () => {
    const res = await api.request('POST', '/api/workspaces', { token: owner.token, body: { slug: 'slug-availability', name: 'x' } })
    expect(res.statusCode).toBe(400)
  })
})

describe(`listProjectArtifacts through the typed client over HTTP (${engine})`, () => {
  it('lists and pages a project as every other list', async () => {
    const baseUrl = await api.app.listen({ port: 0, host: '127.0.0.1' })
    const client = createClient({ baseUrl, token: member.token })
    const page = await client.ops.listProjectArtifacts({ params: { owner: team.slug, projectSlug: 'guides' }, query: { limit: 2 } })
    expect(slugs(page)).toEqual(all.slice(0, 2))
    expect(page.nextCursor).toEqual(expect.any(String))
    const walked: string[] = []
    for await (const artifact of client.paginate('listProjectArtifacts', {
      params: { owner: team.slug, projectSlug: 'guides' },
      query: { limit: 2 },
    }))
      walked.push(artifact.slug)
    expect(walked).toEqual(all)
    const anonymous = createClient({ baseUrl })
    const hidden = await anonymous.ops.listProjectArtifacts({ params: { owner: team.slug, projectSlug: 'secret' } }).then(
      () => null,
      (error: unknown) => error,
    )
    expect(isQuireApiError(hidden, 'not_found')).toBe(true)
  })
})
