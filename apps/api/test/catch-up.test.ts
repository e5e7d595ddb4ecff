/**
 * Catch-up (`GET /api/artifacts/{id}/changes?since=N`): the versions after N and the diff from N
 * to the head in one call; paged versions, a capped diff, the read's own authorization and errors.
 */
import { CHANGES_DIFF_MAX_BYTES } from '@quire/core'
import { applyPatch } from 'diff'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { engine, seedArtifact, startTestApi, type TestApi } from './helper.ts'

let api: TestApi
beforeAll(async () => {
  api = await startTestApi()
})
afterAll(async () => {
  await api.close()
})

/** Appends versions with these contents and changelogs, in order, from the artifact's head. */
async function append(artifactId: string, token: string, from: number, contents: readonly string[]) {
  let latest = from
  for (const content of contents) {
    const res = await api.request('POST', `/api/artifacts/${artifactId}/versions`, {
      token,
      body: { content, changelog: `to ${latest + 1}`, expectedLatestVersion: latest },
    })
    expect(res.statusCode, res.body).toBe(201)
    latest += 1
  }
  return latest
}

describe(`catch-up (${engine})`, () => {
  it('returns the versions after N (the list shape) and the diff from N to the head', async () => {
    const { owner, artifact } = await seedArtifact(api, { content: 'a\nb\nc\n' })
    await append(artifact.id, owner.token, 1, ['a\nB\nc\n', 'a\nB\nc\nd\n', 'x\nB\nc\nd\n'])
    const res = await api.request('GET', `/api/artifacts/${artifact.id}/changes?since=2`, { token: owner.token })
    expect(res.statusCode, res.body).toBe(200)
    const body = res.json()
    expect(body).toMatchObject({ artifactId: artifact.id, sinceVersion: 2, latestVersion: 4, diffTruncated: false })
    expect(body.versions.nextCursor).toBeNull()
    expect(body.versions.items.map((v: { versionNumber: number }) => v.versionNumber)).toEqual([4, 3])
    // The same version summaries the versions list gives.
    const list = await api.call('GET', `/api/artifacts/${artifact.id}/versions`, owner.token)
    expect(body.versions.items).toEqual(list.items.slice(0, 2))
    expect(body.versions.items[0]).toMatchObject({ changelog: 'to 4', createdBy: { label: owner.username } })
    // The diff is the diff operation's, from N to the head.
    const diff = await api.call('GET', `/api/artifacts/${artifact.id}/diff?from=2&to=4`, owner.token)
    expect(body.diff).toBe(diff.diff)
    expect({ additions: body.additions, deletions: body.deletions }).toEqual({ additions: diff.additions, deletions: diff.deletions })
    expect(applyPatch('a\nB\nc\n', body.diff)).toBe('x\nB\nc\nd\n')
    expect(body.diffBytes).toBe(Buffer.byteLength(body.diff))
  })

  it('answers since = latest with no versions and an empty diff', async () => {
    const { owner, artifact } = await seedArtifact(api)
    const latest = await append(artifact.id, owner.token, 1, ['two\n'])
    const body = await api.call('GET', `/api/artifacts/${artifact.id}/changes?since=${latest}`, owner.token)
    expect(body).toEqual({
      artifactId: artifact.id,
      sinceVersion: 2,
      latestVersion: 2,
      versions: { items: [], nextCursor: null },
      diff: '',
      additions: 0,
      deletions: 0,
      diffBytes: 0,
      diffTruncated: false,
    })
  })

  it('pages the versions like every list: limit and cursor, stopping at since', async () => {
    const { owner, artifact } = await seedArtifact(api, { content: 'v1\n' })
    await append(artifact.id, owner.token, 1, ['v2\n', 'v3\n', 'v4\n', 'v5\n', 'v6\n'])
    const seen: number[] = []
    let cursor: string | null = null
    let pages = 0
    do {
      const url: string = `/api/artifacts/${artifact.id}/changes?since=2&limit=2${cursor ? `&cursor=${cursor}` : ''}`
      const body = await api.call('GET', url, owner.token)
      expect(body.diff).toBe('--- v2\n+++ v6\n@@ -1,1 +1,1 @@\n-v2\n+v6\n')
      seen.push(...body.versions.items.map((v: { versionNumber: number }) => v.versionNumber))
      cursor = body.versions.nextCursor
      pages += 1
    } while (cursor !== null && pages < 10)
    expect(seen).toEqual([6, 5, 4, 3])
    expect(pages).toBe(2)
    const bad = await api.request('GET', `/api/artifacts/${artifact.id}/changes?since=2&cursor=bogus`, { token: owner.token })
    expect(bad.statusCode).toBe(400)
    expect(bad.json()).toMatchObject({ code: 'invalid_cursor' })
  })

  it(`caps the diff at ${CHANGES_DIFF_MAX_BYTES / 1024} KiB on a line boundary and says how to get the rest`, async () => {
    const line = (i: number, tag: string) => `${tag} line ${String(i).padStart(6, '0')} ${'x'.repeat(40)}\n`
    const lines = 4000 // about 220 KB per side: the whole diff is about twice that
    const old = Array.from({ length: lines }, (_, i) => line(i, 'old')).join('')
    const fresh = Array.from({ length: lines }, (_, i) => line(i, 'new')).join('')
    const { owner, artifact } = await seedArtifact(api, { content: old })
    await append(artifact.id, owner.token, 1, [fresh])
    const body = await api.call('GET', `/api/artifacts/${artifact.id}/changes?since=1`, owner.token)
    const whole = await api.call('GET', `/api/artifacts/${artifact.id}/diff?from=1&to=2`, owner.token)
    expect(Buffer.byteLength(whole.diff)).toBeGreaterThan(CHANGES_DIFF_MAX_BYTES)
    expect(body.diffTruncated).toBe(true)
    expect(body.diffBytes).toBe(Buffer.byteLength(whole.diff))
    expect(Buffer.byteLength(body.diff)).toBeLessThanOrEqual(CHANGES_DIFF_MAX_BYTES)
    expect(Buffer.byteLength(body.diff)).toBeGreaterThan(CHANGES_DIFF_MAX_BYTES - 100)
    expect(body.diff.endsWith('\n')).toBe(true)
    expect(whole.diff.startsWith(body.diff)).toBe(true)
    expect({ additions: body.additions, deletions: body.deletions }).toEqual({ additions: lines, deletions: lines })
  })

  it('gives a non-viewer the same 404 as a missing artifact, and reads a public one anonymously', async () => {
    const { owner, artifact } = await seedArtifact(api)
    const stranger = await api.user(`stranger-${Math.random().toString(36).slice(2, 8)}@example.com`)
    const hidden = await api.request('GET', `/api/artifacts/${artifact.id}/changes?since=1`, { token: stranger.token })
    const missing = await api.request('GET', '/api/artifacts/art_01jc0000000000000000000000/changes?since=1', { token: stranger.token })
    expect(hidden.statusCode).toBe(404)
    expect(missing.statusCode).toBe(404)
    expect(hidden.json().detail).toBe(missing.json().detail)
    expect((await api.request('GET', `/api/artifacts/${artifact.id}/changes?since=1`)).statusCode).toBe(404)

    await api.call('PATCH', `/api/artifacts/${artifact.id}/access`, owner.token, { publicView: true })
    const anonymous = await api.request('GET', `/api/artifacts/${artifact.id}/changes?since=1`)
    expect(anonymous.statusCode).toBe(200)
  })

  it('refuses a since past the head (404 naming the latest) and a missing since (400 naming it)', async () => {
    const { owner, artifact } = await seedArtifact(api)
    const past = await api.request('GET', `/api/artifacts/${artifact.id}/changes?since=5`, { token: owner.token })
    expect(past.statusCode).toBe(404)
    expect(past.json()).toMatchObject({ code: 'not_found', detail: 'Version 5 does not exist (latest is 1).' })
    const missing = await api.request('GET', `/api/artifacts/${artifact.id}/changes`, { token: owner.token })
    expect(missing.statusCode).toBe(400)
    expect(missing.json().code).toBe('validation_failed')
    expect(missing.body).toContain('since')
    const zero = await api.request('GET', `/api/artifacts/${artifact.id}/changes?since=0`, { token: owner.token })
    expect(zero.statusCode).toBe(400)
    expect(zero.json().code).toBe('validation_failed')
  })
})
