import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { count, engine, startTestApi, type TestApi } from './helper.ts'

/**
 * Creating an artifact with access other than the default (private, no viewers) is an access
 * change: it needs exactly what `PATCH …/access` needs, the scope and the role, and nothing is
 * created without them.
 */

let api: TestApi
beforeAll(async () => {
  api = await startTestApi()
})
afterAll(() => api?.close())

const nonDefault = [
  { publicView: true, publicEdit: false },
  { publicView: false, publicEdit: true },
  { publicView: false, publicEdit: false, viewerEmails: ['someone@example.com'] },
  { publicView: true, publicEdit: true, viewerEmails: ['someone@example.com'] },
]

function createBody(owner: string, slug: string, access: object) {
  return { ownerUsername: owner, projectSlug: 'notes', slug, type: 'md', title: 'T', content: 'x', changelog: 'c', access }
}

/** A team workspace with a project, its owner, and a plain member (invited, accepted). */
async function team(name: string) {
  const owner = await api.user(`${name}.owner@example.com`)
  const member = await api.user(`${name}.member@example.com`)
  const ws = await api.call('POST', '/api/workspaces', owner.token, { slug: `${name}-team`, name })
  await api.call('POST', '/api/projects', owner.token, { ownerUsername: ws.slug, slug: 'notes', title: 'Notes', icon: 'n' })
  const invitation = await api.call('POST', `/api/workspaces/${ws.id}/invitations`, owner.token, { email: `${name}.member@example.com` })
  await api.call('POST', `/api/workspace-invitations/${invitation.id}/accept`, member.token)
  return { owner, member, ws }
}

describe(`access on create needs the right to change access (${engine})`, () => {
  it('a key with artifacts:create but not artifacts:access:write: 403 insufficient_scope, nothing created', async () => {
    const ada = await api.user('ada.create-only@example.com')
    await api.call('POST', '/api/projects', ada.token, { ownerUsername: ada.username, slug: 'notes', title: 'Notes', icon: 'n' })
    const createOnly = await api.call('POST', '/api/api-keys', ada.token, { name: 'create only', scopes: ['artifacts:create'] })
    const before = await count(api, 'artifacts')
    for (const [i, access] of nonDefault.entries()) {
      const refused = await api.request('POST', '/api/artifacts', {
        token: createOnly.secret,
        body: createBody(ada.username, `a${i}`, access),
      })
      expect(refused.statusCode, JSON.stringify(access)).toBe(403)
      expect(refused.json()).toMatchObject({ code: 'insufficient_scope', scope: 'artifacts:access:write' })
      expect(refused.json().detail).toContain('artifacts:access:write')
      expect(refused.headers['www-authenticate']).toContain('scope="artifacts:access:write"')
    }
    expect(await count(api, 'artifacts')).toBe(before)
    // The same change through PATCH …/access is refused the same way.
    const created = await api.call(
      'POST',
      '/api/artifacts',
      createOnly.secret,
      createBody(ada.username, 'private', { publicView: false, publicEdit: false }),
    )
    const patch = await api.request('PATCH', `/api/artifacts/${created.id}/access`, {
      token: createOnly.secret,
      body: { publicView: true },
    })
    expect(patch.statusCode).toBe(403)
    expect(patch.json().code).toBe('insufficient_scope')
    // With the scope it may: both ways.
    const both = await api.call('POST', '/api/api-keys', ada.token, {
      name: 'both',
      scopes: ['artifacts:create', 'artifacts:access:write'],
    })
    const open = await api.call('POST', '/api/artifacts', both.secret, createBody(ada.username, 'open', nonDefault[3] ?? {}))
    expect(open.access).toEqual({ publicView: true, publicEdit: true })
  })

  it('a plain workspace member: 403 forbidden naming what is missing, nothing created; owners may', async () => {
    const { owner, member, ws } = await team('members')
    const before = await count(api, 'artifacts')
    for (const [i, access] of nonDefault.entries()) {
      const refused = await api.request('POST', '/api/artifacts', { token: member.token, body: createBody(ws.slug, `m${i}`, access) })
      expect(refused.statusCode, JSON.stringify(access)).toBe(403)
      expect(refused.json().code).toBe('forbidden')
      expect(refused.json().detail).toMatch(/change access/)
    }
    expect(await count(api, 'artifacts')).toBe(before)
    // The member may create with the default access, and may not change it afterwards either.
    const mine = await api.call(
      'POST',
      '/api/artifacts',
      member.token,
      createBody(ws.slug, 'mine', { publicView: false, publicEdit: false }),
    )
    const patch = await api.request('PATCH', `/api/artifacts/${mine.id}/access`, { token: member.token, body: { publicView: true } })
    expect(patch.statusCode).toBe(403)
    expect(patch.json().code).toBe('forbidden')
    // An explicitly empty allowlist is the default.
    const empty = createBody(ws.slug, 'empty-list', { publicView: false, publicEdit: false, viewerEmails: [] })
    expect((await api.request('POST', '/api/artifacts', { token: member.token, body: empty })).statusCode).toBe(201)
    const byOwner = await api.call(
      'POST',
      '/api/artifacts',
      owner.token,
      createBody(ws.slug, 'public', { publicView: true, publicEdit: false }),
    )
    expect(byOwner.access.publicView).toBe(true)
  })

  it('an owner demoted between the check and the insert creates nothing (the insert re-checks the role)', async () => {
    const { member, ws } = await team('demoted')
    // Promote the member to admin directly, then create as admin while the role is taken away by
    // a concurrent change: the guard in the insert sees the role that is current when it runs.
    await api.runtime.database.db
      .updateTable('memberships')
      .set({ role: 'admin' })
      .where('workspace_id', '=', ws.id)
      .where('user_id', '=', member.userId)
      .execute()
    const body = createBody(ws.slug, 'race', { publicView: true, publicEdit: false })
    const ok = await api.request('POST', '/api/artifacts', { token: member.token, body })
    expect(ok.statusCode).toBe(201)
    const loaded = api.runtime.deps.artifacts
    const original = loaded.create.bind(loaded)
    // Demote just before the insert runs, as a racing request would.
    loaded.create = async (command) => {
      await api.runtime.database.db
        .updateTable('memberships')
        .set({ role: 'member' })
        .where('workspace_id', '=', ws.id)
        .where('user_id', '=', member.userId)
        .execute()
      return original(command)
    }
    try {
      const before = await count(api, 'artifacts')
      const raced = await api.request('POST', '/api/artifacts', { token: member.token, body: { ...body, slug: 'race-2' } })
      expect(raced.statusCode).toBe(403)
      expect(raced.json().code).toBe('forbidden')
      expect(await count(api, 'artifacts')).toBe(before)
    } finally {
      loaded.create = original
    }
  })
})
