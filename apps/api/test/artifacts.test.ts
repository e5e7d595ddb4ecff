import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { engine, seedArtifact, startTestApi, type TestApi } from './helper.ts'

let api: TestApi
beforeAll(async () => {
  api = await startTestApi()
})
afterAll(async () => {
  await api.close()
})

describe(`artifacts and projects (${engine})`, () => {
  it('creates a project and an artifact, resolvable by id and by path', async () => {
    const { owner, artifact } = await seedArtifact(api, { email: 'grace@example.com' })
    expect(owner.username).toBe('grace')
    const byId = await api.request('GET', `/api/artifacts/${artifact.id}`, { token: owner.token })
    expect(byId.statusCode).toBe(200)
    expect(byId.json()).toMatchObject({
      id: artifact.id,
      ownerUsername: 'grace',
      projectSlug: 'notes',
      slug: 'hello',
      type: 'md',
      access: { publicView: false, publicEdit: false },
      latestVersion: 1,
      url: 'https://quire.test/grace/notes/hello',
      createdBy: { kind: 'user', label: 'grace' },
    })
    const byPath = await api.request('GET', '/api/by-path/grace/notes/hello', { token: owner.token })
    expect(byPath.json()).toEqual(byId.json())
    const project = await api.request('GET', '/api/by-path/grace/notes', { token: owner.token })
    expect(project.json()).toMatchObject({
      ownerUsername: 'grace',
      slug: 'notes',
      title: 'Notes',
      icon: '📝',
      url: 'https://quire.test/grace/notes',
    })
  })

  it('answers create with 201 and a Location, and a duplicate slug with 409 slug_taken', async () => {
    const { owner } = await seedArtifact(api)
    const body = {
      ownerUsername: owner.username,
      projectSlug: 'notes',
      slug: 'second',
      type: 'txt',
      title: 'Second',
      content: 'x',
      changelog: 'c',
      access: { publicView: false, publicEdit: false },
    }
    const created = await api.request('POST', '/api/artifacts', { token: owner.token, body })
    expect(created.statusCode).toBe(201)
    expect(created.headers.location).toBe(`/api/artifacts/${created.json().id}`)
    const again = await api.request('POST', '/api/artifacts', { token: owner.token, body })
    expect(again.statusCode).toBe(409)
    expect(again.json()).toMatchObject({ code: 'slug_taken' })
    const project = await api.request('POST', '/api/projects', {
      token: owner.token,
      body: { ownerUsername: owner.username, slug: 'notes', title: 'x', icon: 'x' },
    })
    expect(project.statusCode).toBe(409)
    expect(project.json()).toMatchObject({ code: 'slug_taken', suggestions: ['x', 'notes-x', 'notes-2'] })
  })

  it('offers free project slugs instead of a taken one: from the title, then numbered, each checked free', async () => {
    const { owner } = await seedArtifact(api)
    const create = (slug: string, title: string) =>
      api.request('POST', '/api/projects', { token: owner.token, body: { ownerUsername: owner.username, slug, title, icon: 'x' } })
    expect((await create('status', 'Status')).statusCode).toBe(201)
    expect((await create('status-2', 'Status')).statusCode).toBe(201)
    const again = await create('status', 'Status reports')
    expect(again.statusCode).toBe(409)
    expect(again.json()).toMatchObject({ code: 'slug_taken', suggestions: ['status-reports', 'status-3', 'status-4'] })
    for (const slug of again.json().suggestions) expect((await create(slug, 'Free')).statusCode, slug).toBe(201)
    const availability = await api.request('GET', `/api/projects/slug-availability/${owner.username}/status`, { token: owner.token })
    expect(availability.json()).toEqual({
      ownerUsername: owner.username,
      slug: 'status',
      available: false,
      reason: 'taken',
      suggestions: ['status-5', 'status-6', 'status-7'],
    })
  })

  it('tells slug availability and previews URLs', async () => {
    const { owner } = await seedArtifact(api, { email: 'linus@example.com' })
    const taken = await api.request('GET', '/api/artifacts/slug-availability/linus/notes/hello', { token: owner.token })
    expect(taken.json()).toEqual({
      ownerUsername: 'linus',
      projectSlug: 'notes',
      slug: 'hello',
      available: false,
      reason: 'taken',
      suggestions: ['hello-2', 'hello-3', 'hello-4'],
    })
    const free = await api.request('GET', '/api/artifacts/slug-availability/linus/notes/fresh', { token: owner.token })
    expect(free.json()).toMatchObject({ available: true })
    const invalid = await api.request('GET', '/api/artifacts/slug-availability/linus/notes/Not_Valid', { token: owner.token })
    expect(invalid.json()).toMatchObject({ available: false, reason: 'invalid' })
    const preview = await api.request('GET', '/api/slug-preview/linus/notes/fresh', { token: owner.token })
    expect(preview.json()).toEqual({
      url: 'https://quire.test/linus/notes/fresh',
      ownerUsername: 'linus',
      projectSlug: 'notes',
      slug: 'fresh',
      available: true,
    })
    const projectTaken = await api.request('GET', '/api/projects/slug-availability/linus/notes', { token: owner.token })
    expect(projectTaken.json()).toMatchObject({ available: false, reason: 'taken', suggestions: ['notes-2', 'notes-3', 'notes-4'] })
    // A project is not a username: `/linus/settings` is no page of the app.
    const settings = await api.request('GET', '/api/projects/slug-availability/linus/settings', { token: owner.token })
    expect(settings.json()).toEqual({ ownerUsername: 'linus', slug: 'settings', available: true })
    const invalidProject = await api.request('GET', '/api/projects/slug-availability/linus/Not_Valid', { token: owner.token })
    expect(invalidProject.json()).toEqual({ ownerUsername: 'linus', slug: 'Not_Valid', available: false, reason: 'invalid' })
    const noProject = await api.request('GET', '/api/artifacts/slug-availability/linus/nope/x', { token: owner.token })
    expect(noProject.statusCode).toBe(404)
  })

  it('lists my artifacts and projects newest first, with cursors', async () => {
    const { owner } = await seedArtifact(api)
    for (const slug of ['b', 'c', 'd']) {
      const r = await api.request('POST', '/api/artifacts', {
        token: owner.token,
        body: {
          ownerUsername: owner.username,
          projectSlug: 'notes',
          slug,
          type: 'md',
          title: slug,
          content: slug,
          changelog: '',
          access: { publicView: false, publicEdit: false },
        },
      })
      expect(r.statusCode).toBe(201)
    }
    const first = await api.request('GET', '/api/profile/artifacts?limit=3', { token: owner.token })
    const page1 = first.json() as { items: { slug: string }[]; nextCursor: string }
    expect(page1.items.map((a) => a.slug)).toEqual(['d', 'c', 'b'])
    const second = await api.request('GET', `/api/profile/artifacts?limit=3&cursor=${page1.nextCursor}`, { token: owner.token })
    expect(second.json()).toMatchObject({ items: [{ slug: 'hello' }], nextCursor: null })
    const projects = await api.request('GET', '/api/profile/projects', { token: owner.token })
    expect(projects.json()).toMatchObject({ items: [{ slug: 'notes' }], nextCursor: null })
  })

  it("pages my artifacts across all my workspaces, merged newest first, without anyone else's or the deleted ones", async () => {
    const { owner, artifact: first } = await seedArtifact(api)
    const team = `team-${Math.random().toString(36).slice(2, 8)}`
    await api.call('POST', '/api/workspaces', owner.token, { slug: team, name: 'Team' })
    await api.call('POST', '/api/projects', owner.token, { ownerUsername: team, slug: 'shared', title: 'Shared', icon: 's' })
    const stranger = await seedArtifact(api)
    const make = async (token: string, ownerUsername: string, projectSlug: string, slug: string) =>
      (
        (await api.call('POST', '/api/artifacts', token, {
          ownerUsername,
          projectSlug,
          slug,
          type: 'md',
          title: slug,
          content: slug,
          changelog: '',
          access: { publicView: false, publicEdit: false },
        })) as { id: string }
      ).id
    // Mine alternate between my two workspaces; someone else's are made in between and after.
    const mine = [first.id]
    for (let i = 0; i < 6; i++) {
      mine.push(await make(owner.token, i % 2 === 0 ? team : owner.username, i % 2 === 0 ? 'shared' : 'notes', `m${i}`))
      await make(stranger.owner.token, stranger.owner.username, 'notes', `s${i}`)
    }
    const deleted = mine.splice(3, 1)[0] as string
    await api.call('DELETE', `/api/artifacts/${deleted}`, owner.token)
    const seen: string[] = []
    let cursor: string | null = null
    for (let page = 0; page < 10; page++) {
      const body = (await api.call('GET', `/api/profile/artifacts?limit=2${cursor ? `&cursor=${cursor}` : ''}`, owner.token)) as {
        items: { id: string }[]
        nextCursor: string | null
      }
      expect(body.items.length).toBeLessThanOrEqual(2)
      seen.push(...body.items.map((a) => a.id))
      cursor = body.nextCursor
      if (cursor === null) break
    }
    expect(cursor).toBeNull()
    expect(seen).toEqual([...mine].reverse())
  })

  it('soft-deletes: the artifact disappears, its slug is free again, its history stays', async () => {
    const { owner, artifact } = await seedArtifact(api)
    const del = await api.request('DELETE', `/api/artifacts/${artifact.id}`, { token: owner.token })
    expect(del.statusCode).toBe(200)
    expect(del.json()).toMatchObject({ id: artifact.id })
    expect((await api.request('GET', `/api/artifacts/${artifact.id}`, { token: owner.token })).statusCode).toBe(404)
    expect((await api.request('GET', `/api/artifacts/${artifact.id}/content`, { token: owner.token })).statusCode).toBe(404)
    expect((await api.request('DELETE', `/api/artifacts/${artifact.id}`, { token: owner.token })).statusCode).toBe(404)
    const events = await api.runtime.database.db
      .selectFrom('audit_events')
      .select('action')
      .where('artifact_id', '=', artifact.id)
      .orderBy('id')
      .execute()
    expect(events.map((e) => e.action)).toEqual(['artifact.created', 'artifact.deleted'])
    const versions = await api.runtime.database.db.selectFrom('versions').select('number').where('artifact_id', '=', artifact.id).execute()
    expect(versions).toHaveLength(1)
    const free = await api.request('GET', `/api/artifacts/slug-availability/${owner.username}/notes/hello`, { token: owner.token })
    expect(free.json()).toMatchObject({ available: true })
  })

  it('records who did what, with which credential and through which surface', async () => {
    const { owner, artifact } = await seedArtifact(api)
    await api.request('POST', `/api/artifacts/${artifact.id}/versions`, {
      token: owner.token,
      body: { content: 'v2', expectedLatestVersion: 1 },
      headers: { 'quire-client': 'cli/0.1.0' },
    })
    const events = await api.runtime.database.db
      .selectFrom('audit_events')
      .selectAll()
      .where('artifact_id', '=', artifact.id)
      .orderBy('id')
      .execute()
    expect(events).toHaveLength(2)
    const key = await api.runtime.database.db
      .selectFrom('credentials')
      .select('id')
      .where('user_id', '=', owner.userId)
      .executeTakeFirstOrThrow()
    expect(events[0]).toMatchObject({
      action: 'artifact.created',
      actor_kind: 'user',
      actor_id: owner.userId,
      via_surface: 'api',
      via_credential: 'api_key',
      via_credential_id: key.id,
    })
    expect(events[1]).toMatchObject({ action: 'artifact.version_created', via_surface: 'cli', via_credential_id: key.id })
    expect(events[1]?.data).toMatchObject({ versionNumber: 2 })
  })
})
