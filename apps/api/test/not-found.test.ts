import { createIdGenerator, invalidCredential, type OperationId, operationIds, operations } from '@quire/core'
import { claimedAgent } from '@quire/testing/claimed-agent'
import { timeoutFor, until } from '@quire/testing/waits'
import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { engine, startTestApi, type TestApi } from './helper.ts'

/**
 * No existence oracle: whatever hides a resource from a caller answers exactly as if it did not
 * exist (status, code and detail), and a refused credential gets one answer whatever the reason.
 */

let api: TestApi
const ids = createIdGenerator()
/** Well-formed identifiers that name nothing. */
const missing = {
  artifact: ids.next('art'),
  workspace: ids.next('ws'),
  invitation: ids.next('inv'),
  shareLink: ids.next('shl'),
  apiKey: ids.next('key'),
  agent: ids.next('agt'),
  webhook: ids.next('whk'),
  delivery: ids.next('whd'),
}

interface Hidden {
  readonly owner: string
  readonly artifactId: string
  readonly workspaceId: string
  readonly invitationId: string
  readonly shareLinkId: string
  readonly apiKeyId: string
  readonly agentId: string
  readonly webhookId: string
  readonly deliveryId: string
}
let hidden: Hidden
let bob: { token: string }
let strangerLink: string

beforeAll(async () => {
  api = await startTestApi()
  const alice = await api.user('alice.hidden@example.com')
  await api.call('POST', '/api/projects', alice.token, { ownerUsername: alice.username, slug: 'notes', title: 'Notes', icon: 'n' })
  const artifact = await api.call('POST', '/api/artifacts', alice.token, {
    ownerUsername: alice.username,
    projectSlug: 'notes',
    slug: 'secret-doc',
    type: 'md',
    title: 'Secret',
    content: '# secret\n',
    changelog: '',
    access: { publicView: false, publicEdit: false },
  })
  const link = await api.call('POST', `/api/artifacts/${artifact.id}/share-links`, alice.token, { role: 'viewer' })
  const key = await api.call('POST', '/api/api-keys', alice.token, { name: 'hidden', scopes: ['artifacts:read'] })
  const team = await api.call('POST', '/api/workspaces', alice.token, { slug: 'alice-hidden-team', name: 'Team' })
  const webhook = await api.call('POST', '/api/webhooks', alice.token, { url: 'https://hidden.invalid/hook', artifact: artifact.id })
  const [ping] = (await api.call('GET', `/api/webhooks/${webhook.webhook.id}/deliveries`, alice.token)).items
  const invitation = await api.call('POST', `/api/workspaces/${team.id}/invitations`, alice.token, { email: 'carol.hidden@example.com' })
  hidden = {
    owner: alice.username,
    artifactId: artifact.id,
    workspaceId: team.id,
    invitationId: invitation.id,
    shareLinkId: link.id,
    apiKeyId: key.id,
    agentId: (await claimedAgent(api.runtime.deps, { userId: alice.userId, email: 'alice.hidden@example.com' })).id,
    webhookId: webhook.webhook.id,
    deliveryId: ping.id,
  }
  bob = await api.user('bob.outsider@example.com')
  // A live share link of bob's own artifact: a credential that reaches one other artifact only.
  const bobsOwn = await api.call('POST', '/api/projects', bob.token, {
    ownerUsername: (await api.call('GET', '/api/profile/me', bob.token)).username,
    slug: 'b',
    title: 'B',
    icon: 'b',
  })
  const bobsArtifact = await api.call('POST', '/api/artifacts', bob.token, {
    ownerUsername: bobsOwn.ownerUsername,
    projectSlug: 'b',
    slug: 'mine',
    type: 'md',
    title: 'Mine',
    content: 'x',
    changelog: '',
    access: { publicView: false, publicEdit: false },
  })
  strangerLink = (await api.call('POST', `/api/artifacts/${bobsArtifact.id}/share-links`, bob.token, { role: 'editor' })).secret
})
afterAll(() => api?.close())

interface Probe {
  readonly method: string
  /** The request on the hidden resource, and the same request on ones that do not exist. */
  readonly hidden: string
  readonly missing: readonly string[]
  readonly body?: (owner: string) => unknown
}

const artifactBody = (owner: string) => ({
  ownerUsername: owner,
  projectSlug: 'notes',
  slug: 'probe',
  type: 'md',
  title: 'T',
  content: 'x',
  changelog: '',
  access: { publicView: false, publicEdit: false },
})

/** Every operation that names a resource by id, path or owner. */
function probes(h: Hidden): Partial<Record<OperationId, Probe>> {
  const art = (suffix = '') => ({
    hidden: `/api/artifacts/${h.artifactId}${suffix}`,
    missing: [`/api/artifacts/${missing.artifact}${suffix}`],
  })
  const ws = (suffix: string) => ({
    hidden: `/api/workspaces/${h.workspaceId}${suffix}`,
    missing: [`/api/workspaces/${missing.workspace}${suffix}`],
  })
  return {
    getArtifact: { method: 'GET', ...art() },
    deleteArtifact: { method: 'DELETE', ...art() },
    getContent: { method: 'GET', ...art('/content?version=1') },
    listVersions: { method: 'GET', ...art('/versions') },
    diffVersions: { method: 'GET', ...art('/diff?from=1&to=1') },
    getArtifactChanges: { method: 'GET', ...art('/changes?since=1') },
    getArtifactAccess: { method: 'GET', ...art('/access') },
    updateArtifactAccess: { method: 'PATCH', ...art('/access'), body: () => ({ publicView: true }) },
    createShareLink: { method: 'POST', ...art('/share-links'), body: () => ({ role: 'viewer' }) },
    listShareLinks: { method: 'GET', ...art('/share-links') },
    appendVersion: { method: 'POST', ...art('/versions'), body: () => ({ content: 'y', expectedLatestVersion: 1 }) },
    restoreVersion: { method: 'POST', ...art('/versions/1/restore'), body: () => ({}) },
    listAuditEvents: {
      method: 'GET',
      hidden: `/api/audit-events?artifactId=${h.artifactId}`,
      missing: [`/api/audit-events?artifactId=${missing.artifact}`],
    },
    resolveArtifactPath: {
      method: 'GET',
      hidden: `/api/by-path/${h.owner}/notes/secret-doc`,
      missing: [
        `/api/by-path/${h.owner}/notes/no-such-doc`,
        `/api/by-path/${h.owner}/no-such-project/secret-doc`,
        '/api/by-path/nobody-at-all/notes/x',
      ],
    },
    checkArtifactSlug: {
      method: 'GET',
      hidden: `/api/artifacts/slug-availability/${h.owner}/notes/x`,
      missing: [`/api/artifacts/slug-availability/nobody-at-all/notes/x`],
    },
    previewArtifactUrl: {
      method: 'GET',
      hidden: `/api/slug-preview/${h.owner}/notes/x`,
      missing: ['/api/slug-preview/nobody-at-all/notes/x'],
    },
    resolveProjectPath: { method: 'GET', hidden: `/api/by-path/${h.owner}/notes`, missing: ['/api/by-path/nobody-at-all/notes'] },
    listProjectArtifacts: {
      method: 'GET',
      hidden: `/api/projects/${h.owner}/notes/artifacts`,
      missing: [`/api/projects/${h.owner}/no-such-project/artifacts`, '/api/projects/nobody-at-all/notes/artifacts'],
    },
    checkProjectSlug: {
      method: 'GET',
      hidden: `/api/projects/slug-availability/${h.owner}/x`,
      missing: ['/api/projects/slug-availability/nobody-at-all/x'],
    },
    createProject: {
      method: 'POST',
      hidden: '/api/projects',
      missing: ['/api/projects'],
      body: (owner) => ({ ownerUsername: owner, slug: 'p', title: 'P', icon: 'p' }),
    },
    createArtifact: { method: 'POST', hidden: '/api/artifacts', missing: ['/api/artifacts'], body: artifactBody },
    listWorkspaceMembers: { method: 'GET', ...ws('/members') },
    listWorkspaceProjects: { method: 'GET', ...ws('/projects') },
    listWorkspaceArtifacts: { method: 'GET', ...ws('/artifacts') },
    listInvitations: { method: 'GET', ...ws('/invitations') },
    createInvitation: { method: 'POST', ...ws('/invitations'), body: () => ({ email: 'someone@example.com' }) },
    listWorkspaceAuditEvents: { method: 'GET', ...ws('/audit-events') },
    revokeInvitation: {
      method: 'POST',
      hidden: `/api/workspace-invitations/${h.invitationId}/revoke`,
      missing: [`/api/workspace-invitations/${missing.invitation}/revoke`],
    },
    acceptInvitation: {
      method: 'POST',
      hidden: `/api/workspace-invitations/${h.invitationId}/accept`,
      missing: [`/api/workspace-invitations/${missing.invitation}/accept`],
    },
    revokeShareLink: {
      method: 'POST',
      hidden: `/api/share-links/${h.shareLinkId}/revoke`,
      missing: [`/api/share-links/${missing.shareLink}/revoke`],
    },
    revokeApiKey: { method: 'DELETE', hidden: `/api/api-keys/${h.apiKeyId}`, missing: [`/api/api-keys/${missing.apiKey}`] },
    revokeAgent: { method: 'POST', hidden: `/api/agents/${h.agentId}/revoke`, missing: [`/api/agents/${missing.agent}/revoke`] },
    listEvents: {
      method: 'GET',
      hidden: `/api/events?artifact=${h.artifactId}`,
      missing: [`/api/events?artifact=${missing.artifact}`],
    },
    createWebhook: {
      method: 'POST',
      hidden: '/api/webhooks',
      missing: ['/api/webhooks'],
      body: (owner) => ({ url: 'https://probe.invalid/hook', artifact: owner === h.owner ? h.artifactId : missing.artifact }),
    },
    deleteWebhook: { method: 'DELETE', hidden: `/api/webhooks/${h.webhookId}`, missing: [`/api/webhooks/${missing.webhook}`] },
    listWebhookDeliveries: {
      method: 'GET',
      hidden: `/api/webhooks/${h.webhookId}/deliveries`,
      missing: [`/api/webhooks/${missing.webhook}/deliveries`],
    },
    rotateWebhookSecret: {
      method: 'POST',
      hidden: `/api/webhooks/${h.webhookId}/rotate-secret`,
      missing: [`/api/webhooks/${missing.webhook}/rotate-secret`],
    },
    redeliverWebhookDelivery: {
      method: 'POST',
      hidden: `/api/webhooks/${h.webhookId}/deliveries/${h.deliveryId}/redeliver`,
      missing: [
        `/api/webhooks/${missing.webhook}/deliveries/${missing.delivery}/redeliver`,
        `/api/webhooks/${h.webhookId}/deliveries/${missing.delivery}/redeliver`,
      ],
    },
  }
}

/** What a caller can tell apart: the status, the code, the detail, and the challenge. */
function answer(res: LightMyRequestResponse) {
  const body = res.headers['content-type']?.toString().startsWith('application/problem+json') ? res.json() : { raw: res.body }
  return { status: res.statusCode, code: body.code, detail: body.detail, challenge: res.headers['www-authenticate'] ?? null }
}

function send(method: string, url: string, token: string | null, body?: unknown) {
  return api.request(method, url, { token, ...(body === undefined ? {} : { body }) })
}

describe(`one not-found answer (${engine})`, () => {
  it('covers every operation that names a resource by id, path or owner', () => {
    const naming = operationIds.filter(
      (id) =>
        operations[id].path.includes(':') ||
        ['createProject', 'createArtifact', 'listAuditEvents', 'listEvents', 'createWebhook'].includes(id),
    )
    expect(Object.keys(probes(hidden)).sort()).toEqual([...naming].sort())
  })

  for (const caller of ['an outsider', 'anonymous', "another artifact's share link"] as const) {
    it(`${caller}: a hidden resource answers byte-identically to one that does not exist`, async () => {
      const token = caller === 'an outsider' ? bob.token : caller === 'anonymous' ? null : strangerLink
      for (const [id, probe] of Object.entries(probes(hidden))) {
        const seen = answer(await send(probe.method, probe.hidden, token, probe.body?.(hidden.owner)))
        expect([404, 401, 403], `${id} ${probe.hidden}: ${JSON.stringify(seen)}`).toContain(seen.status)
        for (const url of probe.missing) {
          const unknown = answer(await send(probe.method, url, token, probe.body?.('nobody-at-all')))
          expect(unknown, `${id}: ${probe.hidden} vs ${url}`).toEqual(seen)
        }
      }
    })
  }

  it('an outsider gets 404 (never 403) for everything it may not know exists', async () => {
    for (const [id, probe] of Object.entries(probes(hidden))) {
      const res = await send(probe.method, probe.hidden, bob.token, probe.body?.(hidden.owner))
      expect(res.statusCode, id).toBe(404)
      expect(res.json().code, id).toBe('not_found')
    }
  })
})

describe(`one 401 answer (${engine})`, () => {
  // Waits: the refusals on the trails, then the last one.
  it('unknown, revoked, expired credentials and dead share links are told the same; the reason goes to the owner’s trail', {
    timeout: timeoutFor(2),
  }, async () => {
    const carol = await api.user('carol.credentials@example.com')
    const seed = await api.call('POST', '/api/projects', carol.token, {
      ownerUsername: (await api.call('GET', '/api/profile/me', carol.token)).username,
      slug: 'c',
      title: 'C',
      icon: 'c',
    })
    const doc = await api.call('POST', '/api/artifacts', carol.token, { ...artifactBody(seed.ownerUsername), projectSlug: 'c' })
    const revokedKey = await api.call('POST', '/api/api-keys', carol.token, { name: 'revoked', scopes: ['artifacts:read'] })
    await api.call('DELETE', `/api/api-keys/${revokedKey.id}`, carol.token)
    const expiredKey = await api.call('POST', '/api/api-keys', carol.token, { name: 'expired', scopes: ['artifacts:read'] })
    const revokedLink = await api.call('POST', `/api/artifacts/${doc.id}/share-links`, carol.token, { role: 'viewer' })
    await api.call('POST', `/api/share-links/${revokedLink.id}/revoke`, carol.token)
    const expiredLink = await api.call('POST', `/api/artifacts/${doc.id}/share-links`, carol.token, { role: 'viewer' })
    await api.runtime.database.db
      .updateTable('credentials')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('id', 'in', [expiredKey.id, expiredLink.id])
      .execute()
    const credentials = {
      unknown: 'qk_thisIsNotAKeyAnyoneWasEverGiven0000000000',
      garbage: 'not even a token',
      revokedKey: revokedKey.secret,
      expiredKey: expiredKey.secret,
      revokedLink: revokedLink.secret,
      expiredLink: expiredLink.secret,
    }
    for (const url of ['/api/profile/me', `/api/artifacts/${doc.id}`, `/api/artifacts/${doc.id}/content`, '/api/workspaces']) {
      const answers = Object.fromEntries(
        await Promise.all(Object.entries(credentials).map(async ([name, token]) => [name, answer(await send('GET', url, token))] as const)),
      )
      const first = answers.unknown
      expect(first, url).toMatchObject({ status: 401, code: 'invalid_token' })
      for (const [name, seen] of Object.entries(answers)) expect(seen, `${url} with the ${name} credential`).toEqual(first)
      expect(first?.detail).toBe(invalidCredential)
    }
    // Carol's own trail says which of her credentials were tried, and why; the artifact's trail
    // says it of its links. Nobody else's trail holds them.
    const rejections = async (query: string) =>
      (await api.call('GET', `/api/audit-events?${query}limit=100`, carol.token)).items
        .filter((e: { action: string }) => e.action === 'credential.rejected')
        .map((e: { data: { credentialId: string; reason: string } }) => [e.data.credentialId, e.data.reason])
    const reasons = () => rejections('')
    const linkReasons = () => rejections(`artifactId=${doc.id}&`)
    // Written off the requests' path: waited for.
    await until(
      'credential.rejected for the dead keys on the account trail and for the dead links on the artifact trail',
      async () => (await reasons()).length >= 2 && (await linkReasons()).length >= 2,
    )
    expect((await reasons()).sort()).toEqual(
      [
        [revokedKey.id, 'revoked'],
        [expiredKey.id, 'expired'],
      ].sort(),
    )
    expect((await linkReasons()).sort()).toEqual(
      [
        [revokedLink.id, 'revoked'],
        [expiredLink.id, 'expired'],
      ].sort(),
    )
    // Replaying a dead key does not flood the trail: one event per credential in ten minutes. A
    // dead key used once after the replays is their signal: its event is written after any of
    // theirs would have been.
    for (let i = 0; i < 5; i++) await send('GET', '/api/profile/me', revokedKey.secret)
    const last = await api.call('POST', '/api/api-keys', carol.token, { name: 'last', scopes: ['artifacts:read'] })
    await api.call('DELETE', `/api/api-keys/${last.id}`, carol.token)
    await send('GET', '/api/profile/me', last.secret)
    await until('credential.rejected for the key used after the replays', async () =>
      (await reasons()).some(([id]: [string]) => id === last.id),
    )
    expect((await reasons()).filter(([id]: [string]) => id === revokedKey.id)).toHaveLength(1)
  })
})
