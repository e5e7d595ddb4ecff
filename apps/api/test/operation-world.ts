/**
 * One world for the tests that call every operation of the table (the authorization matrix and
 * the scope gates): a team workspace with an owner, an admin and a member who joined it through
 * invitations, outsiders, keys with and without each scope, and a private artifact with share
 * links in every state. `prepare()` gives any operation a request that is valid in every respect
 * but authorization, on fresh resources where the operation would change them.
 */
import { type OperationId, operationIds, operations, type Scope, scopes, scopesOf } from '@quire/core'
import { claimedAgent } from '@quire/testing/claimed-agent'
import type { TestApi } from './helper.ts'

export const principalNames = [
  'anonymous',
  'owner',
  'ownerScoped',
  'ownerMissingScope',
  'ownerRevokedKey',
  'admin',
  'member',
  'stranger',
  'allowlisted',
  'invitee',
  'linkViewer',
  'linkEditor',
  'linkRevoked',
  'linkExpired',
  'otherLink',
] as const
export type PrincipalName = (typeof principalNames)[number]

type UserName = 'admin' | 'member' | 'stranger' | 'allowlisted' | 'invitee'
interface TestUser {
  readonly token: string
  readonly email: string
  readonly userId: string
}

/** A private artifact (allowlisting one email) with two versions and links in every state. */
export interface ArtifactWorld {
  readonly artifactId: string
  readonly slug: string
  readonly links: { viewer: string; editor: string; revoked: string; expired: string }
  /** A live link for revokeShareLink to act on. */
  readonly target: string
}

export interface World {
  readonly api: TestApi
  readonly owner: TestUser
  readonly team: { readonly id: string; readonly slug: string }
  readonly users: Readonly<Record<UserName, TestUser>>
  readonly keys: {
    readonly scoped: Record<Scope, string>
    readonly missing: Record<Scope, string>
    /** For each operation needing more than one scope: a key with exactly those, by the scopes joined with spaces. */
    readonly exactly: Readonly<Record<string, string>>
    readonly revoked: string
  }
  readonly otherLink: string
  readonly shared: ArtifactWorld
}

export interface PreparedRequest {
  readonly method: string
  readonly url: string
  readonly body?: unknown
  readonly artifact: ArtifactWorld
  /** Who the request succeeds for: the owner, but for an invitation only its invitee may accept. */
  readonly principal: PrincipalName
}

let counter = 0

async function user(api: TestApi, email: string): Promise<TestUser> {
  const issued = await api.user(email)
  return { token: issued.token, email, userId: issued.userId }
}

/** Invites `who` to a workspace and has them accept: the real way in. */
export async function join(api: TestApi, ownerToken: string, workspaceId: string, who: TestUser, role: 'member' | 'admin') {
  const invitation = await api.call('POST', `/api/workspaces/${workspaceId}/invitations`, ownerToken, { email: who.email, role })
  await api.call('POST', `/api/workspace-invitations/${invitation.id}/accept`, who.token)
}

async function link(world: Pick<World, 'api' | 'owner'>, artifactId: string, role: 'viewer' | 'editor', expiresAt?: string) {
  return world.api.call('POST', `/api/artifacts/${artifactId}/share-links`, world.owner.token, {
    role,
    ...(expiresAt ? { expiresAt } : {}),
  })
}

export async function artifactWorld(world: Pick<World, 'api' | 'owner' | 'team' | 'users'>): Promise<ArtifactWorld> {
  const { api, owner } = world
  const slug = `doc-${++counter}`
  const artifact = await api.call('POST', '/api/artifacts', owner.token, {
    ownerUsername: world.team.slug,
    projectSlug: 'notes',
    slug,
    type: 'md',
    title: slug,
    content: '# One\n',
    changelog: '',
    access: { publicView: false, publicEdit: false, viewerEmails: [world.users.allowlisted.email] },
  })
  await api.call('POST', `/api/artifacts/${artifact.id}/versions`, owner.token, { content: '# Two\n', expectedLatestVersion: 1 })
  const [viewer, editor, revoked, expired, target] = await Promise.all([
    link(world, artifact.id, 'viewer'),
    link(world, artifact.id, 'editor'),
    link(world, artifact.id, 'editor'),
    link(world, artifact.id, 'editor', new Date(Date.now() + 3_600_000).toISOString()),
    link(world, artifact.id, 'viewer'),
  ])
  await api.call('POST', `/api/share-links/${revoked.id}/revoke`, owner.token)
  // Expiry passes: moved in the database rather than by waiting.
  await api.runtime.database.db
    .updateTable('credentials')
    .set({ expires_at: new Date(Date.now() - 1000) })
    .where('id', '=', expired.id)
    .execute()
  return {
    artifactId: artifact.id,
    slug,
    links: { viewer: viewer.secret, editor: editor.secret, revoked: revoked.secret, expired: expired.secret },
    target: target.id,
  }
}

export async function createWorld(api: TestApi): Promise<World> {
  const ownerIssued = await api.user('matrix-owner@example.com')
  const owner = { token: ownerIssued.token, email: 'matrix-owner@example.com', userId: ownerIssued.userId }
  const issue = async (s?: readonly Scope[]) => (await api.user(owner.email, s)).token
  const scoped = {} as Record<Scope, string>
  const missing = {} as Record<Scope, string>
  for (const scope of scopes) {
    scoped[scope] = await issue([scope])
    missing[scope] = await issue(scopes.filter((s) => s !== scope))
  }
  const exactly: Record<string, string> = {}
  for (const id of operationIds) {
    const needed = scopesOf(operations[id])
    if (needed.length > 1) exactly[needed.join(' ')] ??= await issue(needed)
  }
  const revoked = await issue()
  await api.runtime.database.db
    .updateTable('credentials')
    .set({ revoked_at: new Date() })
    .where('secret_hash', '=', api.runtime.deps.sha256(revoked) as string)
    .execute()
  const users = {} as Record<UserName, TestUser>
  for (const name of ['admin', 'member', 'stranger', 'allowlisted', 'invitee'] as const) {
    users[name] = await user(api, `matrix-${name}@example.com`)
  }
  const team = await api.call('POST', '/api/workspaces', owner.token, { slug: 'matrix-team', name: 'Matrix team' })
  await join(api, owner.token, team.id, users.admin, 'admin')
  await join(api, owner.token, team.id, users.member, 'member')
  await api.call('POST', '/api/projects', owner.token, { ownerUsername: team.slug, slug: 'notes', title: 'Notes', icon: 'n' })
  const base = { api, owner, team: { id: team.id as string, slug: team.slug as string }, users }
  const shared = await artifactWorld(base)
  const elsewhere = await artifactWorld(base)
  return { ...base, keys: { scoped, missing, exactly, revoked }, otherLink: elsewhere.links.editor, shared }
}

/**
 * The bearer token each principal presents for an operation: the scoped key carries every scope the
 * operation needs (`scopesOf`), the other lacks the one of its own action.
 */
export function tokenFor(world: World, principal: PrincipalName, id: OperationId, artifact: ArtifactWorld): string | null {
  const needed = scopesOf(operations[id])
  // Operations that need no scope: the scoped key carries artifacts:read, the other lacks it.
  const [scope = 'artifacts:read'] = needed
  switch (principal) {
    case 'anonymous':
      return null
    case 'owner':
      return world.owner.token
    case 'ownerScoped': {
      if (needed.length <= 1) return world.keys.scoped[scope]
      const key = world.keys.exactly[needed.join(' ')]
      if (key === undefined) throw new Error(`${id}: the world has no key with exactly ${needed.join(' ')}`)
      return key
    }
    case 'ownerMissingScope':
      return world.keys.missing[scope]
    case 'ownerRevokedKey':
      return world.keys.revoked
    case 'admin':
    case 'member':
    case 'stranger':
    case 'allowlisted':
    case 'invitee':
      return world.users[principal].token
    case 'linkViewer':
      return artifact.links.viewer
    case 'linkEditor':
      return artifact.links.editor
    case 'linkRevoked':
      return artifact.links.revoked
    case 'linkExpired':
      return artifact.links.expired
    case 'otherLink':
      return world.otherLink
  }
}

/** Operations that change the artifact they act on get a fresh artifact world. */
const onFreshArtifact = new Set<OperationId>([
  'deleteArtifact',
  'appendVersion',
  'restoreVersion',
  'updateArtifactAccess',
  'createShareLink',
  'revokeShareLink',
])

/**
 * A request for operation `id`, valid in every respect but authorization, on fresh resources where
 * it changes them: every operation's one example of a call that succeeds (for its `principal`).
 * The matrix, the scope gates and the fuzzer all start from it; an operation without one fails
 * each of them, named.
 */
export async function prepare(world: World, id: OperationId): Promise<PreparedRequest> {
  const { api, owner, team } = world
  const n = ++counter
  const artifact = onFreshArtifact.has(id) ? await artifactWorld(world) : world.shared
  const ns = team.slug
  const a = `/api/artifacts/${artifact.artifactId}`
  const ws = `/api/workspaces/${team.id}`
  const at = (method: string, url: string, body?: unknown, principal: PrincipalName = 'owner'): PreparedRequest => ({
    method,
    url,
    ...(body === undefined ? {} : { body }),
    artifact,
    principal,
  })
  switch (id) {
    case 'health':
      return at('GET', '/health')
    case 'getProfile':
      return at('GET', '/api/profile/me')
    case 'updateProfile':
      return at('PATCH', '/api/profile/me', { username: `renamed-${n}` })
    case 'listMyInvitations':
      return at('GET', '/api/profile/invitations')
    case 'listApiKeys':
      return at('GET', '/api/api-keys')
    case 'createApiKey':
      return at('POST', '/api/api-keys', { name: `key ${n}`, scopes: ['agents:manage'] })
    case 'revokeApiKey': {
      const key = await api.call('POST', '/api/api-keys', owner.token, { name: `doomed ${n}`, scopes: ['artifacts:read'] })
      return at('DELETE', `/api/api-keys/${key.id}`)
    }
    case 'listAgents':
      return at('GET', '/api/agents')
    case 'revokeAgent':
      return at('POST', `/api/agents/${(await claimedAgent(api.runtime.deps, owner)).id}/revoke`)
    case 'listWorkspaces':
      return at('GET', '/api/workspaces')
    case 'createWorkspace':
      return at('POST', '/api/workspaces', { slug: `team-${n}`, name: `Team ${n}` })
    case 'listWorkspaceMembers':
      return at('GET', `${ws}/members`)
    case 'listWorkspaceProjects':
      return at('GET', `${ws}/projects`)
    case 'listWorkspaceArtifacts':
      return at('GET', `${ws}/artifacts`)
    case 'createInvitation':
      return at('POST', `${ws}/invitations`, { email: `guest-${n}@example.com` })
    case 'listInvitations':
      return at('GET', `${ws}/invitations`)
    case 'revokeInvitation': {
      const invitation = await api.call('POST', `${ws}/invitations`, owner.token, { email: `revoked-${n}@example.com` })
      return at('POST', `/api/workspace-invitations/${invitation.id}/revoke`)
    }
    case 'acceptInvitation': {
      // A workspace of its own, so that the invitee joining changes nothing else in the world.
      const side = await api.call('POST', '/api/workspaces', owner.token, { slug: `side-${n}`, name: `Side ${n}` })
      const invitation = await api.call('POST', `/api/workspaces/${side.id}/invitations`, owner.token, {
        email: world.users.invitee.email,
      })
      return at('POST', `/api/workspace-invitations/${invitation.id}/accept`, undefined, 'invitee')
    }
    case 'listWorkspaceAuditEvents':
      return at('GET', `${ws}/audit-events`)
    case 'createProject':
      return at('POST', '/api/projects', { ownerUsername: ns, slug: `p-${n}`, title: 'P', icon: 'p' })
    case 'listMyProjects':
      return at('GET', '/api/profile/projects')
    case 'checkProjectSlug':
      return at('GET', `/api/projects/slug-availability/${ns}/fresh`)
    case 'resolveProjectPath':
      return at('GET', `/api/by-path/${ns}/notes`)
    case 'createArtifact':
      return at('POST', '/api/artifacts', {
        ownerUsername: ns,
        projectSlug: 'notes',
        slug: `a-${n}`,
        type: 'md',
        title: 'A',
        content: 'x',
        changelog: '',
        access: { publicView: false, publicEdit: false },
      })
    case 'listMyArtifacts':
      return at('GET', '/api/profile/artifacts')
    case 'searchArtifacts':
      return at('GET', '/api/search?q=matrix')
    case 'createWebhook':
      return at('POST', '/api/webhooks', { url: `https://hooks-${n}.invalid/quire`, artifact: artifact.artifactId })
    case 'listWebhooks':
      return at('GET', '/api/webhooks')
    case 'deleteWebhook':
    case 'listWebhookDeliveries':
    case 'redeliverWebhookDelivery':
    case 'rotateWebhookSecret': {
      const hook = await api.call('POST', '/api/webhooks', owner.token, {
        url: `https://hooks-${n}.invalid/quire`,
        artifact: artifact.artifactId,
      })
      const path = `/api/webhooks/${hook.webhook.id}`
      if (id === 'deleteWebhook') return at('DELETE', path)
      if (id === 'listWebhookDeliveries') return at('GET', `${path}/deliveries`)
      if (id === 'rotateWebhookSecret') return at('POST', `${path}/rotate-secret`)
      const deliveries = await api.call('GET', `${path}/deliveries`, owner.token)
      return at('POST', `${path}/deliveries/${deliveries.items[0].id}/redeliver`)
    }
    case 'listEvents':
      return at('GET', `/api/events?artifact=${artifact.artifactId}&after=0`)
    case 'listProjectArtifacts':
      return at('GET', `/api/projects/${ns}/notes/artifacts`)
    case 'getArtifact':
      return at('GET', a)
    case 'deleteArtifact':
      return at('DELETE', a)
    case 'checkArtifactSlug':
      return at('GET', `/api/artifacts/slug-availability/${ns}/notes/fresh`)
    case 'previewArtifactUrl':
      return at('GET', `/api/slug-preview/${ns}/notes/fresh`)
    case 'resolveArtifactPath':
      return at('GET', `/api/by-path/${ns}/notes/${artifact.slug}`)
    case 'appendVersion':
      return at('POST', `${a}/versions`, { content: `# Three ${n}\n`, expectedLatestVersion: 2 })
    case 'restoreVersion':
      return at('POST', `${a}/versions/1/restore`, { expectedLatestVersion: 2 })
    case 'getContent':
      return at('GET', `${a}/content`)
    case 'listVersions':
      return at('GET', `${a}/versions`)
    case 'diffVersions':
      return at('GET', `${a}/diff?from=1&to=2`)
    case 'getArtifactChanges':
      return at('GET', `${a}/changes?since=1`)
    case 'getArtifactAccess':
      return at('GET', `${a}/access`)
    case 'updateArtifactAccess':
      return at('PATCH', `${a}/access`, { publicEdit: false })
    case 'createShareLink':
      return at('POST', `${a}/share-links`, { role: 'viewer' })
    case 'listShareLinks':
      return at('GET', `${a}/share-links`)
    case 'revokeShareLink':
      return at('POST', `/api/share-links/${artifact.target}/revoke`)
    case 'listAuditEvents':
      return at('GET', `/api/audit-events?artifactId=${artifact.artifactId}`)
  }
  // Reached only by an operation added to the table without a case above (typecheck says so too).
  throw new Error(`${id as string}: no example request; add one to prepare() in apps/api/test/operation-world.ts`)
}

/** `'200'`, or a status and the problem's code: `'404 not_found'`. */
export async function outcomeOf(world: World, request: PreparedRequest, token: string | null): Promise<{ got: string; body: string }> {
  const res = await world.api.request(request.method, request.url, {
    token,
    ...(request.body === undefined ? {} : { body: request.body }),
  })
  const got = res.statusCode >= 400 ? `${res.statusCode} ${res.json().code}` : String(res.statusCode)
  return { got, body: `${request.method} ${request.url}: ${res.body.slice(0, 300)}` }
}
