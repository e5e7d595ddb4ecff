import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { engine, startTestApi, type TestApi } from './helper.ts'

let api: TestApi
let now = new Date('2026-11-23T10:00:00.000Z')
const clock = { now: () => now }
const days = (n: number) => n * 86_400_000

beforeAll(async () => {
  api = await startTestApi({ clock })
})
afterAll(() => api?.close())

async function actionsOf(url: string, token: string): Promise<string[]> {
  return (await api.call('GET', url, token)).items.map((e: { action: string }) => e.action)
}

describe(`the profile (${engine})`, () => {
  it('says who the credential acts for, with the personal workspace and its plan', async () => {
    const ada = await api.user('ada.profile@example.com')
    const me = await api.call('GET', '/api/profile/me', ada.token)
    expect(me).toMatchObject({
      id: ada.userId,
      email: 'ada.profile@example.com',
      emailVerified: true,
      username: ada.username,
      plan: 'free',
    })
    expect(me.personalWorkspaceId).toMatch(/^ws_/)
    expect(me.createdAt).toBe(now.toISOString())
  })

  it('setting the username renames the personal workspace and the URLs under it', async () => {
    const grace = await api.user('grace.rename@example.com')
    await api.call('POST', '/api/projects', grace.token, { ownerUsername: grace.username, slug: 'notes', title: 'Notes', icon: 'n' })
    const renamed = await api.call('PATCH', '/api/profile/me', grace.token, { username: 'admiral' })
    expect(renamed.username).toBe('admiral')
    const workspaces = (await api.call('GET', '/api/workspaces', grace.token)).items
    expect(workspaces.find((w: { kind: string }) => w.kind === 'personal')).toMatchObject({ slug: 'admiral', role: 'owner' })
    expect((await api.call('GET', '/api/by-path/admiral/notes', grace.token)).ownerUsername).toBe('admiral')
    expect((await api.request('GET', `/api/by-path/${grace.username}/notes`, { token: grace.token })).statusCode).toBe(404)
    const events = (await api.call('GET', '/api/audit-events', grace.token)).items
    expect(events[0]).toMatchObject({ action: 'profile.username_changed', data: { from: grace.username, to: 'admiral' } })
    // The same name again changes nothing and records nothing.
    await api.call('PATCH', '/api/profile/me', grace.token, { username: 'admiral' })
    expect((await api.call('GET', '/api/audit-events', grace.token)).items.length).toBe(events.length)
  })

  it('refuses a reserved or malformed name with 400 and a taken one with 409', async () => {
    const alan = await api.user('alan.names@example.com')
    const other = await api.user('other.names@example.com')
    const reserved = await api.request('PATCH', '/api/profile/me', { token: alan.token, body: { username: 'admin' } })
    expect(reserved.statusCode).toBe(400)
    expect(reserved.json()).toMatchObject({ code: 'validation_failed', errors: [{ path: '/body/username', message: 'is reserved' }] })
    const malformed = await api.request('PATCH', '/api/profile/me', { token: alan.token, body: { username: 'Not OK' } })
    expect(malformed.statusCode).toBe(400)
    const taken = await api.request('PATCH', '/api/profile/me', { token: alan.token, body: { username: other.username } })
    expect(taken.statusCode).toBe(409)
    expect(taken.json().code).toBe('slug_taken')
    await api.call('POST', '/api/workspaces', other.token, { slug: 'names-team', name: 'Team' })
    const teamName = await api.request('PATCH', '/api/profile/me', { token: alan.token, body: { username: 'names-team' } })
    expect(teamName.json().code).toBe('slug_taken')
  })

  it('refuses the web app’s top-level paths (dev-oidc, raw…) as usernames and workspaces, not as projects', async () => {
    const taker = await api.user('path.taker@example.com')
    for (const name of ['dev-oidc', 'raw', 'assets', 'oauth2', 's', 'mcp']) {
      const username = await api.request('PATCH', '/api/profile/me', { token: taker.token, body: { username: name } })
      expect(username.statusCode, name).toBe(400)
      expect(username.json(), name).toMatchObject({ errors: [{ path: '/body/username', message: 'is reserved' }] })
      const workspace = await api.request('POST', '/api/workspaces', { token: taker.token, body: { slug: name, name: 'No' } })
      expect(workspace.statusCode, name).toBe(400)
      // `/{owner}/{name}` is no page of the app: a project may be named so.
      const project = await api.request('GET', `/api/projects/slug-availability/${taker.username}/${name}`, { token: taker.token })
      expect(project.json(), name).toMatchObject({ available: true })
    }
    for (const name of ['status', 'docs', 'api', 'raw']) {
      const body = { ownerUsername: taker.username, slug: name, title: name, icon: 'x' }
      const created = await api.request('POST', '/api/projects', { token: taker.token, body })
      expect(created.statusCode, name).toBe(201)
      expect(created.json().url, name).toBe(`https://quire.test/${taker.username}/${name}`)
    }
  })

  it('two users racing for one name: exactly one gets it', async () => {
    const racers = await Promise.all(Array.from({ length: 8 }, (_, i) => api.user(`racer-${i}@example.com`)))
    const results = await Promise.all(
      racers.map((r) => api.request('PATCH', '/api/profile/me', { token: r.token, body: { username: 'the-one' } })),
    )
    expect(results.filter((r) => r.statusCode === 200)).toHaveLength(1)
    expect(results.filter((r) => r.statusCode === 409 && r.json().code === 'slug_taken')).toHaveLength(7)
  })
})

describe(`workspaces, members and invitations (${engine})`, () => {
  let owner: { token: string; username: string; userId: string }
  let team: { id: string; slug: string }

  beforeAll(async () => {
    owner = await api.user('owner.team@example.com')
    team = await api.call('POST', '/api/workspaces', owner.token, { slug: 'acme', name: 'Acme' })
  })

  it('creates a team workspace with the caller as owner, on the free plan', async () => {
    expect(team).toMatchObject({ slug: 'acme', name: 'Acme', kind: 'team', plan: 'free', role: 'owner' })
    const mine = (await api.call('GET', '/api/workspaces', owner.token)).items.map((w: { slug: string }) => w.slug)
    expect(mine).toEqual(expect.arrayContaining([owner.username, 'acme']))
    const members = (await api.call('GET', `/api/workspaces/${team.id}/members`, owner.token)).items
    expect(members).toEqual([expect.objectContaining({ userId: owner.userId, role: 'owner', email: 'owner.team@example.com' })])
    const taken = await api.request('POST', '/api/workspaces', { token: owner.token, body: { slug: 'acme', name: 'Again' } })
    expect(taken.json().code).toBe('slug_taken')
    const reserved = await api.request('POST', '/api/workspaces', { token: owner.token, body: { slug: 'settings', name: 'No' } })
    expect(reserved.statusCode).toBe(400)
  })

  it('an invitation is accepted by the verified owner of its email, once, and nobody else', async () => {
    const bea = await api.user('bea.invited@example.com')
    const eve = await api.user('eve.intruder@example.com')
    const invitation = await api.call('POST', `/api/workspaces/${team.id}/invitations`, owner.token, { email: 'Bea.Invited@Example.com' })
    expect(invitation).toMatchObject({ email: 'bea.invited@example.com', role: 'member', status: 'pending', workspaceSlug: 'acme' })
    const again = await api.request('POST', `/api/workspaces/${team.id}/invitations`, {
      token: owner.token,
      body: { email: 'bea.invited@example.com' },
    })
    expect(again.statusCode).toBe(409)
    expect(again.json().code).toBe('invitation_pending')

    expect((await api.call('GET', '/api/profile/invitations', bea.token)).items.map((i: { id: string }) => i.id)).toEqual([invitation.id])
    expect((await api.call('GET', '/api/profile/invitations', eve.token)).items).toEqual([])
    const stolen = await api.request('POST', `/api/workspace-invitations/${invitation.id}/accept`, { token: eve.token })
    expect(stolen.statusCode).toBe(404)
    // Before joining, Bea cannot see the workspace at all.
    expect((await api.request('GET', `/api/workspaces/${team.id}/members`, { token: bea.token })).statusCode).toBe(404)

    const accepted = await api.call('POST', `/api/workspace-invitations/${invitation.id}/accept`, bea.token)
    expect(accepted).toMatchObject({ status: 'accepted' })
    expect(await api.call('POST', `/api/workspace-invitations/${invitation.id}/accept`, bea.token)).toMatchObject({ status: 'accepted' })
    const members = (await api.call('GET', `/api/workspaces/${team.id}/members`, bea.token)).items
    expect(members.map((m: { email: string; role: string }) => [m.email, m.role])).toEqual(
      expect.arrayContaining([
        ['owner.team@example.com', 'owner'],
        ['bea.invited@example.com', 'member'],
      ]),
    )
    expect((await api.call('GET', '/api/profile/invitations', bea.token)).items).toEqual([])
    const twice = await api.request('POST', `/api/workspaces/${team.id}/invitations`, {
      token: owner.token,
      body: { email: 'bea.invited@example.com' },
    })
    expect(twice.json().code).toBe('already_member')
    // A member may not invite; the invitation list is for owners and admins.
    const byMember = await api.request('POST', `/api/workspaces/${team.id}/invitations`, {
      token: bea.token,
      body: { email: 'x@example.com' },
    })
    expect(byMember.statusCode).toBe(403)
    expect((await api.request('GET', `/api/workspaces/${team.id}/invitations`, { token: bea.token })).statusCode).toBe(403)
    // One event per change, in the workspace's trail.
    const trail = await actionsOf(`/api/workspaces/${team.id}/audit-events`, owner.token)
    expect(trail.filter((a) => a === 'workspace.member_joined')).toHaveLength(1)
    expect(trail).toContain('workspace.invitation_created')
    expect(trail).toContain('workspace.created')
  })

  it('an admin invites too; a revoked or expired invitation cannot be accepted', async () => {
    const carl = await api.user('carl.admin@example.com')
    const dana = await api.user('dana.late@example.com')
    const fred = await api.user('fred.revoked@example.com')
    const asAdmin = await api.call('POST', `/api/workspaces/${team.id}/invitations`, owner.token, {
      email: 'carl.admin@example.com',
      role: 'admin',
    })
    await api.call('POST', `/api/workspace-invitations/${asAdmin.id}/accept`, carl.token)
    const forFred = await api.call('POST', `/api/workspaces/${team.id}/invitations`, carl.token, { email: 'fred.revoked@example.com' })
    const revoked = await api.call('POST', `/api/workspace-invitations/${forFred.id}/revoke`, carl.token)
    expect(revoked).toMatchObject({ status: 'revoked' })
    expect(await api.call('POST', `/api/workspace-invitations/${forFred.id}/revoke`, owner.token)).toMatchObject({
      status: 'revoked',
      revokedAt: revoked.revokedAt,
    })
    expect((await api.request('POST', `/api/workspace-invitations/${forFred.id}/accept`, { token: fred.token })).statusCode).toBe(404)
    const trail = await actionsOf(`/api/workspaces/${team.id}/audit-events`, owner.token)
    expect(trail.filter((a) => a === 'workspace.invitation_revoked')).toHaveLength(1)

    const forDana = await api.call('POST', `/api/workspaces/${team.id}/invitations`, carl.token, { email: 'dana.late@example.com' })
    now = new Date(now.getTime() + days(15))
    expect((await api.request('POST', `/api/workspace-invitations/${forDana.id}/accept`, { token: dana.token })).statusCode).toBe(404)
    const listed = (await api.call('GET', `/api/workspaces/${team.id}/invitations`, owner.token)).items
    expect(listed.find((i: { id: string }) => i.id === forDana.id)).toMatchObject({ status: 'expired' })
    // Expired, it no longer blocks a new invitation to the same email.
    const fresh = await api.call('POST', `/api/workspaces/${team.id}/invitations`, carl.token, { email: 'dana.late@example.com' })
    expect((await api.call('POST', `/api/workspace-invitations/${fresh.id}/accept`, dana.token)).status).toBe('accepted')
  })

  it('members list the workspace projects; outsiders get 404', async () => {
    const outsider = await api.user('outsider.projects@example.com')
    await api.call('POST', '/api/projects', owner.token, { ownerUsername: 'acme', slug: 'handbook', title: 'Handbook', icon: 'h' })
    const projects = (await api.call('GET', `/api/workspaces/${team.id}/projects`, owner.token)).items
    expect(projects.map((p: { slug: string }) => p.slug)).toContain('handbook')
    expect((await api.request('GET', `/api/workspaces/${team.id}/projects`, { token: outsider.token })).statusCode).toBe(404)
    expect((await api.request('GET', '/api/workspaces/ws_01jc0000000000000000000000/projects', { token: owner.token })).statusCode).toBe(
      404,
    )
  })

  describe('the workspace artifacts', () => {
    let docs: { id: string; slug: string }
    let mia: { token: string; username: string; userId: string }
    /** Slugs as `project/slug`, in the order they were created. */
    const created: string[] = []

    async function artifact(ownerUsername: string, projectSlug: string, slug: string): Promise<{ id: string }> {
      return api.call('POST', '/api/artifacts', owner.token, {
        ownerUsername,
        projectSlug,
        slug,
        type: 'md',
        title: slug,
        content: `# ${slug}\n`,
        changelog: '',
        access: { publicView: false, publicEdit: false },
      })
    }

    async function listed(
      token: string,
      query = '',
    ): Promise<{ items: { projectSlug: string; slug: string }[]; nextCursor: string | null }> {
      return api.call('GET', `/api/workspaces/${docs.id}/artifacts${query}`, token)
    }

    beforeAll(async () => {
      docs = await api.call('POST', '/api/workspaces', owner.token, { slug: 'acme-docs', name: 'Acme docs' })
      mia = await api.user('mia.artifacts@example.com')
      const invitation = await api.call('POST', `/api/workspaces/${docs.id}/invitations`, owner.token, {
        email: 'mia.artifacts@example.com',
      })
      await api.call('POST', `/api/workspace-invitations/${invitation.id}/accept`, mia.token)
      for (const slug of ['guides', 'specs']) {
        await api.call('POST', '/api/projects', owner.token, { ownerUsername: 'acme-docs', slug, title: slug, icon: 'd' })
      }
      for (const [project, slug] of [
        ['guides', 'start'],
        ['specs', 'api'],
        ['guides', 'deploy'],
        ['specs', 'storage'],
        ['guides', 'faq'],
      ] as const) {
        await artifact('acme-docs', project, slug)
        created.push(`${project}/${slug}`)
      }
      // Another workspace of the same owner: its artifacts are not this workspace's.
      await api.call('POST', '/api/projects', owner.token, { ownerUsername: 'acme', slug: 'elsewhere', title: 'Elsewhere', icon: 'e' })
      await artifact('acme', 'elsewhere', 'not-listed')
    })

    it('a member sees the artifacts of every project of the workspace, newest first, and no deleted one', async () => {
      const all = await listed(mia.token)
      expect(all.nextCursor).toBeNull()
      expect(all.items.map((a) => `${a.projectSlug}/${a.slug}`)).toEqual([...created].reverse())
      expect(all.items[0]).toMatchObject({ ownerUsername: 'acme-docs', projectSlug: 'guides', slug: 'faq', latestVersion: 1 })

      const doomed = await artifact('acme-docs', 'specs', 'doomed')
      expect((await listed(mia.token)).items.map((a) => a.slug)).toContain('doomed')
      await api.call('DELETE', `/api/artifacts/${doomed.id}`, owner.token)
      expect((await listed(mia.token)).items.map((a) => `${a.projectSlug}/${a.slug}`)).toEqual([...created].reverse())
    })

    it('walks every page once, without duplicates, and refuses a cursor it did not issue', async () => {
      const seen: string[] = []
      let cursor: string | null = null
      let pages = 0
      do {
        const page = await listed(mia.token, `?limit=2${cursor ? `&cursor=${cursor}` : ''}`)
        expect(page.items.length).toBeLessThanOrEqual(2)
        seen.push(...page.items.map((a) => `${a.projectSlug}/${a.slug}`))
        cursor = page.nextCursor
        pages++
      } while (cursor)
      expect(pages).toBe(3)
      expect(new Set(seen).size).toBe(seen.length)
      expect(seen).toEqual([...created].reverse())
      const tampered = await api.request('GET', `/api/workspaces/${docs.id}/artifacts?cursor=bm9wZQ`, { token: mia.token })
      expect(tampered.statusCode).toBe(400)
      expect(tampered.json()).toMatchObject({ code: 'invalid_cursor' })
    })

    it('a stranger gets 404 not_found, as for a workspace that does not exist', async () => {
      const stranger = await api.user('stranger.artifacts@example.com')
      const hidden = await api.request('GET', `/api/workspaces/${docs.id}/artifacts`, { token: stranger.token })
      expect(hidden.statusCode).toBe(404)
      expect(hidden.json()).toMatchObject({ code: 'not_found' })
      const projects = await api.request('GET', `/api/workspaces/${docs.id}/projects`, { token: stranger.token })
      expect(hidden.json().detail).toBe(projects.json().detail)
      const missing = await api.request('GET', '/api/workspaces/ws_01jc0000000000000000000000/artifacts', { token: owner.token })
      expect(missing.statusCode).toBe(404)
      expect(missing.json()).toMatchObject({ code: 'not_found', detail: hidden.json().detail })
    })

    it('a key without artifacts:read gets 403 insufficient_scope', async () => {
      const key = await api.user('owner.team@example.com', ['artifacts:create', 'artifacts:update'])
      const refused = await api.request('GET', `/api/workspaces/${docs.id}/artifacts`, { token: key.token })
      expect(refused.statusCode).toBe(403)
      expect(refused.json()).toMatchObject({ code: 'insufficient_scope', scope: 'artifacts:read' })
      const reader = await api.user('owner.team@example.com', ['artifacts:read'])
      expect((await listed(reader.token)).items).toHaveLength(created.length)
    })
  })
})
