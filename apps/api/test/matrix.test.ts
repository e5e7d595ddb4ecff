/**
 * The full authorization matrix: every operation of the table × every principal kind that exists,
 * against the expected status and error code, over the real app and database.
 *
 * The expectations are written out by hand from the policy's rules (not computed by `decide()`),
 * so a change in behaviour shows up here as a failing cell. `matrix` is typed by operation id: an
 * operation added to the table without its row is a compile error, and the first test fails too.
 */
import { type OperationId, operationIds, operations, type Scope, scopeFor, scopes } from '@quire/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { engine, startTestApi, type TestApi } from './helper.ts'

const principalNames = [
  'anonymous',
  'owner',
  'ownerScoped',
  'ownerMissingScope',
  'ownerRevokedKey',
  'member',
  'stranger',
  'allowlisted',
  'linkViewer',
  'linkEditor',
  'linkRevoked',
  'linkExpired',
  'otherLink',
] as const
type PrincipalName = (typeof principalNames)[number]

/** `'200'`, or a status and the problem's code: `'404 not_found'`. */
type Outcome = string
type Row = Record<PrincipalName, Outcome>

const invalid = '401 invalid_token'
/** Revoked or expired credentials are refused before anything else, everywhere but /health. */
const dead = { ownerRevokedKey: invalid, linkRevoked: invalid, linkExpired: invalid } as const

/** Calls on an owner namespace (projects, slugs): members only; everyone else learns nothing. */
function namespace(ok: Outcome): Row {
  return {
    ...dead,
    anonymous: '401 unauthenticated',
    owner: ok,
    ownerScoped: ok,
    ownerMissingScope: '403 insufficient_scope',
    member: ok,
    stranger: '404 not_found',
    allowlisted: '404 not_found',
    linkViewer: '404 not_found',
    linkEditor: '404 not_found',
    otherLink: '404 not_found',
  }
}

/** Calls about the caller's own account: any user; a share link has no account. */
const account: Row = {
  ...dead,
  anonymous: '401 unauthenticated',
  owner: '200',
  ownerScoped: '200',
  ownerMissingScope: '403 insufficient_scope',
  member: '200',
  stranger: '200',
  allowlisted: '200',
  linkViewer: '403 forbidden',
  linkEditor: '403 forbidden',
  otherLink: '403 forbidden',
}

/**
 * Calls on the private artifact (allowlisting one email). Those who cannot see it get 404; those
 * who can see it but may not act get 403.
 */
function onArtifact(ok: Outcome, allowed: { member: boolean; allowlisted: boolean; linkViewer: boolean; linkEditor: boolean }): Row {
  const maybe = (yes: boolean) => (yes ? ok : '403 forbidden')
  return {
    ...dead,
    anonymous: '404 not_found',
    owner: ok,
    ownerScoped: ok,
    ownerMissingScope: '403 insufficient_scope',
    member: maybe(allowed.member),
    stranger: '404 not_found',
    allowlisted: maybe(allowed.allowlisted),
    linkViewer: maybe(allowed.linkViewer),
    linkEditor: maybe(allowed.linkEditor),
    otherLink: '404 not_found',
  }
}
const read = { member: true, allowlisted: true, linkViewer: true, linkEditor: true }
const write = { member: true, allowlisted: false, linkViewer: false, linkEditor: true }
const memberOnly = { member: true, allowlisted: false, linkViewer: false, linkEditor: false }
const adminOnly = { member: false, allowlisted: false, linkViewer: false, linkEditor: false }

const matrix: Record<OperationId, Row> = {
  health: Object.fromEntries(principalNames.map((p) => [p, '200'])) as Row,
  createProject: namespace('201'),
  listMyProjects: account,
  checkProjectSlug: namespace('200'),
  resolveProjectPath: namespace('200'),
  createArtifact: namespace('201'),
  listMyArtifacts: account,
  getArtifact: onArtifact('200', read),
  deleteArtifact: onArtifact('200', adminOnly),
  checkArtifactSlug: namespace('200'),
  previewArtifactUrl: namespace('200'),
  resolveArtifactPath: onArtifact('200', read),
  appendVersion: onArtifact('201', write),
  restoreVersion: onArtifact('201', write),
  getContent: onArtifact('200', read),
  listVersions: onArtifact('200', read),
  diffVersions: onArtifact('200', read),
  getArtifactAccess: onArtifact('200', memberOnly),
  updateArtifactAccess: onArtifact('200', adminOnly),
  createShareLink: onArtifact('201', adminOnly),
  listShareLinks: onArtifact('200', adminOnly),
  revokeShareLink: onArtifact('200', adminOnly),
  listAuditEvents: onArtifact('200', memberOnly),
}

/** Operations that change what they act on get a fresh artifact per cell. */
const mutating = new Set<OperationId>(operationIds.filter((id) => !operations[id].hints.readOnly))

interface World {
  artifactId: string
  slug: string
  links: { viewer: string; editor: string; revoked: string; expired: string }
  /** A live link for revokeShareLink to act on. */
  target: string
}

let api: TestApi
let owner: { token: string; username: string; userId: string }
const keys = {} as { scoped: Record<Scope, string>; missing: Record<Scope, string>; revoked: string }
const users = {} as Record<'member' | 'stranger' | 'allowlisted', { token: string; email: string }>
let otherLink: string
let shared: World
let counter = 0

async function call(method: string, url: string, token: string | null, body?: unknown) {
  const res = await api.request(method, url, { token, ...(body === undefined ? {} : { body }) })
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`)
  return res.json()
}

async function link(artifactId: string, role: 'viewer' | 'editor', expiresAt?: string) {
  return call('POST', `/api/artifacts/${artifactId}/share-links`, owner.token, { role, ...(expiresAt ? { expiresAt } : {}) })
}

/** A private artifact with two versions, one allowlisted email, and links in every state. */
async function world(): Promise<World> {
  const slug = `doc-${++counter}`
  const artifact = await call('POST', '/api/artifacts', owner.token, {
    ownerUsername: owner.username,
    projectSlug: 'notes',
    slug,
    type: 'md',
    title: slug,
    content: '# One\n',
    changelog: '',
    access: { publicView: false, publicEdit: false, viewerEmails: [users.allowlisted.email] },
  })
  await call('POST', `/api/artifacts/${artifact.id}/versions`, owner.token, { content: '# Two\n', expectedLatestVersion: 1 })
  const [viewer, editor, revoked, expired, target] = await Promise.all([
    link(artifact.id, 'viewer'),
    link(artifact.id, 'editor'),
    link(artifact.id, 'editor'),
    link(artifact.id, 'editor', new Date(Date.now() + 3_600_000).toISOString()),
    link(artifact.id, 'viewer'),
  ])
  await call('POST', `/api/share-links/${revoked.id}/revoke`, owner.token)
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

function tokenFor(principal: PrincipalName, id: OperationId, w: World): string | null {
  const action = operations[id].action
  const scope = action ? scopeFor(action) : 'artifacts:read'
  switch (principal) {
    case 'anonymous':
      return null
    case 'owner':
      return owner.token
    case 'ownerScoped':
      return keys.scoped[scope]
    case 'ownerMissingScope':
      return keys.missing[scope]
    case 'ownerRevokedKey':
      return keys.revoked
    case 'member':
    case 'stranger':
    case 'allowlisted':
      return users[principal].token
    case 'linkViewer':
      return w.links.viewer
    case 'linkEditor':
      return w.links.editor
    case 'linkRevoked':
      return w.links.revoked
    case 'linkExpired':
      return w.links.expired
    case 'otherLink':
      return otherLink
  }
}

/** The request each operation gets: valid in every respect but authorization. */
function requestFor(id: OperationId, w: World): { method: string; url: string; body?: unknown } {
  const n = ++counter
  const ns = owner.username
  const a = `/api/artifacts/${w.artifactId}`
  const requests: Record<OperationId, { method: string; url: string; body?: unknown }> = {
    health: { method: 'GET', url: '/health' },
    createProject: { method: 'POST', url: '/api/projects', body: { ownerUsername: ns, slug: `p-${n}`, title: 'P', icon: 'p' } },
    listMyProjects: { method: 'GET', url: '/api/profile/projects' },
    checkProjectSlug: { method: 'GET', url: `/api/projects/slug-availability/${ns}/fresh` },
    resolveProjectPath: { method: 'GET', url: `/api/by-path/${ns}/notes` },
    createArtifact: {
      method: 'POST',
      url: '/api/artifacts',
      body: {
        ownerUsername: ns,
        projectSlug: 'notes',
        slug: `a-${n}`,
        type: 'md',
        title: 'A',
        content: 'x',
        changelog: '',
        access: { publicView: false, publicEdit: false },
      },
    },
    listMyArtifacts: { method: 'GET', url: '/api/profile/artifacts' },
    getArtifact: { method: 'GET', url: a },
    deleteArtifact: { method: 'DELETE', url: a },
    checkArtifactSlug: { method: 'GET', url: `/api/artifacts/slug-availability/${ns}/notes/fresh` },
    previewArtifactUrl: { method: 'GET', url: `/api/slug-preview/${ns}/notes/fresh` },
    resolveArtifactPath: { method: 'GET', url: `/api/by-path/${ns}/notes/${w.slug}` },
    appendVersion: { method: 'POST', url: `${a}/versions`, body: { content: `# Three ${n}\n`, expectedLatestVersion: 2 } },
    restoreVersion: { method: 'POST', url: `${a}/versions/1/restore`, body: { expectedLatestVersion: 2 } },
    getContent: { method: 'GET', url: `${a}/content` },
    listVersions: { method: 'GET', url: `${a}/versions` },
    diffVersions: { method: 'GET', url: `${a}/diff?from=1&to=2` },
    getArtifactAccess: { method: 'GET', url: `${a}/access` },
    updateArtifactAccess: { method: 'PATCH', url: `${a}/access`, body: { publicEdit: false } },
    createShareLink: { method: 'POST', url: `${a}/share-links`, body: { role: 'viewer' } },
    listShareLinks: { method: 'GET', url: `${a}/share-links` },
    revokeShareLink: { method: 'POST', url: `/api/share-links/${w.target}/revoke` },
    listAuditEvents: { method: 'GET', url: `/api/audit-events?artifactId=${w.artifactId}` },
  }
  return requests[id]
}

beforeAll(async () => {
  api = await startTestApi()
  owner = await api.user('matrix-owner@example.com')
  const issue = async (email: string, s?: readonly Scope[]) => (await api.user(email, s)).token
  keys.scoped = {} as Record<Scope, string>
  keys.missing = {} as Record<Scope, string>
  for (const scope of scopes) {
    keys.scoped[scope] = await issue('matrix-owner@example.com', [scope])
    keys.missing[scope] = await issue(
      'matrix-owner@example.com',
      scopes.filter((s) => s !== scope),
    )
  }
  keys.revoked = await issue('matrix-owner@example.com')
  await api.runtime.database.db
    .updateTable('credentials')
    .set({ revoked_at: new Date() })
    .where('secret_hash', '=', api.runtime.deps.sha256(keys.revoked) as string)
    .execute()
  for (const name of ['member', 'stranger', 'allowlisted'] as const) {
    const email = `matrix-${name}@example.com`
    users[name] = { token: (await api.user(email)).token, email }
  }
  // Until team workspaces exist (accounts issue), the member joins the owner's workspace directly.
  const memberRow = await api.runtime.database.db
    .selectFrom('users')
    .select('id')
    .where('email', '=', users.member.email)
    .executeTakeFirstOrThrow()
  const ownerRow = await api.runtime.database.db
    .selectFrom('users')
    .select('personal_workspace_id')
    .where('id', '=', owner.userId)
    .executeTakeFirstOrThrow()
  await api.runtime.database.db
    .insertInto('memberships')
    .values({ workspace_id: ownerRow.personal_workspace_id, user_id: memberRow.id, role: 'member', created_at: new Date() })
    .execute()
  await call('POST', '/api/projects', owner.token, { ownerUsername: owner.username, slug: 'notes', title: 'Notes', icon: 'n' })
  shared = await world()
  const elsewhere = await world()
  otherLink = elsewhere.links.editor
})

afterAll(async () => {
  await api?.close()
})

describe(`the authorization matrix (${engine}): ${operationIds.length} operations × ${principalNames.length} principals`, () => {
  it('has a row for every operation of the table, and a cell for every principal', () => {
    expect(Object.keys(matrix).sort()).toEqual([...operationIds].sort())
    for (const row of Object.values(matrix)) expect(Object.keys(row).sort()).toEqual([...principalNames].sort())
  })

  for (const id of operationIds) {
    describe(id, () => {
      for (const principal of principalNames) {
        const expected = matrix[id][principal]
        it(`${principal} → ${expected}`, async () => {
          const w = mutating.has(id) && !['createProject', 'createArtifact'].includes(id) ? await world() : shared
          const { method, url, body } = requestFor(id, w)
          const res = await api.request(method, url, { token: tokenFor(principal, id, w), ...(body === undefined ? {} : { body }) })
          const got = res.statusCode >= 400 ? `${res.statusCode} ${res.json().code}` : String(res.statusCode)
          expect(got, `${method} ${url}: ${res.body.slice(0, 300)}`).toBe(expected)
        })
      }
    })
  }
})
