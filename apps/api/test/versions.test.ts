import { applyPatch } from 'diff'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { count, engine, seedArtifact, startTestApi, type TestApi } from './helper.ts'

let api: TestApi
beforeAll(async () => {
  api = await startTestApi()
})
afterAll(async () => {
  await api.close()
})

describe(`versions (${engine})`, () => {
  it('appends an immutable version and reads it back, latest and pinned', async () => {
    const { owner, artifact } = await seedArtifact(api)
    const appended = await api.request('POST', `/api/artifacts/${artifact.id}/versions`, {
      token: owner.token,
      body: { content: '# Hello\nworld\n', changelog: 'add world', expectedLatestVersion: 1 },
    })
    expect(appended.statusCode).toBe(201)
    expect(appended.json()).toMatchObject({
      artifactId: artifact.id,
      versionNumber: 2,
      changelog: 'add world',
      restoredFrom: null,
      size: 14,
    })

    const latest = await api.request('GET', `/api/artifacts/${artifact.id}/content`, { token: owner.token })
    expect(latest.json()).toMatchObject({ versionNumber: 2, content: '# Hello\nworld\n', type: 'md' })
    const pinned = await api.request('GET', `/api/artifacts/${artifact.id}/content?version=1`, { token: owner.token })
    expect(pinned.json()).toMatchObject({ versionNumber: 1, content: '# Hello\n' })
    const meta = await api.request('GET', `/api/artifacts/${artifact.id}`, { token: owner.token })
    expect(meta.json()).toMatchObject({ latestVersion: 2 })
  })

  it('requires expectedLatestVersion (428) and writes nothing without it', async () => {
    const { owner, artifact } = await seedArtifact(api)
    const res = await api.request('POST', `/api/artifacts/${artifact.id}/versions`, { token: owner.token, body: { content: 'x' } })
    expect(res.statusCode).toBe(428)
    expect(res.headers['content-type']).toContain('application/problem+json')
    expect(res.json()).toMatchObject({ code: 'precondition_required', status: 428, latestVersion: 1 })
    expect(await count(api, 'versions', { artifactId: artifact.id })).toBe(1)
  })

  it('answers a stale expectedLatestVersion with 409, the head, and the diff the caller missed', async () => {
    const { owner, artifact } = await seedArtifact(api, { content: 'a\nb\nc\n' })
    for (const [n, content] of [
      [1, 'a\nB\nc\n'],
      [2, 'a\nB\nc\nd\n'],
    ] as const) {
      const ok = await api.request('POST', `/api/artifacts/${artifact.id}/versions`, {
        token: owner.token,
        body: { content, expectedLatestVersion: n },
      })
      expect(ok.statusCode).toBe(201)
    }
    const stale = await api.request('POST', `/api/artifacts/${artifact.id}/versions`, {
      token: owner.token,
      body: { content: 'mine\n', expectedLatestVersion: 1 },
    })
    expect(stale.statusCode).toBe(409)
    const problem = stale.json()
    expect(problem).toMatchObject({ code: 'version_conflict', latestVersion: 3, expectedLatestVersion: 1 })
    expect(applyPatch('a\nb\nc\n', problem.diff)).toBe('a\nB\nc\nd\n')
    expect(await count(api, 'versions', { artifactId: artifact.id })).toBe(3)
  })

  it('never computes a version number past the column: the top expectedLatestVersion is refused, the one below is a conflict, every time', async () => {
    const { owner, artifact } = await seedArtifact(api)
    const post = (path: string, body: object) => api.request('POST', `/api/artifacts/${artifact.id}${path}`, { token: owner.token, body })
    // Each twice: the second write takes the recent-admission path, which once computed 2147483648.
    const bodyOf = (path: string, expectedLatestVersion: number) =>
      path === '/versions' ? { content: 'x', expectedLatestVersion } : { expectedLatestVersion }
    for (let attempt = 1; attempt <= 2; attempt++) {
      for (const path of ['/versions', '/versions/1/restore']) {
        const top = await post(path, bodyOf(path, 2147483647))
        expect(top.statusCode, top.body).toBe(400)
        expect(top.json()).toMatchObject({ code: 'validation_failed', errors: [{ path: '/body/expectedLatestVersion' }] })
        const below = await post(path, bodyOf(path, 2147483646))
        expect(below.statusCode, below.body).toBe(409)
        expect(below.json()).toMatchObject({ code: 'version_conflict', latestVersion: 1, expectedLatestVersion: 2147483646 })
      }
    }
    expect(await count(api, 'versions', { artifactId: artifact.id })).toBe(1)
  })

  it('restores version N as a new head without storing new content', async () => {
    const { owner, artifact } = await seedArtifact(api, { content: 'first unique content for restore\n' })
    await api.request('POST', `/api/artifacts/${artifact.id}/versions`, {
      token: owner.token,
      body: { content: 'second\n', expectedLatestVersion: 1 },
    })
    const contentsBefore = await count(api, 'contents')
    const restored = await api.request('POST', `/api/artifacts/${artifact.id}/versions/1/restore`, { token: owner.token })
    expect(restored.statusCode).toBe(201)
    expect(restored.json()).toMatchObject({ versionNumber: 3, restoredFrom: 1, changelog: 'Restored version 1' })
    expect(await count(api, 'contents')).toBe(contentsBefore)
    const head = await api.request('GET', `/api/artifacts/${artifact.id}/content`, { token: owner.token })
    expect(head.json()).toMatchObject({ versionNumber: 3, content: 'first unique content for restore\n' })
    const missing = await api.request('POST', `/api/artifacts/${artifact.id}/versions/9/restore`, { token: owner.token })
    expect(missing.statusCode).toBe(404)
    const stale = await api.request('POST', `/api/artifacts/${artifact.id}/versions/1/restore`, {
      token: owner.token,
      body: { expectedLatestVersion: 2 },
    })
    expect(stale.statusCode).toBe(409)
  })

  it('stores identical content once across versions and artifacts', async () => {
    const a = await seedArtifact(api, { content: 'shared body\n' })
    const before = await count(api, 'contents')
    await seedArtifact(api, { content: 'shared body\n' })
    await api.request('POST', `/api/artifacts/${a.artifact.id}/versions`, {
      token: a.owner.token,
      body: { content: 'shared body\n', expectedLatestVersion: 1 },
    })
    expect(await count(api, 'contents')).toBe(before)
  })

  it('serves a pinned version with a strong ETag and answers If-None-Match with 304', async () => {
    const { owner, artifact } = await seedArtifact(api, { publicView: true })
    const first = await api.request('GET', `/api/artifacts/${artifact.id}/content?version=1`)
    expect(first.statusCode).toBe(200)
    const etag = first.headers.etag as string
    expect(etag).toBe(`"${first.json().sha256}"`)
    expect(first.headers['cache-control']).toBe('public, max-age=60, must-revalidate')
    const again = await api.request('GET', `/api/artifacts/${artifact.id}/content?version=1`, { headers: { 'if-none-match': etag } })
    expect(again.statusCode).toBe(304)
    expect(again.body).toBe('')
    const owners = await api.request('GET', `/api/artifacts/${artifact.id}/content?version=1`, { token: owner.token })
    expect(owners.headers['cache-control']).toBe('public, max-age=60, must-revalidate')
    const head = await api.request('GET', `/api/artifacts/${artifact.id}/content`)
    expect(head.headers['cache-control']).toBe('public, no-cache')
    expect(head.headers.etag).not.toBe(etag)
  })

  it('serves a pinned version as the same JSON bytes every time, and still asks who may read it', async () => {
    const { owner, artifact } = await seedArtifact(api, { publicView: true, content: '# Pinned\nnaïve café ✓\n' })
    const url = `/api/artifacts/${artifact.id}/content?version=1`
    const first = await api.request('GET', url)
    const second = await api.request('GET', url)
    expect(second.headers['content-type']).toBe('application/json; charset=utf-8')
    expect(second.rawPayload.equals(first.rawPayload)).toBe(true)
    expect(second.json()).toMatchObject({ artifactId: artifact.id, versionNumber: 1, content: '# Pinned\nnaïve café ✓\n', type: 'md' })
    expect(Number(second.headers['content-length'])).toBe(second.rawPayload.length)
    // The bytes are kept; the decision is not: once private, the same read is refused.
    const closed = await api.request('PATCH', `/api/artifacts/${artifact.id}/access`, { token: owner.token, body: { publicView: false } })
    expect(closed.statusCode).toBe(200)
    const anonymous = await api.request('GET', url)
    expect(anonymous.statusCode).toBe(404)
    expect((await api.request('GET', url, { token: owner.token })).json()).toEqual(first.json())
  })

  it('lets every cache keep public pinned content a minute, and refuses its revalidation once it is private', async () => {
    const { owner, artifact } = await seedArtifact(api, { publicView: true })
    const url = `/api/artifacts/${artifact.id}/content?version=1`
    const cached = await api.request('GET', url)
    const directives = String(cached.headers['cache-control']).split(/,\s*/)
    // A browser or a CDN serves the version at most 60 seconds without asking, then must
    // revalidate, so making the artifact private reaches every cache within a minute.
    expect(directives).toEqual(['public', 'max-age=60', 'must-revalidate'])
    // The same for every reader: no Vary on the credential (CORS's Vary: Origin aside).
    expect(String(cached.headers.vary ?? '')).not.toContain('Authorization')
    const closed = await api.request('PATCH', `/api/artifacts/${artifact.id}/access`, { token: owner.token, body: { publicView: false } })
    expect(closed.statusCode).toBe(200)
    // The cache's revalidation (its stored ETag) gets a 404 no cache keeps, not a 304 that would renew it.
    const revalidation = await api.request('GET', url, { headers: { 'if-none-match': String(cached.headers.etag) } })
    expect(revalidation.statusCode).toBe(404)
    expect(revalidation.headers['cache-control']).toBe('no-store')
    // The owner still reads it, now private: the browser keeps it but asks each time.
    const owners = await api.request('GET', url, { token: owner.token })
    expect(owners.headers['cache-control']).toBe('private, no-cache')
    expect(String(owners.headers.vary)).toContain('Authorization')
    const again = await api.request('GET', url, { token: owner.token, headers: { 'if-none-match': String(owners.headers.etag) } })
    expect(again.statusCode).toBe(304)
  })

  it('marks private pinned content private, revalidated each time', async () => {
    const { owner, artifact } = await seedArtifact(api)
    const res = await api.request('GET', `/api/artifacts/${artifact.id}/content?version=1`, { token: owner.token })
    expect(res.headers['cache-control']).toBe('private, no-cache')
  })

  it('lists versions newest first and walks the cursor to the end', async () => {
    const { owner, artifact } = await seedArtifact(api)
    for (let n = 1; n < 7; n++) {
      await api.request('POST', `/api/artifacts/${artifact.id}/versions`, {
        token: owner.token,
        body: { content: `v${n + 1}\n`, expectedLatestVersion: n },
      })
    }
    const seen: number[] = []
    let cursor: string | null = null
    do {
      const page = await api.request('GET', `/api/artifacts/${artifact.id}/versions?limit=3${cursor ? `&cursor=${cursor}` : ''}`, {
        token: owner.token,
      })
      expect(page.statusCode).toBe(200)
      const body = page.json() as { items: { versionNumber: number }[]; nextCursor: string | null }
      seen.push(...body.items.map((v) => v.versionNumber))
      cursor = body.nextCursor
    } while (cursor)
    expect(seen).toEqual([7, 6, 5, 4, 3, 2, 1])
    const tampered = await api.request('GET', `/api/artifacts/${artifact.id}/versions?cursor=bm9wZQ`, { token: owner.token })
    expect(tampered.statusCode).toBe(400)
    expect(tampered.json()).toMatchObject({ code: 'invalid_cursor' })
    const tooMany = await api.request('GET', `/api/artifacts/${artifact.id}/versions?limit=101`, { token: owner.token })
    expect(tooMany.statusCode).toBe(400)
  })

  it('diffs two versions as a unified diff that applies', async () => {
    const { owner, artifact } = await seedArtifact(api, { content: 'one\ntwo\nthree\n' })
    await api.request('POST', `/api/artifacts/${artifact.id}/versions`, {
      token: owner.token,
      body: { content: 'one\n2\nthree\nfour\n', expectedLatestVersion: 1 },
    })
    const res = await api.request('GET', `/api/artifacts/${artifact.id}/diff?from=1&to=2`, { token: owner.token })
    expect(res.statusCode).toBe(200)
    const body = res.json()
    expect(body).toMatchObject({ fromVersion: 1, toVersion: 2, additions: 2, deletions: 1 })
    expect(applyPatch('one\ntwo\nthree\n', body.diff)).toBe('one\n2\nthree\nfour\n')
    const same = await api.request('GET', `/api/artifacts/${artifact.id}/diff?from=2&to=2`, { token: owner.token })
    expect(same.json()).toMatchObject({ diff: '', additions: 0, deletions: 0 })
    const missing = await api.request('GET', `/api/artifacts/${artifact.id}/diff?from=1&to=5`, { token: owner.token })
    expect(missing.statusCode).toBe(404)
    expect(missing.json().detail).toContain('Version 5')
  })

  it('refuses content over the limit with 413 and writes nothing', async () => {
    const small = await startTestApi({ env: { QUIRE_CONTENT_MAX_BYTES: '2048' } })
    try {
      const { owner, artifact } = await seedArtifact(small)
      const res = await small.request('POST', `/api/artifacts/${artifact.id}/versions`, {
        token: owner.token,
        body: { content: 'é'.repeat(1025), expectedLatestVersion: 1 },
      })
      expect(res.statusCode).toBe(413)
      expect(res.json()).toMatchObject({ code: 'payload_too_large' })
      expect(await count(small, 'versions', { artifactId: artifact.id })).toBe(1)
    } finally {
      await small.close()
    }
  })
})
