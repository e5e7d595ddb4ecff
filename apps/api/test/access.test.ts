import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { engine, seedArtifact, startTestApi, type TestApi } from './helper.ts'

let api: TestApi
beforeAll(async () => {
  api = await startTestApi()
})
afterAll(async () => {
  await api.close()
})

describe(`authentication and authorization at the edge (${engine})`, () => {
  it('hides private artifacts from strangers and anonymous callers (404, not 403)', async () => {
    const { artifact } = await seedArtifact(api)
    const stranger = await api.user('stranger@example.com')
    for (const token of [stranger.token, null]) {
      for (const url of [
        `/api/artifacts/${artifact.id}`,
        `/api/artifacts/${artifact.id}/content`,
        `/api/artifacts/${artifact.id}/versions`,
      ]) {
        const res = await api.request('GET', url, { token })
        expect(res.statusCode, url).toBe(404)
        expect(res.json()).toMatchObject({ code: 'not_found' })
      }
    }
  })

  it('lets anyone read a public artifact, but never lets anonymous callers write', async () => {
    const { artifact } = await seedArtifact(api, { publicView: true, publicEdit: true })
    expect((await api.request('GET', `/api/artifacts/${artifact.id}/content`)).statusCode).toBe(200)
    const anon = await api.request('POST', `/api/artifacts/${artifact.id}/versions`, { body: { content: 'x', expectedLatestVersion: 1 } })
    expect(anon.statusCode).toBe(401)
    expect(anon.headers['www-authenticate']).toContain('Bearer')
    const stranger = await api.user('editor@example.com')
    const edit = await api.request('POST', `/api/artifacts/${artifact.id}/versions`, {
      token: stranger.token,
      body: { content: 'x', expectedLatestVersion: 1 },
    })
    expect(edit.statusCode).toBe(201)
    const del = await api.request('DELETE', `/api/artifacts/${artifact.id}`, { token: stranger.token })
    expect(del.statusCode).toBe(403)
    expect(del.json()).toMatchObject({ code: 'forbidden' })
  })

  it('refuses an unknown or malformed credential with 401 invalid_token, even on public artifacts', async () => {
    const { artifact } = await seedArtifact(api, { publicView: true })
    for (const header of ['Bearer qk_unknown', 'Basic dXNlcjpwYXNz', 'Bearer']) {
      const res = await api.request('GET', `/api/artifacts/${artifact.id}`, { headers: { authorization: header } })
      expect(res.statusCode, header).toBe(401)
      expect(res.json()).toMatchObject({ code: 'invalid_token' })
      expect(res.headers['www-authenticate']).toContain('error="invalid_token"')
    }
  })

  it('names the missing scope (403 insufficient_scope with the RFC 6750 challenge)', async () => {
    const { owner, artifact } = await seedArtifact(api)
    const readOnly = await api.runtime.deps.credentials.find({ secretHash: 'none' })
    expect(readOnly).toBeNull()
    const { issueOperatorToken } = await import('@quire/core')
    const key = await issueOperatorToken(api.runtime.operator, { email: `${owner.username}@example.com`, scopes: ['artifacts:read'] })
    const read = await api.request('GET', `/api/artifacts/${artifact.id}`, { token: key.secret })
    expect(read.statusCode).toBe(200)
    const write = await api.request('POST', `/api/artifacts/${artifact.id}/versions`, {
      token: key.secret,
      body: { content: 'x', expectedLatestVersion: 1 },
    })
    expect(write.statusCode).toBe(403)
    expect(write.json()).toMatchObject({ code: 'insufficient_scope', scope: 'artifacts:update' })
    expect(write.headers['www-authenticate']).toBe(
      'Bearer realm="quire", resource_metadata="https://api.quire.test/.well-known/oauth-protected-resource", error="insufficient_scope", scope="artifacts:update"',
    )
  })

  it('stops a revoked key at once, even right after it was admitted to write', async () => {
    const { owner, artifact } = await seedArtifact(api)
    const first = await api.request('POST', `/api/artifacts/${artifact.id}/versions`, {
      token: owner.token,
      body: { content: 'v2', expectedLatestVersion: 1 },
    })
    expect(first.statusCode).toBe(201)
    await api.runtime.database.db.updateTable('credentials').set({ revoked_at: new Date() }).where('user_id', '=', owner.userId).execute()
    const second = await api.request('POST', `/api/artifacts/${artifact.id}/versions`, {
      token: owner.token,
      body: { content: 'v3', expectedLatestVersion: 2 },
    })
    expect(second.statusCode).toBe(401)
    expect(
      await api.runtime.database.db.selectFrom('versions').select('number').where('artifact_id', '=', artifact.id).execute(),
    ).toHaveLength(2)
  })

  it('stops a writer whose grant went away between two writes', async () => {
    const { owner, artifact } = await seedArtifact(api, { publicView: true, publicEdit: true })
    const editor = await api.user(`editor-${Math.random().toString(36).slice(2, 8)}@example.com`)
    const first = await api.request('POST', `/api/artifacts/${artifact.id}/versions`, {
      token: editor.token,
      body: { content: 'v2', expectedLatestVersion: 1 },
    })
    expect(first.statusCode).toBe(201)
    await api.runtime.database.db.updateTable('artifacts').set({ public_edit: false }).where('id', '=', artifact.id).execute()
    const second = await api.request('POST', `/api/artifacts/${artifact.id}/versions`, {
      token: editor.token,
      body: { content: 'v3', expectedLatestVersion: 2 },
    })
    expect(second.statusCode).toBe(403)
    const byOwner = await api.request('POST', `/api/artifacts/${artifact.id}/versions`, {
      token: owner.token,
      body: { content: 'v3', expectedLatestVersion: 2 },
    })
    expect(byOwner.statusCode).toBe(201)
  })

  it('stops a revoked key at once', async () => {
    const { owner, artifact } = await seedArtifact(api)
    expect((await api.request('GET', `/api/artifacts/${artifact.id}`, { token: owner.token })).statusCode).toBe(200)
    await api.runtime.database.db.updateTable('credentials').set({ revoked_at: new Date() }).where('user_id', '=', owner.userId).execute()
    const res = await api.request('GET', `/api/artifacts/${artifact.id}`, { token: owner.token })
    expect(res.statusCode).toBe(401)
    expect(res.json().detail).toContain('revoked')
  })

  it('requires a signed-in caller for account and namespace calls', async () => {
    expect((await api.request('GET', '/api/profile/artifacts')).statusCode).toBe(401)
    expect(
      (await api.request('POST', '/api/projects', { body: { ownerUsername: 'x', slug: 'y', title: 't', icon: 'i' } })).statusCode,
    ).toBe(401)
    const { owner } = await seedArtifact(api)
    const stranger = await api.user('outsider@example.com')
    const res = await api.request('POST', '/api/projects', {
      token: stranger.token,
      body: { ownerUsername: owner.username, slug: 'mine', title: 't', icon: 'i' },
    })
    expect(res.statusCode).toBe(404)
  })
})
