import { timeoutFor, until } from '@quire/testing/waits'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { count, engine, seedArtifact, startTestApi, type TestApi } from './helper.ts'

let api: TestApi
let now = new Date('2026-11-23T10:00:00.000Z')
const clock = { now: () => now }

beforeAll(async () => {
  api = await startTestApi({ clock })
})
afterAll(() => api?.close())

describe(`API keys (${engine})`, () => {
  // Waits: the first use's stamp.
  it('shows the secret once, lists the key by prefix, and the key works as a bearer credential', { timeout: timeoutFor(1) }, async () => {
    const ada = await api.user('ada.keys@example.com')
    const res = await api.request('POST', '/api/api-keys', { token: ada.token, body: { name: 'laptop', scopes: ['artifacts:read'] } })
    expect(res.statusCode).toBe(201)
    expect(res.headers['cache-control']).toBe('no-store')
    const created = res.json()
    expect(created).toMatchObject({ name: 'laptop', scopes: ['artifacts:read'], status: 'active', lastUsedAt: null, expiresAt: null })
    expect(created.secret).toMatch(/^qk_/)
    expect(created.secret.startsWith(created.prefix)).toBe(true)
    const stored = await api.runtime.database.db
      .selectFrom('credentials')
      .select(['secret_hash'])
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow()
    expect(stored.secret_hash).toBe(api.runtime.deps.sha256(created.secret))

    expect((await api.call('GET', '/api/profile/me', created.secret)).email).toBe('ada.keys@example.com')
    // lastUsedAt is written off the request's path: it lands a moment after the request.
    const mineNow = async () => (await api.call('GET', '/api/api-keys', ada.token)).items.find((k: { id: string }) => k.id === created.id)
    const mine = await until("the key's last use in its listing", async () => {
      const listed = await mineNow()
      return listed.lastUsedAt !== null && listed
    })
    expect(mine).toMatchObject({ name: 'laptop', prefix: created.prefix, status: 'active' })
    expect(mine.secret).toBeUndefined()
    expect(mine.lastUsedAt).not.toBeNull()
    const events = (await api.call('GET', '/api/audit-events', ada.token)).items
    expect(events.find((e: { action: string }) => e.action === 'api_key.created')).toMatchObject({
      data: { apiKeyId: created.id, scopes: ['artifacts:read'] },
      via: { credential: 'api_key' },
    })
  })

  it('a key never carries a scope its creator lacks, nor grants more than its owner has', async () => {
    const { owner, artifact } = await seedArtifact(api, { email: 'owner.keys@example.com' })
    const narrow = await api.call('POST', '/api/api-keys', owner.token, { name: 'narrow', scopes: ['agents:manage', 'artifacts:read'] })
    const wider = await api.request('POST', '/api/api-keys', {
      token: narrow.secret,
      body: { name: 'wider', scopes: ['artifacts:delete'] },
    })
    expect(wider.statusCode).toBe(403)
    expect(wider.json()).toMatchObject({ code: 'insufficient_scope', scope: 'artifacts:delete' })
    expect(
      (await api.request('POST', '/api/api-keys', { token: narrow.secret, body: { name: 'same', scopes: ['artifacts:read'] } })).statusCode,
    ).toBe(201)

    // A member's key with every scope still cannot do what a member may not.
    const member = await api.user('member.keys@example.com')
    const me = await api.call('GET', '/api/profile/me', owner.token)
    await api.runtime.database.db
      .insertInto('memberships')
      .values({ workspace_id: me.personalWorkspaceId, user_id: member.userId, role: 'member', created_at: now })
      .execute()
    const del = await api.request('DELETE', `/api/artifacts/${artifact.id}`, { token: member.token })
    expect(del.statusCode).toBe(403)
    expect(del.json().code).toBe('forbidden')
  })

  // Waits: the refused use's event.
  it('revocation stops the key at once; revoking again changes nothing; others cannot revoke it', { timeout: timeoutFor(1) }, async () => {
    const bob = await api.user('bob.revoke@example.com')
    const mallory = await api.user('mallory.revoke@example.com')
    const key = await api.call('POST', '/api/api-keys', bob.token, { name: 'ci', scopes: ['artifacts:read'] })
    expect((await api.request('DELETE', `/api/api-keys/${key.id}`, { token: mallory.token })).statusCode).toBe(404)
    expect((await api.request('GET', '/api/profile/me', { token: key.secret })).statusCode).toBe(200)
    const before = await count(api, 'audit_events')
    const revoked = await api.call('DELETE', `/api/api-keys/${key.id}`, bob.token)
    expect(revoked).toMatchObject({ id: key.id, status: 'revoked', revokedAt: now.toISOString() })
    const refused = await api.request('GET', '/api/profile/me', { token: key.secret })
    expect(refused.statusCode).toBe(401)
    expect(refused.json().code).toBe('invalid_token')
    expect(await api.call('DELETE', `/api/api-keys/${key.id}`, bob.token)).toMatchObject({
      status: 'revoked',
      revokedAt: revoked.revokedAt,
    })
    // The revocation, and the refused use (credential.rejected, written off the request's path);
    // revoking again adds nothing.
    await until('the revocation and the refused use on the trail', async () => (await count(api, 'audit_events')) >= before + 2)
    const added = await api.runtime.database.db
      .selectFrom('audit_events')
      .select('action')
      .where('action', '!=', 'api_key.created')
      .where((eb) => eb.or([eb(sql`data->>'apiKeyId'`, '=', key.id), eb(sql`data->>'credentialId'`, '=', key.id)]))
      .execute()
    expect(added.map((e) => e.action).sort()).toEqual(['api_key.revoked', 'credential.rejected'])
    expect(await count(api, 'audit_events')).toBe(before + 2)
    expect((await api.call('GET', '/api/api-keys', bob.token)).items.map((k: { id: string }) => k.id)).not.toContain(key.id)
  })

  it('an expiring key works until its expiry, then answers 401', async () => {
    const cy = await api.user('cy.expiry@example.com')
    const past = await api.request('POST', '/api/api-keys', {
      token: cy.token,
      body: { name: 'old', scopes: ['artifacts:read'], expiresAt: new Date(now.getTime() - 1000).toISOString() },
    })
    expect(past.statusCode).toBe(400)
    expect(past.json().errors).toEqual([{ path: '/body/expiresAt', message: 'must be in the future' }])
    const key = await api.call('POST', '/api/api-keys', cy.token, {
      name: 'day pass',
      scopes: ['artifacts:read'],
      expiresAt: new Date(now.getTime() + 86_400_000).toISOString(),
    })
    expect((await api.request('GET', '/api/workspaces', { token: key.secret })).statusCode).toBe(200)
    now = new Date(now.getTime() + 86_400_000)
    expect((await api.request('GET', '/api/workspaces', { token: key.secret })).statusCode).toBe(401)
    expect((await api.call('GET', '/api/api-keys', cy.token)).items.find((k: { id: string }) => k.id === key.id).status).toBe('expired')
  })

  it('refuses unknown scopes and empty scope lists', async () => {
    const dee = await api.user('dee.scopes@example.com')
    const unknown = await api.request('POST', '/api/api-keys', { token: dee.token, body: { name: 'x', scopes: ['artifacts:everything'] } })
    expect(unknown.statusCode).toBe(400)
    expect(unknown.body).toContain('artifacts:everything')
    expect((await api.request('POST', '/api/api-keys', { token: dee.token, body: { name: 'x', scopes: [] } })).statusCode).toBe(400)
  })
})
