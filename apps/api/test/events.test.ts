/**
 * `GET /api/events` as JSON: one ordered stream of changes, derived from the audit write in the
 * change's own transaction, followed by artifact (id or path), project or workspace; a long poll
 * that answers as soon as a change commits; each event shown only to a follower who may read its
 * artifact at that moment. The stream form (SSE) is event-stream.test.ts.
 */
import type { ChangeEvent, EventBatch } from '@quire/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { engine, startTestApi, type TestApi } from './helper.ts'

let api: TestApi
beforeAll(async () => {
  api = await startTestApi()
})
afterAll(async () => {
  await api.close()
})

type User = Awaited<ReturnType<TestApi['user']>>

let n = 0
const person = (name: string, scopes?: Parameters<TestApi['user']>[1]): Promise<User> => api.user(`${name}-${++n}@events.test`, scopes)

async function project(owner: User, slug = 'notes', ownerUsername = owner.username) {
  await api.call('POST', '/api/projects', owner.token, { ownerUsername, slug, title: 'Notes', icon: 'n' })
}

async function publish(owner: User, slug: string, options: { publicView?: boolean; projectSlug?: string; ownerUsername?: string } = {}) {
  return (await api.call('POST', '/api/artifacts', owner.token, {
    ownerUsername: options.ownerUsername ?? owner.username,
    projectSlug: options.projectSlug ?? 'notes',
    slug,
    type: 'md',
    title: slug,
    content: `# ${slug}\n`,
    changelog: 'first',
    access: { publicView: options.publicView ?? false, publicEdit: false },
  })) as { id: string; latestVersion: number }
}

async function append(owner: User, artifactId: string, expected: number) {
  return api.call('POST', `/api/artifacts/${artifactId}/versions`, owner.token, {
    content: `version ${expected + 1}\n`,
    expectedLatestVersion: expected,
  })
}

function events(who: User | null, query: Record<string, string | number>) {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString()
  return api.request('GET', `/api/events?${qs}`, { token: who?.token ?? null })
}

async function batch(who: User, query: Record<string, string | number>): Promise<EventBatch> {
  const res = await events(who, query)
  if (res.statusCode !== 200) throw new Error(`events ${JSON.stringify(query)}: ${res.statusCode} ${res.body}`)
  return res.json()
}

const kinds = (list: readonly ChangeEvent[]) => list.map((e) => `${e.kind}${e.versionNumber === null ? '' : ` ${e.versionNumber}`}`)

describe(`listEvents (${engine})`, () => {
  it('names exactly one of artifact, project or workspace; refuses a malformed one with 400', async () => {
    const ada = await person('ada')
    const queries: Record<string, string>[] = [{}, { artifact: 'a/b/c', project: 'a/b' }, { artifact: 'no-slashes' }, { project: 'a/b/c' }]
    for (const query of queries) {
      const res = await events(ada, query)
      expect(res.statusCode, JSON.stringify(query)).toBe(400)
      expect(res.json().code).toBe('validation_failed')
    }
    expect((await events(ada, { workspace: 'ws_x', wait: 31 })).statusCode).toBe(400)
    expect((await events(null, { artifact: 'a/b/c' })).statusCode).toBe(401)
  })

  it('every kind a reader cares about, in order, by id and by path; thin events; from now on without after', async () => {
    const ada = await person('ada')
    await project(ada)
    const art = await publish(ada, 'plan')
    const start = await batch(ada, { artifact: art.id })
    expect(start.events).toEqual([])
    // Without `after`: from now on. The artifact's creation came before.
    const from = start.cursor
    await append(ada, art.id, 1)
    await api.call('POST', `/api/artifacts/${art.id}/versions/1/restore`, ada.token, {})
    await api.call('PATCH', `/api/artifacts/${art.id}/access`, ada.token, { publicView: true })
    const link = await api.call('POST', `/api/artifacts/${art.id}/share-links`, ada.token, {})
    await api.call('POST', `/api/share-links/${link.id}/revoke`, ada.token)
    // Writes that are not about the artifact's readers make no event (a project, a key).
    await project(ada, 'other')
    await api.call('POST', '/api/api-keys', ada.token, { name: 'k', scopes: ['artifacts:read'] })
    await api.call('DELETE', `/api/artifacts/${art.id}`, ada.token)

    const byId = await batch(ada, { artifact: art.id, after: from })
    expect(kinds(byId.events)).toEqual([
      'artifact.version_created 2',
      'artifact.restored 3',
      'artifact.access_changed',
      'share_link.created',
      'share_link.revoked',
      'artifact.deleted',
    ])
    const ids = byId.events.map((e) => Number(e.id))
    expect(ids).toEqual([...ids].sort((a, b) => a - b))
    expect(byId.cursor).toBe(byId.events.at(-1)?.id)
    expect(byId.more).toBe(false)
    const first = byId.events[0] as ChangeEvent
    expect(first).toEqual({
      id: expect.stringMatching(/^[1-9][0-9]*$/),
      kind: 'artifact.version_created',
      at: expect.any(String),
      artifactId: art.id,
      path: `${ada.username}/notes/plan`,
      projectId: expect.stringMatching(/^prj_/),
      workspaceId: expect.stringMatching(/^ws_/),
      versionNumber: 2,
      actor: { kind: 'user', id: ada.userId, label: ada.username },
    })
    // The whole life, from the start: its creation first. A deleted artifact is followed by id only.
    const whole = await batch(ada, { artifact: art.id, after: 0 })
    expect(kinds(whole.events)[0]).toBe('artifact.created 1')
    expect(whole.events).toHaveLength(7)
    expect((await events(ada, { artifact: `${ada.username}/notes/plan`, after: 0 })).statusCode).toBe(404)
    // Paged by `limit`, `more` says so; the cursor goes on.
    const page = await batch(ada, { artifact: art.id, after: 0, limit: 4 })
    expect(page.events).toHaveLength(4)
    expect(page.more).toBe(true)
    const rest = await batch(ada, { artifact: art.id, after: page.cursor })
    expect([...page.events, ...rest.events]).toEqual(whole.events)
  })

  it('follows a project and a workspace, members only; strangers get the same 404 as for nothing', async () => {
    const ada = await person('ada')
    const eve = await person('eve')
    await project(ada)
    await project(ada, 'elsewhere')
    const profile = await api.call('GET', '/api/profile/me', ada.token)
    const workspaceId: string = profile.personalWorkspaceId
    const p = await batch(ada, { project: `${ada.username}/notes` })
    const w = await batch(ada, { workspace: workspaceId })
    const a = await publish(ada, 'a')
    const b = await publish(ada, 'b', { projectSlug: 'elsewhere' })
    await append(ada, a.id, 1)
    const inProject = await batch(ada, { project: `${ada.username}/notes`, after: p.cursor })
    expect(inProject.events.map((e) => [e.artifactId, e.kind])).toEqual([
      [a.id, 'artifact.created'],
      [a.id, 'artifact.version_created'],
    ])
    const inWorkspace = await batch(ada, { workspace: workspaceId, after: w.cursor })
    expect(inWorkspace.events.map((e) => e.artifactId)).toEqual([a.id, b.id, a.id])
    const hidden: Record<string, string>[] = [
      { project: `${ada.username}/notes` },
      { project: `${ada.username}/nothing` },
      { workspace: workspaceId },
    ]
    for (const query of hidden) {
      const res = await events(eve, query)
      expect(res.statusCode, JSON.stringify(query)).toBe(404)
    }
    // A private artifact is a 404 to a stranger, by id or path; a public one may be followed.
    expect((await events(eve, { artifact: a.id })).statusCode).toBe(404)
    expect((await events(eve, { artifact: `${ada.username}/notes/a` })).statusCode).toBe(404)
    const open = await publish(ada, 'open', { publicView: true })
    expect((await events(eve, { artifact: open.id })).statusCode).toBe(200)
  })

  it('a long poll answers as soon as a change commits, and at the deadline with the same cursor when none came', async () => {
    const ada = await person('ada')
    await project(ada)
    const art = await publish(ada, 'plan')
    const now = await batch(ada, { artifact: art.id })
    const started = performance.now()
    const waiting = batch(ada, { artifact: art.id, after: now.cursor, wait: 20 })
    await new Promise((resolve) => setTimeout(resolve, 300))
    await append(ada, art.id, 1)
    const got = await waiting
    expect(kinds(got.events)).toEqual(['artifact.version_created 2'])
    expect(performance.now() - started).toBeLessThan(15_000)

    const quiet = performance.now()
    const none = await batch(ada, { artifact: art.id, after: got.cursor, wait: 1 })
    expect(none.events).toEqual([])
    expect(Number(none.cursor)).toBeGreaterThanOrEqual(Number(got.cursor))
    expect(performance.now() - quiet).toBeGreaterThanOrEqual(900)
  })

  it('an event reaches only a follower who may read its artifact at that moment; losing access ends the follow', async () => {
    const ada = await person('ada')
    const eve = await person('eve')
    await project(ada)
    const art = await publish(ada, 'open', { publicView: true })
    const now = await batch(eve, { artifact: art.id })
    // Eve waits; Ada makes it private, then writes: neither change may reach Eve.
    const waiting = batch(eve, { artifact: art.id, after: now.cursor, wait: 3 })
    await new Promise((resolve) => setTimeout(resolve, 200))
    await api.call('PATCH', `/api/artifacts/${art.id}/access`, ada.token, { publicView: false })
    await append(ada, art.id, 1)
    const got = await waiting
    expect(got.events).toEqual([])
    // The cursor went past what Eve may not see; the next call is refused as for any read.
    const next = await events(eve, { artifact: art.id, after: got.cursor })
    expect(next.statusCode).toBe(404)
    // A plain member of a team follows its project, but a deletion only reaches those who could delete.
    const owner = await person('owner')
    const member = await person('member')
    const ws = await api.call('POST', '/api/workspaces', owner.token, { slug: `team-${n}`, name: 'Team' })
    await project(owner, 'notes', ws.slug)
    const invitation = await api.call('POST', `/api/workspaces/${ws.id}/invitations`, owner.token, { email: `member-${n}@events.test` })
    await api.call('POST', `/api/workspace-invitations/${invitation.id}/accept`, member.token)
    const from = await batch(member, { project: `${ws.slug}/notes` })
    const doc = await publish(owner, 'doc', { ownerUsername: ws.slug })
    await api.call('DELETE', `/api/artifacts/${doc.id}`, owner.token)
    const seenByMember = await batch(member, { project: `${ws.slug}/notes`, after: from.cursor })
    const seenByOwner = await batch(owner, { project: `${ws.slug}/notes`, after: from.cursor })
    expect(kinds(seenByOwner.events)).toEqual(['artifact.created 1', 'artifact.deleted'])
    expect(seenByMember.events).toEqual([])
    expect(seenByMember.cursor).toBe(seenByOwner.cursor)
  })

  it('a revoked key gets 401; a key without artifacts:read gets 403; a cursor from the future is refused', async () => {
    const ada = await person('ada')
    await project(ada)
    const art = await publish(ada, 'plan')
    const key = await api.call('POST', '/api/api-keys', ada.token, { name: 'follower', scopes: ['artifacts:read'] })
    const other = await api.call('POST', '/api/api-keys', ada.token, { name: 'writer', scopes: ['artifacts:create'] })
    const follower = { ...ada, token: key.secret as string }
    const now = await batch(follower, { artifact: art.id })
    const refused = await events({ ...ada, token: other.secret }, { artifact: art.id })
    expect(refused.statusCode).toBe(403)
    expect(refused.json()).toMatchObject({ code: 'insufficient_scope', scope: 'artifacts:read' })
    const future = await events(ada, { artifact: art.id, after: Number(now.cursor) + 1000 })
    expect(future.statusCode).toBe(400)
    expect(future.json().code).toBe('invalid_cursor')
    await api.call('DELETE', `/api/api-keys/${key.id}`, ada.token)
    expect((await events(follower, { artifact: art.id, after: now.cursor })).statusCode).toBe(401)
  })
})
