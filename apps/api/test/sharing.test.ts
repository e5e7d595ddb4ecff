import { timeoutFor, until } from '@quire/testing/waits'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { engine, seedArtifact, startTestApi, type TestApi } from './helper.ts'

let api: TestApi
let now = new Date('2026-11-22T10:00:00.000Z')
const clock = { now: () => now }
beforeAll(async () => {
  api = await startTestApi({ clock })
})
afterAll(async () => {
  await api.close()
})

const unique = (name: string) => `${name}-${Math.random().toString(36).slice(2, 8)}@example.com`

async function events(artifactId: string, token: string) {
  const res = await api.request('GET', `/api/audit-events?artifactId=${artifactId}`, { token })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().items as { action: string; actor: { kind: string; id: string }; via: { credential: string; credentialId: string } }[]
}

describe(`access settings (${engine})`, () => {
  it('are private by default, and PATCH changes only the fields sent, audited', async () => {
    const { owner, artifact } = await seedArtifact(api)
    const initial = await api.request('GET', `/api/artifacts/${artifact.id}/access`, { token: owner.token })
    expect(initial.statusCode).toBe(200)
    expect(initial.json()).toMatchObject({ artifactId: artifact.id, publicView: false, publicEdit: false, viewerEmails: [] })

    const patched = await api.request('PATCH', `/api/artifacts/${artifact.id}/access`, {
      token: owner.token,
      body: { viewerEmails: ['Reader@Example.com'] },
    })
    expect(patched.statusCode, patched.body).toBe(200)
    expect(patched.json()).toMatchObject({ publicView: false, publicEdit: false, viewerEmails: ['reader@example.com'] })
    const again = await api.request('PATCH', `/api/artifacts/${artifact.id}/access`, { token: owner.token, body: { publicView: true } })
    expect(again.json()).toMatchObject({ publicView: true, viewerEmails: ['reader@example.com'] })

    const changes = (await events(artifact.id, owner.token)).filter((e) => e.action === 'artifact.access_changed')
    expect(changes).toHaveLength(2)
    expect(changes[0]?.via.credential).toBe('api_key')
  })

  it('publicView lets anyone read; switching it off hides the artifact at once', async () => {
    const { owner, artifact } = await seedArtifact(api)
    const stranger = await api.user(unique('stranger'))
    expect((await api.request('GET', `/api/artifacts/${artifact.id}/content`)).statusCode).toBe(404)
    await api.request('PATCH', `/api/artifacts/${artifact.id}/access`, { token: owner.token, body: { publicView: true } })
    for (const token of [null, stranger.token]) {
      for (const path of ['', '/content', '/versions', '/diff?from=1&to=1']) {
        const res = await api.request('GET', `/api/artifacts/${artifact.id}${path}`, { token })
        expect(res.statusCode, `${path} ${token ? 'stranger' : 'anonymous'}`).toBe(200)
      }
    }
    // Reading does not let a stranger see the settings or write.
    expect((await api.request('GET', `/api/artifacts/${artifact.id}/access`, { token: stranger.token })).statusCode).toBe(403)
    const write = await api.request('POST', `/api/artifacts/${artifact.id}/versions`, {
      token: stranger.token,
      body: { content: 'x', expectedLatestVersion: 1 },
    })
    expect(write.statusCode).toBe(403)
    await api.request('PATCH', `/api/artifacts/${artifact.id}/access`, { token: owner.token, body: { publicView: false } })
    expect((await api.request('GET', `/api/artifacts/${artifact.id}/content`)).statusCode).toBe(404)
  })

  it('publicEdit lets any authenticated caller append, never an anonymous one', async () => {
    const { owner, artifact } = await seedArtifact(api, { publicView: true })
    const editor = await api.user(unique('editor'))
    const body = { content: 'by a stranger', expectedLatestVersion: 1 }
    expect((await api.request('POST', `/api/artifacts/${artifact.id}/versions`, { token: editor.token, body })).statusCode).toBe(403)
    await api.request('PATCH', `/api/artifacts/${artifact.id}/access`, { token: owner.token, body: { publicEdit: true } })
    expect((await api.request('POST', `/api/artifacts/${artifact.id}/versions`, { body })).statusCode).toBe(401)
    const res = await api.request('POST', `/api/artifacts/${artifact.id}/versions`, { token: editor.token, body })
    expect(res.statusCode).toBe(201)
  })

  it('viewerEmails lets a signed-in user with that verified email read a private artifact, nobody else', async () => {
    const { owner, artifact } = await seedArtifact(api)
    const readerEmail = unique('reader')
    const reader = await api.user(readerEmail)
    const other = await api.user(unique('other'))
    expect((await api.request('GET', `/api/artifacts/${artifact.id}`, { token: reader.token })).statusCode).toBe(404)
    await api.request('PATCH', `/api/artifacts/${artifact.id}/access`, {
      token: owner.token,
      body: { viewerEmails: [readerEmail.toUpperCase()] },
    })
    expect((await api.request('GET', `/api/artifacts/${artifact.id}/content`, { token: reader.token })).statusCode).toBe(200)
    expect((await api.request('GET', `/api/artifacts/${artifact.id}/content`, { token: other.token })).statusCode).toBe(404)
    expect((await api.request('GET', `/api/artifacts/${artifact.id}/content`)).statusCode).toBe(404)
    const write = await api.request('POST', `/api/artifacts/${artifact.id}/versions`, {
      token: reader.token,
      body: { content: 'x', expectedLatestVersion: 1 },
    })
    expect(write.statusCode).toBe(403)
  })

  it('refuses a malformed email, a duplicate and too many, naming the offending value', async () => {
    const { owner, artifact } = await seedArtifact(api)
    const patch = (viewerEmails: unknown) =>
      api.request('PATCH', `/api/artifacts/${artifact.id}/access`, { token: owner.token, body: { viewerEmails } })
    const malformed = await patch(['ok@example.com', 'not-an-email'])
    expect(malformed.statusCode).toBe(400)
    expect(malformed.json().code).toBe('validation_failed')
    expect(malformed.json().detail).toContain('not-an-email')
    const duplicate = await patch(['a@example.com', 'A@example.com'])
    expect(duplicate.statusCode).toBe(400)
    expect(duplicate.json().detail).toContain('A@example.com')
    expect(duplicate.json().errors[0].path).toBe('/body/viewerEmails/1')
    const tooMany = await patch(Array.from({ length: 101 }, (_, i) => `u${i}@example.com`))
    expect(tooMany.statusCode).toBe(400)
    expect(tooMany.json().detail).toContain('101')
    expect((await patch([])).statusCode).toBe(200)
    const empty = await api.request('PATCH', `/api/artifacts/${artifact.id}/access`, { token: owner.token, body: {} })
    expect(empty.statusCode).toBe(400)
    const created = await api.request('POST', '/api/artifacts', {
      token: owner.token,
      body: {
        ownerUsername: owner.username,
        projectSlug: 'notes',
        slug: 'dupes',
        type: 'md',
        title: 'Dupes',
        content: 'x',
        changelog: '',
        access: { publicView: false, publicEdit: false, viewerEmails: ['x@example.com', 'X@EXAMPLE.COM'] },
      },
    })
    expect(created.statusCode).toBe(400)
    expect(created.json().detail).toContain('X@EXAMPLE.COM')
  })
})

describe(`share links (${engine})`, () => {
  it('a viewer link reads its artifact only, and nothing else', async () => {
    const { owner, artifact } = await seedArtifact(api)
    const other = await seedArtifact(api, { slug: 'other' })
    const created = await api.request('POST', `/api/artifacts/${artifact.id}/share-links`, { token: owner.token })
    expect(created.statusCode, created.body).toBe(201)
    const link = created.json()
    expect(link).toMatchObject({ artifactId: artifact.id, role: 'viewer', status: 'active', expiresAt: null, revokedAt: null })
    expect(link.secret).toMatch(/^qsl_/)
    expect(link.url).toBe(`https://quire.test/s/${link.secret}`)
    // Stored only as a hash.
    const stored = await api.runtime.database.db.selectFrom('credentials').selectAll().where('id', '=', link.id).executeTakeFirstOrThrow()
    expect(JSON.stringify(stored)).not.toContain(link.secret)

    for (const path of ['', '/content', '/versions', '/diff?from=1&to=1']) {
      expect((await api.request('GET', `/api/artifacts/${artifact.id}${path}`, { token: link.secret })).statusCode, path).toBe(200)
    }
    const write = await api.request('POST', `/api/artifacts/${artifact.id}/versions`, {
      token: link.secret,
      body: { content: 'x', expectedLatestVersion: 1 },
    })
    expect(write.statusCode).toBe(403)
    expect((await api.request('GET', `/api/artifacts/${other.artifact.id}`, { token: link.secret })).statusCode).toBe(404)
    expect((await api.request('GET', '/api/profile/artifacts', { token: link.secret })).statusCode).toBe(403)
    expect((await api.request('GET', `/api/artifacts/${artifact.id}/access`, { token: link.secret })).statusCode).toBe(403)
    expect((await api.request('GET', `/api/artifacts/${artifact.id}/share-links`, { token: link.secret })).statusCode).toBe(403)
    expect((await api.request('GET', `/api/audit-events?artifactId=${artifact.id}`, { token: link.secret })).statusCode).toBe(403)
  })

  it('an editor link appends and restores, and the audit event names the link', async () => {
    const { owner, artifact } = await seedArtifact(api)
    const link = (
      await api.request('POST', `/api/artifacts/${artifact.id}/share-links`, { token: owner.token, body: { role: 'editor' } })
    ).json()
    const append = await api.request('POST', `/api/artifacts/${artifact.id}/versions`, {
      token: link.secret,
      body: { content: 'by link', expectedLatestVersion: 1 },
    })
    expect(append.statusCode, append.body).toBe(201)
    expect(append.json().createdBy).toMatchObject({ kind: 'share_link', id: link.id })
    const restore = await api.request('POST', `/api/artifacts/${artifact.id}/versions/1/restore`, {
      token: link.secret,
      body: { expectedLatestVersion: 2 },
    })
    expect(restore.statusCode, restore.body).toBe(201)
    expect((await api.request('DELETE', `/api/artifacts/${artifact.id}`, { token: link.secret })).statusCode).toBe(403)
    const written = (await events(artifact.id, owner.token)).filter((e) => e.via.credential === 'share_link')
    expect(written.map((e) => e.action).sort()).toEqual(['artifact.restored', 'artifact.version_created'])
    expect(written.every((e) => e.via.credentialId === link.id && e.actor.kind === 'share_link')).toBe(true)
  })

  // Waits: the refused use's event.
  it('stops working at once when revoked; revoking again is not an error; the audit rows stay', { timeout: timeoutFor(1) }, async () => {
    const { owner, artifact } = await seedArtifact(api)
    const link = (
      await api.request('POST', `/api/artifacts/${artifact.id}/share-links`, { token: owner.token, body: { role: 'editor' } })
    ).json()
    const before = await api.request('POST', `/api/artifacts/${artifact.id}/versions`, {
      token: link.secret,
      body: { content: 'v2', expectedLatestVersion: 1 },
    })
    expect(before.statusCode).toBe(201)
    const revoked = await api.request('POST', `/api/share-links/${link.id}/revoke`, { token: owner.token })
    expect(revoked.statusCode, revoked.body).toBe(200)
    expect(revoked.json()).toMatchObject({ id: link.id, status: 'revoked' })
    const twice = await api.request('POST', `/api/share-links/${link.id}/revoke`, { token: owner.token })
    expect(twice.statusCode).toBe(200)
    expect(twice.json().revokedAt).toBe(revoked.json().revokedAt)

    // Right after a write admission was cached, too.
    const after = await api.request('POST', `/api/artifacts/${artifact.id}/versions`, {
      token: link.secret,
      body: { content: 'v3', expectedLatestVersion: 2 },
    })
    expect(after.statusCode).toBe(401)
    expect((await api.request('GET', `/api/artifacts/${artifact.id}`, { token: link.secret })).statusCode).toBe(401)
    // The two refused requests leave one credential.rejected (written off the request's path,
    // once per credential in ten minutes), and nothing else done through the link.
    const trail = await until("the refused link's credential.rejected on the artifact's trail", async () => {
      const written = await events(artifact.id, owner.token)
      return written.some((e) => e.action === 'credential.rejected') && written
    })
    expect(trail.filter((e) => e.action === 'share_link.revoked')).toHaveLength(1)
    expect(trail.filter((e) => e.via.credentialId === link.id).map((e) => e.action)).toEqual([
      'credential.rejected',
      'artifact.version_created',
    ])
    const listed = (await api.request('GET', `/api/artifacts/${artifact.id}/share-links`, { token: owner.token })).json()
    expect(listed.items).toEqual([expect.objectContaining({ id: link.id, status: 'revoked' })])
    expect(JSON.stringify(listed)).not.toContain(link.secret)
  })

  it('expires: refused at the moment it expires; expiry must be in the future and at most a year ahead', async () => {
    const { owner, artifact } = await seedArtifact(api)
    const create = (expiresAt: string) =>
      api.request('POST', `/api/artifacts/${artifact.id}/share-links`, { token: owner.token, body: { expiresAt } })
    for (const bad of ['2026-11-22T09:59:59.999Z', '2027-11-22T10:00:00.001Z', '2026-12-01T10:00:00Z', '2026-12-01']) {
      const res = await create(bad)
      expect(res.statusCode, bad).toBe(400)
      expect(res.json().detail, bad).toContain(bad)
    }
    const link = (await create('2026-11-22T11:00:00.000Z')).json()
    expect(link.expiresAt).toBe('2026-11-22T11:00:00.000Z')
    expect((await api.request('GET', `/api/artifacts/${artifact.id}`, { token: link.secret })).statusCode).toBe(200)
    const saved = now
    try {
      now = new Date('2026-11-22T11:00:00.000Z')
      const expired = await api.request('GET', `/api/artifacts/${artifact.id}`, { token: link.secret })
      expect(expired.statusCode).toBe(401)
      expect(expired.json().detail).toContain('expired')
      const listed = (await api.request('GET', `/api/artifacts/${artifact.id}/share-links`, { token: owner.token })).json()
      expect(listed.items[0]).toMatchObject({ id: link.id, status: 'expired' })
    } finally {
      now = saved
    }
  })

  it('only those who may share create, list or revoke links; strangers learn nothing', async () => {
    const { owner, artifact } = await seedArtifact(api, { publicView: true })
    const stranger = await api.user(unique('stranger'))
    const link = (await api.request('POST', `/api/artifacts/${artifact.id}/share-links`, { token: owner.token })).json()
    expect((await api.request('POST', `/api/artifacts/${artifact.id}/share-links`, { token: stranger.token })).statusCode).toBe(403)
    expect((await api.request('POST', `/api/share-links/${link.id}/revoke`, { token: stranger.token })).statusCode).toBe(403)
    expect((await api.request('POST', `/api/share-links/${link.id}/revoke`)).statusCode).toBe(401)
    expect((await api.request('POST', '/api/share-links/shl_01jc0000000000000000000000/revoke', { token: owner.token })).statusCode).toBe(
      404,
    )
    const { artifact: hidden, owner: hiddenOwner } = await seedArtifact(api)
    const hiddenLink = (await api.request('POST', `/api/artifacts/${hidden.id}/share-links`, { token: hiddenOwner.token })).json()
    expect((await api.request('POST', `/api/share-links/${hiddenLink.id}/revoke`, { token: stranger.token })).statusCode).toBe(404)
  })
})

describe(`audit trail (${engine})`, () => {
  it("lists an artifact's events newest first with a cursor, each naming actor, credential and surface", async () => {
    const { owner, artifact } = await seedArtifact(api)
    for (let v = 1; v <= 4; v++) {
      await api.request('POST', `/api/artifacts/${artifact.id}/versions`, {
        token: owner.token,
        body: { content: `v${v + 1}`, expectedLatestVersion: v },
      })
    }
    const first = await api.request('GET', `/api/audit-events?artifactId=${artifact.id}&limit=3`, { token: owner.token })
    expect(first.statusCode).toBe(200)
    const page1 = first.json()
    expect(page1.items).toHaveLength(3)
    expect(page1.nextCursor).toEqual(expect.any(String))
    const page2 = (
      await api.request('GET', `/api/audit-events?artifactId=${artifact.id}&limit=3&cursor=${page1.nextCursor}`, { token: owner.token })
    ).json()
    const all = [...page1.items, ...page2.items]
    expect(all.map((e: { action: string }) => e.action)).toEqual([
      'artifact.version_created',
      'artifact.version_created',
      'artifact.version_created',
      'artifact.version_created',
      'artifact.created',
    ])
    expect(page2.nextCursor).toBeNull()
    const ids = all.map((e: { id: string }) => e.id)
    expect([...ids].sort().reverse()).toEqual(ids)
    expect(all[0]).toMatchObject({
      actor: { kind: 'user', id: owner.userId, label: owner.username },
      via: { surface: 'api', credential: 'api_key' },
      artifactId: artifact.id,
      data: { versionNumber: 5 },
    })
  })

  it('keeps one kind of event with ?action=, on the artifact, account and workspace trails; an unknown kind is a 400', async () => {
    const { owner, artifact } = await seedArtifact(api)
    for (let v = 1; v <= 3; v++) {
      await api.request('POST', `/api/artifacts/${artifact.id}/versions`, {
        token: owner.token,
        body: { content: `v${v + 1}`, expectedLatestVersion: v },
      })
    }
    const kinds = async (path: string) => {
      const res = await api.request('GET', path, { token: owner.token })
      expect(res.statusCode, res.body).toBe(200)
      return (res.json().items as { action: string }[]).map((e) => e.action)
    }
    expect(await kinds(`/api/audit-events?artifactId=${artifact.id}&action=artifact.created`)).toEqual(['artifact.created'])
    const versions = await kinds(`/api/audit-events?artifactId=${artifact.id}&action=artifact.version_created&limit=2`)
    expect(versions).toEqual(['artifact.version_created', 'artifact.version_created'])
    expect(await kinds('/api/audit-events?action=project.created')).toEqual(['project.created'])
    const workspaces = (await api.request('GET', '/api/workspaces', { token: owner.token })).json()
    const personal = workspaces.items.find((w: { slug: string }) => w.slug === owner.username)
    expect(await kinds(`/api/workspaces/${personal.id}/audit-events?action=artifact.created`)).toEqual(['artifact.created'])
    expect(await kinds(`/api/workspaces/${personal.id}/audit-events?action=share_link.revoked`)).toEqual([])
    const unknown = await api.request('GET', '/api/audit-events?action=artifact.exploded', { token: owner.token })
    expect(unknown.statusCode).toBe(400)
    expect(unknown.json().code).toBe('validation_failed')
  })

  it('shows the caller their own account-level events, and nobody else', async () => {
    const { owner, artifact } = await seedArtifact(api)
    const stranger = await api.user(unique('stranger'))
    const mine = (await api.request('GET', '/api/audit-events', { token: owner.token })).json()
    const actions = mine.items.map((e: { action: string }) => e.action)
    expect(actions).toEqual(expect.arrayContaining(['artifact.created', 'project.created']))
    expect(mine.items.every((e: { actor: { id: string }; workspaceId: string }) => e.actor.id === owner.userId || e.workspaceId)).toBe(true)
    const theirs = (await api.request('GET', '/api/audit-events', { token: stranger.token })).json()
    expect(theirs.items.some((e: { artifactId: string }) => e.artifactId === artifact.id)).toBe(false)
    expect((await api.request('GET', `/api/audit-events?artifactId=${artifact.id}`, { token: stranger.token })).statusCode).toBe(404)
    expect((await api.request('GET', '/api/audit-events')).statusCode).toBe(401)
  })

  it('is immutable: the database refuses to update or delete events', async () => {
    const { artifact } = await seedArtifact(api)
    const db = api.runtime.database.db
    await expect(db.updateTable('audit_events').set({ action: 'forged' }).where('artifact_id', '=', artifact.id).execute()).rejects.toThrow(
      /immutable/,
    )
    await expect(db.deleteFrom('audit_events').where('artifact_id', '=', artifact.id).execute()).rejects.toThrow(/immutable/)
    const left = await db.selectFrom('audit_events').select('action').where('artifact_id', '=', artifact.id).execute()
    expect(left.map((r) => r.action)).toEqual(['artifact.created'])
  })
})
