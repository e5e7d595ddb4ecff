import { expireIdempotencyRecords, idempotencyWindowMs, secretShownOnce } from '@quire/core'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { count, engine, seedArtifact, startTestApi, type TestApi } from './helper.ts'

/**
 * Idempotency records never hold a secret, replays say what the thing is now, and records are
 * forgotten after the window.
 */

let api: TestApi
let now = new Date('2026-11-25T10:00:00.000Z')
const clock = { now: () => now }
const hours = (n: number) => n * 3_600_000

beforeAll(async () => {
  api = await startTestApi({ clock })
})
afterAll(() => api?.close())

function post(url: string, token: string, body: unknown, key: string) {
  return api.request('POST', url, { token, body, headers: { 'idempotency-key': key } })
}

/** Every idempotency record as text, as a database dump would show it. */
async function storedRecords(): Promise<string> {
  const { rows } = await sql<{ row: string }>`SELECT row_to_json(i)::text AS row FROM idempotency_keys i`.execute(api.runtime.database.db)
  return rows.map((r) => r.row).join('\n')
}

describe(`idempotency records hold no secret (${engine})`, () => {
  it('an API key: the secret is shown once; a replay has the key as it is now, without it', async () => {
    const ada = await api.user('ada.idempotent-key@example.com')
    const first = await post('/api/api-keys', ada.token, { name: 'ci', scopes: ['artifacts:read'] }, 'key-1')
    expect(first.statusCode).toBe(201)
    const created = first.json()
    expect(created.secret).toMatch(/^qk_/)
    expect(created.notice).toBeUndefined()
    expect(await storedRecords()).not.toContain(created.secret)

    const replayed = await post('/api/api-keys', ada.token, { name: 'ci', scopes: ['artifacts:read'] }, 'key-1')
    expect(replayed.statusCode).toBe(201)
    expect(replayed.headers['idempotent-replayed']).toBe('true')
    expect(replayed.json()).toMatchObject({ id: created.id, status: 'active', secret: null, notice: secretShownOnce })

    // Revoked since: the replay says so, and still has no secret.
    await api.call('DELETE', `/api/api-keys/${created.id}`, ada.token)
    const afterRevoke = (await post('/api/api-keys', ada.token, { name: 'ci', scopes: ['artifacts:read'] }, 'key-1')).json()
    expect(afterRevoke).toMatchObject({ id: created.id, status: 'revoked', secret: null })
    expect(afterRevoke.revokedAt).not.toBeNull()
    expect(JSON.stringify(afterRevoke)).not.toContain(created.secret)
  })

  it('a share link: neither the secret nor the URL that holds it is stored or replayed; the status is current', async () => {
    const { owner, artifact } = await seedArtifact(api)
    const url = `/api/artifacts/${artifact.id}/share-links`
    const first = (await post(url, owner.token, { role: 'editor' }, 'link-1')).json()
    expect(first.secret).toMatch(/^qsl_/)
    expect(first.url).toContain(first.secret)
    expect(await storedRecords()).not.toContain(first.secret)
    await api.call('POST', `/api/share-links/${first.id}/revoke`, owner.token)
    const replayed = await post(url, owner.token, { role: 'editor' }, 'link-1')
    expect(replayed.statusCode).toBe(201)
    expect(replayed.json()).toMatchObject({ id: first.id, status: 'revoked', secret: null, url: null, notice: secretShownOnce })
  })

  it('the same key with another body is still refused within the window', async () => {
    const ada = await api.user('ada.reused-key@example.com')
    await post('/api/api-keys', ada.token, { name: 'one', scopes: ['artifacts:read'] }, 'reuse')
    const other = await post('/api/api-keys', ada.token, { name: 'two', scopes: ['artifacts:read'] }, 'reuse')
    expect(other.statusCode).toBe(422)
    expect(other.json().code).toBe('idempotency_key_reused')
  })
})

describe(`idempotency records expire after ${idempotencyWindowMs / 3_600_000} h (${engine})`, () => {
  it('a retry within the window replays; after it, the key is forgotten and the request runs afresh', async () => {
    const { owner, artifact } = await seedArtifact(api)
    const url = `/api/artifacts/${artifact.id}/versions`
    const body = { content: 'v2', expectedLatestVersion: 1 }
    expect((await post(url, owner.token, body, 'append-1')).statusCode).toBe(201)
    now = new Date(now.getTime() + hours(23))
    const within = await post(url, owner.token, body, 'append-1')
    expect(within.headers['idempotent-replayed']).toBe('true')
    expect(within.json().versionNumber).toBe(2)
    now = new Date(now.getTime() + hours(2))
    const after = await post(url, owner.token, body, 'append-1')
    // Not a replay: the append runs again, and its expectation is out of date now.
    expect(after.headers['idempotent-replayed']).toBeUndefined()
    expect(after.statusCode).toBe(409)
    const fresh = await post(url, owner.token, { content: 'v3', expectedLatestVersion: 2 }, 'append-1')
    expect(fresh.statusCode).toBe(201)
    expect(fresh.json().versionNumber).toBe(3)
  })

  it('the schedule deletes records past the window and keeps the others', async () => {
    const ada = await api.user('ada.expiry@example.com')
    await post('/api/api-keys', ada.token, { name: 'old', scopes: ['artifacts:read'] }, 'old-key')
    now = new Date(now.getTime() + hours(25))
    await post('/api/api-keys', ada.token, { name: 'new', scopes: ['artifacts:read'] }, 'new-key')
    const before = await count(api, 'idempotency_keys')
    const expired = await expireIdempotencyRecords(api.runtime.operator)
    expect(expired).toBeGreaterThanOrEqual(1)
    expect(await count(api, 'idempotency_keys')).toBe(before - expired)
    const { rows } = await sql<{ key: string }>`SELECT key FROM idempotency_keys`.execute(api.runtime.database.db)
    expect(rows.map((r) => r.key)).toContain('new-key')
    expect(rows.map((r) => r.key)).not.toContain('old-key')
    expect(await expireIdempotencyRecords(api.runtime.operator)).toBe(0)
  })
})
