import { accountActions } from '@quire/core'
import { timeoutFor, until } from '@quire/testing/waits'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { engine, oauthTokensFor, startTestApi, type TestApi } from './helper.ts'
import { join } from './operation-world.ts'

/**
 * Events about a person's credentials and identity are the person's: they are filed in the
 * personal workspace (whose plan keeps them) but the members of that workspace never read them.
 */

let api: TestApi
beforeAll(async () => {
  api = await startTestApi()
})
afterAll(() => api?.close())

const actions = (page: { items: { action: string }[] }) => page.items.map((e) => e.action)
const accountOnly = new Set<string>(accountActions)

describe(`account events stay with the account (${engine})`, () => {
  // Waits: the refused key's event.
  it("an admin of alice's personal workspace sees its content events, never her keys, tokens, sign-ins or identity", {
    timeout: timeoutFor(1),
  }, async () => {
    const email = 'alice.account-events@example.com'
    const token = (await oauthTokensFor(api, email)).access_token
    const me = await api.call('GET', '/api/profile/me', token)
    const alice = { token, email, userId: me.id }
    const admin = await api.user('admin.of-alice@example.com')
    await join(api, alice.token, me.personalWorkspaceId, { ...admin, email: 'admin.of-alice@example.com' }, 'admin')
    // Credential and identity events…
    const key = await api.call('POST', '/api/api-keys', alice.token, { name: 'laptop', scopes: ['artifacts:read'] })
    await api.call('DELETE', `/api/api-keys/${key.id}`, alice.token)
    await api.request('GET', '/api/profile/me', { token: key.secret }) // credential.rejected, in the background
    await api.call('PATCH', '/api/profile/me', alice.token, { username: 'alice-renamed' })
    // …and content events in the same workspace.
    await api.call('POST', '/api/projects', alice.token, { ownerUsername: 'alice-renamed', slug: 'notes', title: 'Notes', icon: 'n' })

    const expectedAccount = [
      'user.created',
      'session.started',
      'oauth.token_issued',
      'api_key.created',
      'api_key.revoked',
      'credential.rejected',
      'profile.username_changed',
    ]
    const mine = await until("the revoked key's credential.rejected on alice's trail", async () => {
      const listed = actions(await api.call('GET', '/api/audit-events?limit=100', alice.token))
      return listed.includes('credential.rejected') && listed
    })
    for (const action of expectedAccount) expect(mine, action).toContain(action)

    const theirs = actions(await api.call('GET', `/api/workspaces/${me.personalWorkspaceId}/audit-events?limit=100`, admin.token))
    expect(theirs).toContain('project.created')
    expect(theirs).toContain('workspace.member_joined')
    expect(theirs.filter((action) => accountOnly.has(action))).toEqual([])
    // Alice herself, reading the same workspace's trail as a member, sees the same as her admin:
    // her account events are on her account trail.
    const asMember = actions(await api.call('GET', `/api/workspaces/${me.personalWorkspaceId}/audit-events?limit=100`, alice.token))
    expect(asMember.filter((action) => accountOnly.has(action))).toEqual([])
    // And the admin's own account trail holds none of alice's.
    const adminsOwn = (await api.call('GET', '/api/audit-events?limit=100', admin.token)).items as { actor: { id: string }; data: object }[]
    expect(adminsOwn.filter((e) => e.actor.id === alice.userId)).toEqual([])
  })
})
