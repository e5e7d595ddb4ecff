/**
 * Dry-run writes (`?dryRun=true` on append, restore and the access change): the answer is what the
 * real write then does, nothing is written (versions, audit events, idempotency keys), and every
 * error is the real write's own.
 */
import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { count, engine, seedArtifact, startTestApi, type TestApi } from './helper.ts'

let api: TestApi
beforeAll(async () => {
  api = await startTestApi()
})
afterAll(async () => {
  await api.close()
})

/** Every row a write could leave behind, for one artifact. */
async function footprint(artifactId: string) {
  return {
    versions: await count(api, 'versions', { artifactId }),
    audit: await count(api, 'audit_events'),
    idempotency: await count(api, 'idempotency_keys'),
    contents: await count(api, 'contents'),
    artifact: await api.runtime.database.db.selectFrom('artifacts').selectAll().where('id', '=', artifactId).executeTakeFirstOrThrow(),
  }
}

/** A problem without what differs between two requests (its request id). */
function problemOf(res: LightMyRequestResponse) {
  const { requestId: _, instance: __, ...rest } = res.json()
  return { status: res.statusCode, ...rest }
}

const stranger = () => `stranger-${Math.random().toString(36).slice(2, 8)}@example.com`

describe(`dry-run writes (${engine})`, () => {
  it('append: answers the version the write then creates and its diff, writing nothing', async () => {
    const { owner, artifact } = await seedArtifact(api, { content: 'a\nb\n' })
    const body = { content: 'a\nB\nc\n', changelog: 'edit', expectedLatestVersion: 1 }
    const before = await footprint(artifact.id)
    const dry = await api.request('POST', `/api/artifacts/${artifact.id}/versions?dryRun=true`, {
      token: owner.token,
      body,
      headers: { 'idempotency-key': 'dry-append-1' },
    })
    expect(dry.statusCode, dry.body).toBe(200)
    expect(dry.headers.location).toBeUndefined()
    expect(await footprint(artifact.id)).toEqual(before)

    const real = await api.request('POST', `/api/artifacts/${artifact.id}/versions`, {
      token: owner.token,
      body,
      headers: { 'idempotency-key': 'dry-append-1' },
    })
    expect(real.statusCode).toBe(201)
    expect(real.headers['idempotent-replayed']).toBeUndefined()
    const version = real.json()
    const diff = await api.call('GET', `/api/artifacts/${artifact.id}/diff?from=1&to=2`, owner.token)
    expect(dry.json()).toEqual({
      dryRun: true,
      artifactId: artifact.id,
      wouldCreate: {
        versionNumber: version.versionNumber,
        sha256: version.sha256,
        size: version.size,
        changelog: version.changelog,
        restoredFrom: null,
      },
      fromVersion: 1,
      diff: diff.diff,
      additions: diff.additions,
      deletions: diff.deletions,
    })
    expect(version.versionNumber).toBe(2)
  })

  it('restore: answers the version the restore then creates and the diff from the head', async () => {
    const { owner, artifact } = await seedArtifact(api, { content: 'one\n' })
    await api.call('POST', `/api/artifacts/${artifact.id}/versions`, owner.token, { content: 'two\n', expectedLatestVersion: 1 })
    const before = await footprint(artifact.id)
    const dry = await api.request('POST', `/api/artifacts/${artifact.id}/versions/1/restore?dryRun=true`, { token: owner.token })
    expect(dry.statusCode, dry.body).toBe(200)
    expect(await footprint(artifact.id)).toEqual(before)
    const real = await api.call('POST', `/api/artifacts/${artifact.id}/versions/1/restore`, owner.token)
    const diff = await api.call('GET', `/api/artifacts/${artifact.id}/diff?from=2&to=3`, owner.token)
    expect(dry.json()).toMatchObject({
      dryRun: true,
      wouldCreate: { versionNumber: real.versionNumber, sha256: real.sha256, restoredFrom: 1, changelog: 'Restored version 1' },
      fromVersion: 2,
      diff: diff.diff,
    })
    expect(dry.json().diff).toBe('--- v2\n+++ v3\n@@ -1,1 +1,1 @@\n-two\n+one\n')
  })

  it('access: answers the settings the change would leave and which differ; the change then leaves them', async () => {
    const { owner, artifact } = await seedArtifact(api)
    const change = { publicView: true, viewerEmails: ['Bob@Example.com'] }
    const before = await footprint(artifact.id)
    const dry = await api.request('PATCH', `/api/artifacts/${artifact.id}/access?dryRun=true`, { token: owner.token, body: change })
    expect(dry.statusCode, dry.body).toBe(200)
    expect(dry.json()).toEqual({
      dryRun: true,
      artifactId: artifact.id,
      current: { publicView: false, publicEdit: false, viewerEmails: [] },
      wouldBe: { publicView: true, publicEdit: false, viewerEmails: ['bob@example.com'] },
      changed: ['publicView', 'viewerEmails'],
    })
    expect(await footprint(artifact.id)).toEqual(before)
    expect((await api.request('GET', `/api/artifacts/${artifact.id}`)).statusCode).toBe(404)
    const real = await api.call('PATCH', `/api/artifacts/${artifact.id}/access`, owner.token, change)
    expect({ publicView: real.publicView, publicEdit: real.publicEdit, viewerEmails: real.viewerEmails }).toEqual(dry.json().wouldBe)
    expect(await count(api, 'audit_events')).toBe(before.audit + 1)
  })

  it('gives every error the real write gives, the same problem (409 with the head and diff, 428, 403, 404, 422)', async () => {
    const { owner, artifact } = await seedArtifact(api, { content: 'a\n' })
    await api.call('POST', `/api/artifacts/${artifact.id}/versions`, owner.token, { content: 'b\n', expectedLatestVersion: 1 })
    const reader = await api.user(stranger())
    await api.call('PATCH', `/api/artifacts/${artifact.id}/access`, owner.token, { publicView: true })
    const url = `/api/artifacts/${artifact.id}`
    const cases: { name: string; method: string; path: string; token: string | null; body?: unknown; code: string }[] = [
      {
        name: 'stale',
        method: 'POST',
        path: '/versions',
        token: owner.token,
        body: { content: 'c\n', expectedLatestVersion: 1 },
        code: 'version_conflict',
      },
      {
        name: 'no expectation',
        method: 'POST',
        path: '/versions',
        token: owner.token,
        body: { content: 'c\n' },
        code: 'precondition_required',
      },
      {
        name: 'a reader',
        method: 'POST',
        path: '/versions',
        token: reader.token,
        body: { content: 'c\n', expectedLatestVersion: 2 },
        code: 'forbidden',
      },
      {
        name: 'anonymous',
        method: 'POST',
        path: '/versions',
        token: null,
        body: { content: 'c\n', expectedLatestVersion: 2 },
        code: 'unauthenticated',
      },
      {
        name: 'restore stale',
        method: 'POST',
        path: '/versions/1/restore',
        token: owner.token,
        body: { expectedLatestVersion: 1 },
        code: 'version_conflict',
      },
      { name: 'restore missing', method: 'POST', path: '/versions/9/restore', token: owner.token, code: 'not_found' },
      { name: 'restore by a reader', method: 'POST', path: '/versions/1/restore', token: reader.token, code: 'forbidden' },
      { name: 'access by a reader', method: 'PATCH', path: '/access', token: reader.token, body: { publicEdit: true }, code: 'forbidden' },
      {
        name: 'access bad email',
        method: 'PATCH',
        path: '/access',
        token: owner.token,
        body: { viewerEmails: ['a@x.io', 'A@x.io'] },
        code: 'validation_failed',
      },
      { name: 'access empty body', method: 'PATCH', path: '/access', token: owner.token, body: {}, code: 'validation_failed' },
    ]
    const before = await footprint(artifact.id)
    for (const c of cases) {
      const options = { token: c.token, ...(c.body === undefined ? {} : { body: c.body }) }
      const dry = await api.request(c.method, `${url}${c.path}?dryRun=true`, options)
      const real = await api.request(c.method, `${url}${c.path}`, options)
      expect(problemOf(dry), c.name).toEqual(problemOf(real))
      expect(dry.json().code, c.name).toBe(c.code)
    }
    expect(
      problemOf(
        await api.request('POST', `${url}/versions?dryRun=true`, {
          token: owner.token,
          body: { content: 'c\n', expectedLatestVersion: 1 },
        }),
      ),
    ).toMatchObject({
      status: 409,
      latestVersion: 2,
      expectedLatestVersion: 1,
      diff: '--- v1\n+++ v2\n@@ -1,1 +1,1 @@\n-a\n+b\n',
    })
    expect(await footprint(artifact.id)).toEqual(before)
  })

  it('refuses a credential without the scope (403 insufficient_scope), as the write does', async () => {
    const { owner, artifact } = await seedArtifact(api)
    const key = await api.call('POST', '/api/api-keys', owner.token, { name: 'read-only', scopes: ['artifacts:read'] })
    for (const [method, path, body] of [
      ['POST', '/versions', { content: 'x\n', expectedLatestVersion: 1 }],
      ['POST', '/versions/1/restore', undefined],
      ['PATCH', '/access', { publicView: true }],
    ] as const) {
      const options = { token: key.secret as string, ...(body === undefined ? {} : { body }) }
      const dry = await api.request(method, `/api/artifacts/${artifact.id}${path}?dryRun=true`, options)
      const real = await api.request(method, `/api/artifacts/${artifact.id}${path}`, options)
      expect(dry.statusCode, path).toBe(403)
      expect(problemOf(dry), path).toEqual(problemOf(real))
      expect(dry.json().code).toBe('insufficient_scope')
      expect(dry.headers['www-authenticate']).toBe(real.headers['www-authenticate'])
    }
  })

  it('refuses content over the limit (413) as the write does, writing nothing', async () => {
    const small = await startTestApi({ env: { QUIRE_CONTENT_MAX_BYTES: '2048' } })
    try {
      const { owner, artifact } = await seedArtifact(small)
      const body = { content: 'x'.repeat(3000), expectedLatestVersion: 1 }
      const dry = await small.request('POST', `/api/artifacts/${artifact.id}/versions?dryRun=true`, { token: owner.token, body })
      const real = await small.request('POST', `/api/artifacts/${artifact.id}/versions`, { token: owner.token, body })
      expect(dry.statusCode).toBe(413)
      expect(problemOf(dry)).toEqual(problemOf(real))
      expect(await count(small, 'versions', { artifactId: artifact.id })).toBe(1)
    } finally {
      await small.close()
    }
  })

  it('a dry run takes no Idempotency-Key: the key stays free, and a used one does not replay', async () => {
    const { owner, artifact } = await seedArtifact(api)
    const key = { 'idempotency-key': 'dry-key-2' }
    await api.call('POST', `/api/artifacts/${artifact.id}/versions`, owner.token, { content: 'two\n', expectedLatestVersion: 1 })
    const body = { content: 'three\n', expectedLatestVersion: 2 }
    const real = await api.request('POST', `/api/artifacts/${artifact.id}/versions`, { token: owner.token, body, headers: key })
    expect(real.statusCode).toBe(201)
    // The same request again as a dry run: the write it previews would now conflict (the head moved).
    const dry = await api.request('POST', `/api/artifacts/${artifact.id}/versions?dryRun=true`, { token: owner.token, body, headers: key })
    expect(dry.statusCode).toBe(409)
    expect(dry.headers['idempotent-replayed']).toBeUndefined()
  })
})
