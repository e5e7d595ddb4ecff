import { type AuditAction, type OidcIdentity, type ResolveOidcUserCommand, usernameCandidates } from '@quire/core'
import { testEngine } from '@quire/testing/test-database'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestDatabase } from '../src/testing.ts'
import { type Deps, event, ids, openStores, seedUser } from './fixtures.ts'

let handle: TestDatabase
let deps: Deps

beforeAll(async () => {
  ;({ handle, deps } = await openStores())
})
afterAll(async () => {
  await handle.close()
})

const issuer = 'https://idp.test'
const fresh = (prefix: string) => `${prefix}${Math.random().toString(36).slice(2, 10)}`

function identity(fields: Partial<OidcIdentity> = {}): OidcIdentity {
  return { issuer, subject: fresh('sub-'), email: `${fresh('p')}@example.com`, emailVerified: true, ...fields }
}

/** A sign-in as the use-case makes it: fresh ids every time. */
function command(person: OidcIdentity): ResolveOidcUserCommand {
  const at = new Date()
  return {
    identity: person,
    usernameCandidates: usernameCandidates(person.email),
    userId: ids.next('usr'),
    workspaceId: ids.next('ws'),
    at,
    audit: (user, personalWorkspaceId) => event('user.created', { at, workspaceId: personalWorkspaceId, data: { userId: user.id } }),
    linkAudit: (user) => event('user.identity_linked', { at, data: { userId: user.id, subject: person.subject } }),
  }
}

const resolve = (person: OidcIdentity) => deps.signIn.resolveOidcUser(command(person))

/** The `subject` recorded by each event of this action about this user, oldest first. */
async function eventsOf(action: AuditAction, userId: string): Promise<unknown[]> {
  const rows = await handle.db
    .selectFrom('audit_events')
    .select('data')
    .where('action', '=', action)
    .where(sql<boolean>`data->>'userId' = ${userId}`)
    .orderBy('id')
    .execute()
  return rows.map((r) => ((typeof r.data === 'string' ? JSON.parse(r.data) : r.data) as { subject?: string }).subject)
}

async function createdEvents(userId: string) {
  return handle.db
    .selectFrom('audit_events')
    .select(['workspace_id'])
    .where('action', '=', 'user.created')
    .where((eb) => eb.ref('data', '->>').key('userId'), '=', userId)
    .execute()
}

async function usersWithEmail(email: string) {
  return handle.db.selectFrom('users').select(['id', 'email_verified']).where('email', '=', email).orderBy('id').execute()
}

async function identitiesOf(userId: string) {
  return handle.db.selectFrom('user_identities').select(['issuer', 'subject']).where('user_id', '=', userId).orderBy('subject').execute()
}

describe(`resolving a person signed in at the provider (${testEngine})`, () => {
  it('creates a user with a personal workspace on the first sign-in, and finds them by subject after', async () => {
    const person = identity()
    const first = await resolve(person)
    expect(first).toMatchObject({ created: true, user: { email: person.email, emailVerified: true } })
    const { user } = first
    const row = await handle.db
      .selectFrom('users as u')
      .innerJoin('workspaces as w', 'w.id', 'u.personal_workspace_id')
      .innerJoin('memberships as m', (j) => j.onRef('m.workspace_id', '=', 'w.id').onRef('m.user_id', '=', 'u.id'))
      .select(['u.username', 'w.slug', 'w.kind', 'm.role', 'w.id as workspace_id'])
      .where('u.id', '=', user.id)
      .executeTakeFirstOrThrow()
    expect(row).toMatchObject({ username: user.username, slug: user.username, kind: 'personal', role: 'owner' })
    expect(await identitiesOf(user.id)).toEqual([{ issuer, subject: person.subject }])
    expect(await createdEvents(user.id)).toEqual([{ workspace_id: row.workspace_id }])

    const again = await resolve(person)
    expect(again).toEqual({ created: false, user })
    expect(await createdEvents(user.id)).toHaveLength(1)
  })

  it('follows the provider’s latest word on the email, except onto an address another user holds verified', async () => {
    const person = identity()
    const { user } = await resolve(person)

    const moved = { ...person, email: `${fresh('m')}@example.com`, emailVerified: false }
    expect(await resolve(moved)).toEqual({ created: false, user: { ...user, email: moved.email, emailVerified: false } })
    const verified = { ...moved, emailVerified: true }
    expect(await resolve(verified)).toEqual({ created: false, user: { ...user, email: moved.email, emailVerified: true } })

    // Another user holds this address, verified: the person keeps theirs, no longer vouched for.
    const other = await seedUser(deps)
    const onto = await resolve({ ...person, email: other.user.email, emailVerified: true })
    expect(onto).toEqual({ created: false, user: { ...user, email: moved.email, emailVerified: false } })
    expect(await usersWithEmail(other.user.email)).toEqual([{ id: other.user.id, email_verified: true }])
  })

  it('links a new subject to the user holding the verified email', async () => {
    const seeded = await seedUser(deps)
    const seededEvents = await createdEvents(seeded.user.id)
    const person = identity({ email: seeded.user.email, emailVerified: true })
    const linked = await resolve(person)
    expect(linked).toMatchObject({ created: false, user: { id: seeded.user.id, username: seeded.user.username, emailVerified: true } })
    expect(await identitiesOf(seeded.user.id)).toEqual([{ issuer, subject: person.subject }])

    // A second provider (or subject) with the same verified address joins the same user.
    const elsewhere = identity({ issuer: 'https://other-idp.test', email: seeded.user.email })
    expect((await resolve(elsewhere)).user.id).toBe(seeded.user.id)
    expect(await identitiesOf(seeded.user.id)).toHaveLength(2)
    expect(await createdEvents(seeded.user.id)).toEqual(seededEvents)
    // Each link is on the trail; signing in again through a linked subject is not a link.
    await resolve(person)
    expect(await eventsOf('user.identity_linked', seeded.user.id)).toEqual([person.subject, elsewhere.subject])
  })

  it('never links by an unverified email: that makes a new user, who cannot take the address', async () => {
    const seeded = await seedUser(deps)
    const squatter = identity({ email: seeded.user.email, emailVerified: false })
    const made = await resolve(squatter)
    expect(made).toMatchObject({ created: true, user: { email: seeded.user.email, emailVerified: false } })
    expect(made.user.id).not.toBe(seeded.user.id)
    expect(await identitiesOf(seeded.user.id)).toEqual([])
    expect(await usersWithEmail(seeded.user.email)).toEqual(
      [
        { id: seeded.user.id, email_verified: true },
        { id: made.user.id, email_verified: false },
      ].sort((a, b) => (a.id < b.id ? -1 : 1)),
    )
  })

  it('does not let an unverified first sign-in hold the address against its owner', async () => {
    const email = `${fresh('o')}@example.com`
    const squatter = await resolve(identity({ email, emailVerified: false }))
    const owner = await resolve(identity({ email, emailVerified: true }))
    expect(owner).toMatchObject({ created: true, user: { email, emailVerified: true } })
    expect(owner.user.id).not.toBe(squatter.user.id)
    expect(await identitiesOf(squatter.user.id)).toHaveLength(1)
  })

  for (const emailVerified of [true, false]) {
    it(`makes one user of concurrent first sign-ins of one person (email ${emailVerified ? '' : 'un'}verified)`, async () => {
      const person = identity({ emailVerified })
      const outcomes = await Promise.all(Array.from({ length: 6 }, () => resolve(person)))
      const userIds = new Set(outcomes.map((o) => o.user.id))
      expect(userIds.size).toBe(1)
      expect(outcomes.filter((o) => o.created)).toHaveLength(1)
      const [userId] = [...userIds] as [string]
      expect(await usersWithEmail(person.email)).toEqual([{ id: userId, email_verified: emailVerified }])
      expect(await identitiesOf(userId)).toEqual([{ issuer, subject: person.subject }])
      expect(await createdEvents(userId)).toHaveLength(1)
      // The losers' personal workspaces were rolled back with them.
      const workspaces = await handle.db
        .selectFrom('workspaces')
        .select('id')
        .where('slug', 'like', `${outcomes[0]?.user.username}%`)
        .execute()
      expect(workspaces).toHaveLength(1)
    })
  }

  it('makes one user when two people’s first sign-ins share a verified email at once', async () => {
    const email = `${fresh('s')}@example.com`
    const outcomes = await Promise.all([resolve(identity({ email })), resolve(identity({ email, issuer: 'https://other-idp.test' }))])
    expect(new Set(outcomes.map((o) => o.user.id)).size).toBe(1)
    expect(outcomes.filter((o) => o.created)).toHaveLength(1)
    expect(await identitiesOf(outcomes[0]?.user.id ?? '')).toHaveLength(2)
  })
})

describe(`browser sessions (${testEngine})`, () => {
  it('stores a session as a credential of its user, and ends it once', async () => {
    const { user } = await resolve(identity())
    const secretHash = `session-${fresh('')}`
    const expiresAt = new Date(Date.now() + 86_400_000)
    const id = ids.next('ses')
    const audit = (action: 'session.started' | 'session.ended') => event(action, { data: { userId: user.id, subject: id } })
    await deps.signIn.createSession({ id, userId: user.id, secretHash, expiresAt, at: new Date(), audit: audit('session.started') })
    expect(await deps.credentials.find({ secretHash })).toMatchObject({ id, kind: 'session', expiresAt, revokedAt: null, user })

    const endedAt = new Date()
    await deps.signIn.endSession(secretHash, endedAt, audit('session.ended'))
    expect(await deps.credentials.find({ secretHash })).toMatchObject({ id, revokedAt: endedAt })
    await deps.signIn.endSession(secretHash, new Date(endedAt.getTime() + 60_000), audit('session.ended'))
    expect(await deps.credentials.find({ secretHash })).toMatchObject({ id, revokedAt: endedAt })
    await expect(deps.signIn.endSession('no-such-session', new Date(), audit('session.ended'))).resolves.toBeUndefined()
    // One start, one end: ending an ended (or unknown) session records nothing.
    expect(await eventsOf('session.started', user.id)).toEqual([id])
    expect(await eventsOf('session.ended', user.id)).toEqual([id])
  })

  it('ends sessions only: another credential’s hash is left alone', async () => {
    const seeded = await seedUser(deps)
    await deps.signIn.endSession(seeded.credential.secretHash, new Date(), event('session.ended', { data: { userId: seeded.user.id } }))
    expect(await eventsOf('session.ended', seeded.user.id)).toEqual([])
    expect(await deps.credentials.find(seeded.credential)).toMatchObject({ kind: 'api_key', revokedAt: null })
  })
})
