import { setTimeout as sleep } from 'node:timers/promises'
import type { CredentialGuard, IdempotencyDraft } from '@quire/core'
import { testEngine } from '@quire/testing/test-database'
import { timeoutFor, until } from '@quire/testing/waits'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RawQuery } from '../src/database.ts'
import { accountStore } from '../src/stores/accounts.ts'
import { credentialStore } from '../src/stores/credentials.ts'
import type { TestDatabase } from '../src/testing.ts'
import { type Deps, event, ids, openStores, seedUser, untilBlocked } from './fixtures.ts'

let handle: TestDatabase
let deps: Deps

beforeAll(async () => {
  ;({ handle, deps } = await openStores())
})
afterAll(async () => {
  await handle.close()
})

const operator = (): CredentialGuard => ({ credentialId: null, at: new Date() })

async function eventsOf(action: string, workspaceId: string) {
  return handle.db.selectFrom('audit_events').selectAll().where('action', '=', action).where('workspace_id', '=', workspaceId).execute()
}

async function usernameOf(userId: string) {
  const row = await handle.db
    .selectFrom('users as u')
    .innerJoin('workspaces as w', 'w.id', 'u.personal_workspace_id')
    .select(['u.username', 'w.slug', 'w.name'])
    .where('u.id', '=', userId)
    .executeTakeFirstOrThrow()
  return row
}

describe(`accounts (${testEngine})`, () => {
  it('reads a profile: the user, the personal workspace and its plan', async () => {
    const { user, workspaceId } = await seedUser(deps)
    const profile = await deps.accounts.profile(user.id)
    expect(profile).toMatchObject({ user: { id: user.id, email: user.email, username: user.username }, personalWorkspaceId: workspaceId })
    expect(profile?.plan).toBe('free')
    expect(profile?.createdAt).toBeInstanceOf(Date)
    expect(await deps.accounts.profile('usr_missing')).toBeNull()
  })

  it('renames the user with the personal workspace, with one event, while the credential is live', async () => {
    const { user, credentialId, workspaceId } = await seedUser(deps)
    const name = `r${Math.random().toString(36).slice(2, 10)}`
    const guard = { credentialId, at: new Date() }
    const renamed = await deps.accounts.rename({
      userId: user.id,
      username: name,
      guard,
      audit: event('profile.username_changed', { workspaceId }),
    })
    expect(renamed).toEqual({ ok: true })
    expect(await usernameOf(user.id)).toEqual({ username: name, slug: name, name })
    expect(await eventsOf('profile.username_changed', workspaceId)).toHaveLength(1)

    // A revoked (or expired) credential renames nothing and records nothing.
    await handle.db.updateTable('credentials').set({ revoked_at: new Date() }).where('id', '=', credentialId).execute()
    const refused = await deps.accounts.rename({
      userId: user.id,
      username: `${name}-2`,
      guard: { credentialId, at: new Date() },
      audit: event('profile.username_changed', { workspaceId }),
    })
    expect(refused).toEqual({ ok: false, reason: 'refused' })
    expect(await usernameOf(user.id)).toMatchObject({ username: name })
    expect(await eventsOf('profile.username_changed', workspaceId)).toHaveLength(1)
  })

  it('refuses a name held by another user or a team workspace', async () => {
    const a = await seedUser(deps)
    const b = await seedUser(deps)
    const taken = await deps.accounts.rename({
      userId: a.user.id,
      username: b.user.username,
      guard: operator(),
      audit: event('profile.username_changed'),
    })
    expect(taken).toEqual({ ok: false, reason: 'slug_taken' })
    const team = `t${Math.random().toString(36).slice(2, 10)}`
    await deps.workspaces.create({
      workspace: { id: ids.next('ws'), slug: team, name: 'Team', createdAt: new Date() },
      ownerId: b.user.id,
      guard: operator(),
      audit: event('workspace.created'),
      idempotency: null,
    })
    const teamTaken = await deps.accounts.rename({
      userId: a.user.id,
      username: team,
      guard: operator(),
      audit: event('profile.username_changed'),
    })
    expect(teamTaken).toEqual({ ok: false, reason: 'slug_taken' })
    expect(await usernameOf(a.user.id)).toMatchObject({ username: a.user.username })
  })

  it('lets exactly one of two concurrent renames to one name win', async () => {
    const a = await seedUser(deps)
    const b = await seedUser(deps)
    const name = `c${Math.random().toString(36).slice(2, 10)}`
    const rename = (u: typeof a) =>
      deps.accounts.rename({
        userId: u.user.id,
        username: name,
        guard: operator(),
        audit: event('profile.username_changed', { workspaceId: u.workspaceId }),
      })
    const outcomes = await Promise.all([rename(a), rename(b)])
    expect(outcomes).toContainEqual({ ok: true })
    expect(outcomes).toContainEqual({ ok: false, reason: 'slug_taken' })
    const winner = outcomes[0]?.ok ? a : b
    expect(await usernameOf(winner.user.id)).toMatchObject({ username: name })
    const events = [
      ...(await eventsOf('profile.username_changed', a.workspaceId)),
      ...(await eventsOf('profile.username_changed', b.workspaceId)),
    ]
    expect(events).toHaveLength(1)
  })

  // Waits: for the second rename to block.
  it.runIf(testEngine === 'postgres')(
    'makes the second rename wait for the first and fail once it commits',
    {
      timeout: timeoutFor(1),
    },
    async () => {
      const a = await seedUser(deps)
      const b = await seedUser(deps)
      const name = `w${Math.random().toString(36).slice(2, 10)}`
      let second: Promise<unknown> = Promise.resolve()
      let settled = false
      const first = await handle.db.transaction().execute(async (trx) => {
        const won = await accountStore(trx).rename({
          userId: a.user.id,
          username: name,
          guard: operator(),
          audit: event('profile.username_changed'),
        })
        second = deps.accounts
          .rename({ userId: b.user.id, username: name, guard: operator(), audit: event('profile.username_changed') })
          .finally(() => {
            settled = true
          })
        await untilBlocked(handle)
        expect(settled).toBe(false) // blocked on the first one's index entry
        return won
      })
      expect(first).toEqual({ ok: true })
      expect(await second).toEqual({ ok: false, reason: 'slug_taken' })
    },
  )
})

describe(`API keys (${testEngine})`, () => {
  const keyCommand = (userId: string, guard: CredentialGuard, idempotency: IdempotencyDraft | null = null) => {
    const id = ids.next('key')
    return {
      id,
      userId,
      name: `key ${id}`,
      scopes: ['artifacts:read' as const],
      secretHash: `hash-${id}`,
      displayPrefix: 'qk_abc',
      expiresAt: null,
      at: guard.at,
      guard,
      audit: event('api_key.created', { data: { apiKeyId: id } }),
      idempotency,
    }
  }

  it('creates a key with its event and idempotency record, only while the creating credential is live', async () => {
    const { user, credentialId } = await seedUser(deps)
    const draft: IdempotencyDraft = {
      scope: user.id,
      key: ids.next('evt'),
      requestHash: 'h',
      status: 201,
      response: { ok: 1 },
      at: new Date(),
    }
    const created = keyCommand(user.id, { credentialId, at: new Date() }, draft)
    expect(await deps.apiKeys.create(created)).toEqual({ ok: true })
    expect(await deps.idempotency.find(draft.scope, draft.key, new Date(0))).toMatchObject({
      requestHash: 'h',
      status: 201,
      response: { ok: 1 },
    })
    const row = await handle.db.selectFrom('credentials').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow()
    expect(row).toMatchObject({ kind: 'api_key', user_id: user.id, scopes: ['artifacts:read'], created_by_kind: 'operator' })

    const retry = keyCommand(user.id, { credentialId, at: new Date() }, draft)
    expect(await deps.apiKeys.create(retry)).toEqual({ ok: false, reason: 'idempotency_taken' })
    expect(await handle.db.selectFrom('credentials').select('id').where('id', '=', retry.id).execute()).toHaveLength(0)

    await handle.db
      .updateTable('credentials')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('id', '=', credentialId)
      .execute()
    const late = keyCommand(user.id, { credentialId, at: new Date() })
    expect(await deps.apiKeys.create(late)).toEqual({ ok: false, reason: 'refused' })
    const events = await handle.db
      .selectFrom('audit_events')
      .select('id')
      .where('id', 'in', [created.audit.id, retry.audit.id, late.audit.id])
      .execute()
    expect(events.map((e) => e.id)).toEqual([created.audit.id])
  })

  it('lists a user’s live keys newest first, by keyset', async () => {
    const { user, credentialId } = await seedUser(deps)
    const other = await seedUser(deps)
    const made: string[] = [credentialId]
    for (let i = 0; i < 3; i++) {
      const cmd = keyCommand(user.id, operator())
      await deps.apiKeys.create(cmd)
      made.push(cmd.id)
    }
    await deps.apiKeys.create(keyCommand(other.user.id, operator()))
    const revoked = made[1] as string
    await deps.apiKeys.revoke({ keyId: revoked, userId: user.id, guard: operator(), audit: event('api_key.revoked') })
    const live = made.filter((id) => id !== revoked).reverse()
    const first = await deps.apiKeys.listForUser(user.id, { limit: 2, after: null })
    expect(first.map((k) => k.id)).toEqual(live.slice(0, 3))
    const rest = await deps.apiKeys.listForUser(user.id, { limit: 2, after: live[1] as string })
    expect(rest.map((k) => k.id)).toEqual(live.slice(2))
    expect(first[0]).toMatchObject({
      name: expect.any(String),
      displayPrefix: 'qk_abc',
      scopes: ['artifacts:read'],
      revokedAt: null,
      lastUsedAt: null,
    })
  })

  it('revokes the user’s own key once: one event, later calls change nothing', async () => {
    const { user, credentialId } = await seedUser(deps)
    const other = await seedUser(deps)
    const cmd = keyCommand(user.id, operator())
    await deps.apiKeys.create(cmd)
    const revoke = (userId: string, keyId: string, guard: CredentialGuard = { credentialId, at: new Date() }) =>
      deps.apiKeys.revoke({ keyId, userId, guard, audit: event('api_key.revoked', { data: { apiKeyId: keyId } }) })

    expect(await revoke(other.user.id, cmd.id, operator())).toEqual({ ok: false, reason: 'gone' })
    expect(await revoke(user.id, 'key_missing')).toEqual({ ok: false, reason: 'gone' })
    expect(await revoke(user.id, other.credentialId)).toEqual({ ok: false, reason: 'gone' })
    const first = await revoke(user.id, cmd.id)
    expect(first).toMatchObject({ ok: true, changed: true, key: { id: cmd.id, revokedAt: expect.any(Date) } })
    const again = await revoke(user.id, cmd.id)
    expect(again).toMatchObject({ ok: true, changed: false, key: { id: cmd.id } })
    if (first.ok && again.ok) expect(again.key.revokedAt).toEqual(first.key.revokedAt)
    const events = await handle.db
      .selectFrom('audit_events')
      .select('id')
      .where('action', '=', 'api_key.revoked')
      .where((eb) => eb.ref('data', '->>').key('apiKeyId'), '=', cmd.id)
      .execute()
    expect(events).toHaveLength(1)

    // The key behind the call revokes itself; after that it can revoke nothing.
    const self = await revoke(user.id, credentialId)
    expect(self).toMatchObject({ ok: true, changed: true })
    const another = keyCommand(user.id, operator())
    await deps.apiKeys.create(another)
    expect(await revoke(user.id, another.id)).toEqual({ ok: false, reason: 'refused' })
  })
})

describe(`credential use (${testEngine})`, () => {
  /** A credential store that counts the statements it has had answered. */
  function countingCredentials() {
    let queries = 0
    const db = handle.db.withPlugin({
      transformQuery: (args) => args.node,
      transformResult: async (args) => {
        queries++
        return args.result
      },
    })
    return { store: credentialStore(db, handle.query, { touchEntries: 2 }), queries: () => queries }
  }

  /** Waits until `n` UPDATEs were answered (packages/testing/src/waits.ts): not one more. */
  async function untilAnswered(count: () => number, n: number, what: string): Promise<void> {
    await until(
      () => `${what}: ${n} UPDATEs answered (${count()} so far)`,
      () => count() >= n,
    )
    expect(count()).toBe(n)
  }

  const lastUsed = async (id: string) =>
    (await handle.db.selectFrom('credentials').select('last_used_at').where('id', '=', id).executeTakeFirstOrThrow()).last_used_at

  // Waits: three UPDATEs.
  it('records the last use at most once a minute per credential, sending nothing more within the minute', {
    timeout: timeoutFor(3),
  }, async () => {
    const { user, credentialId } = await seedUser(deps)
    const { store, queries } = countingCredentials()
    const t0 = new Date(Date.UTC(2030, 0, 1, 12, 0, 0))
    store.touch(credentialId, t0)
    await untilAnswered(queries, 1, 'the first use')
    expect(await lastUsed(credentialId)).toEqual(t0)

    // Within the minute: nothing is sent at all.
    store.touch(credentialId, new Date(t0.getTime() + 30_000))
    store.touch(credentialId, new Date(t0.getTime() + 59_000))
    await sleep(50)
    expect(queries()).toBe(1)

    // Another process (no memory of it) within the minute: the UPDATE's condition keeps the stamp.
    const other = countingCredentials()
    other.store.touch(credentialId, new Date(t0.getTime() + 40_000))
    await untilAnswered(other.queries, 1, "another process's use")
    expect(await lastUsed(credentialId)).toEqual(t0)

    // A minute later: written again, and the key's listing shows it.
    const t1 = new Date(t0.getTime() + 61_000)
    store.touch(credentialId, t1)
    await untilAnswered(queries, 2, 'a use a minute later')
    expect(await lastUsed(credentialId)).toEqual(t1)
    const [key] = await deps.apiKeys.listForUser(user.id, { limit: 10, after: null })
    expect(key?.lastUsedAt).toEqual(t1)
  })

  // Waits: three UPDATEs, then one.
  it('forgets the credentials written longest ago beyond its bound', { timeout: timeoutFor(2) }, async () => {
    const users = await Promise.all([seedUser(deps), seedUser(deps), seedUser(deps)])
    const { store, queries } = countingCredentials()
    const t0 = new Date(Date.UTC(2031, 0, 1))
    for (const u of users) store.touch(u.credentialId, t0)
    await untilAnswered(queries, 3, 'the first use of each')
    // Bound 2: the first credential was forgotten, so touching it sends one UPDATE (which changes
    // nothing); the last one is remembered and sends none.
    store.touch(users[2]?.credentialId ?? '', t0)
    store.touch(users[0]?.credentialId ?? '', t0)
    await untilAnswered(queries, 4, 'the forgotten one used again')
    await sleep(50)
    expect(queries()).toBe(4)
  })

  it('looks up the credentials presented in one turn with one statement, each its own answer', async () => {
    const [first, second] = await Promise.all([seedUser(deps), seedUser(deps)])
    if (!first || !second) throw new Error('no users')
    let statements = 0
    const counted: RawQuery = (text, parameters) => {
      statements++
      return handle.query(text, parameters)
    }
    const store = credentialStore(handle.db, counted, { touchEntries: 10 })
    const [a, b, unknown] = await Promise.all([
      store.find(first.credential),
      store.find(second.credential),
      store.find({ secretHash: '0'.repeat(64) }),
    ])
    expect(statements).toBe(1)
    expect(a).toMatchObject({ id: first.credentialId, kind: 'api_key', user: { id: first.user.id, email: first.user.email } })
    expect(b).toMatchObject({ id: second.credentialId, user: { id: second.user.id } })
    expect(a?.revokedAt).toBeNull()
    expect(unknown).toBeNull()
    // A later turn is a statement of its own: nothing is answered from an earlier one.
    await store.find(first.credential)
    expect(statements).toBe(2)
  })

  it('never fails the request when the write fails', async () => {
    const broken = handle.db.withPlugin({
      transformQuery: () => {
        throw new Error('the database is gone')
      },
      transformResult: async (args) => args.result,
    })
    const store = credentialStore(broken, handle.query, { touchEntries: 10 })
    // An unhandled rejection would fail the run.
    expect(() => store.touch('key_any', new Date())).not.toThrow()
    await sleep(50)
  })
})
