/**
 * The full authorization matrix: every operation of the table × every principal kind that exists,
 * against the expected status and error code, over the real app and database.
 *
 * The expectations are written out by hand from the policy's rules (not computed by `decide()`),
 * so a change in behaviour shows up here as a failing cell. `matrix` is typed by operation id: an
 * operation added to the table without its row is a compile error, and the first test fails too.
 */
import { type OperationId, type OperationSpec, operationIds, operations, type Scope, scopesOf } from '@quire/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { engine, startTestApi, type TestApi } from './helper.ts'
import { createWorld, outcomeOf, type PrincipalName, prepare, principalNames, tokenFor, type World } from './operation-world.ts'

/** `'200'`, or a status and the problem's code: `'404 not_found'`. */
type Outcome = string
type Row = Record<PrincipalName, Outcome>

const invalid = '401 invalid_token'
/** Revoked or expired credentials are refused before anything else, everywhere but /health. */
const dead = { ownerRevokedKey: invalid, linkRevoked: invalid, linkExpired: invalid } as const
const noLinks = (outcome: Outcome) => ({ linkViewer: outcome, linkEditor: outcome, otherLink: outcome })

/** Calls on the team's owner namespace (projects, slugs): members of any role; everyone else learns nothing. */
function namespace(ok: Outcome): Row {
  return {
    ...dead,
    ...noLinks('404 not_found'),
    anonymous: '401 unauthenticated',
    owner: ok,
    ownerScoped: ok,
    ownerMissingScope: '403 insufficient_scope',
    admin: ok,
    member: ok,
    stranger: '404 not_found',
    allowlisted: '404 not_found',
    invitee: '404 not_found',
  }
}

/** Calls on the team workspace by id; `managers`: for owners and admins only (members get 403). */
function workspace(ok: Outcome, managers: boolean): Row {
  return { ...namespace(ok), member: managers ? '403 forbidden' : ok }
}

/** Calls about the caller's own account: any user; a share link has no account. */
function account(ok: Outcome, options: { scoped: boolean } = { scoped: true }): Row {
  return {
    ...dead,
    ...noLinks('403 forbidden'),
    anonymous: '401 unauthenticated',
    owner: ok,
    ownerScoped: ok,
    ownerMissingScope: options.scoped ? '403 insufficient_scope' : ok,
    admin: ok,
    member: ok,
    stranger: ok,
    allowlisted: ok,
    invitee: ok,
  }
}

/** Revoking one of the owner's keys (or agents): only the owner's credentials find it. */
const ownersKey: Row = {
  ...account('200'),
  admin: '404 not_found',
  member: '404 not_found',
  stranger: '404 not_found',
  allowlisted: '404 not_found',
  invitee: '404 not_found',
}

/** Accepting an invitation addressed to the invitee: nobody else's verified email matches it. */
const inviteesInvitation: Row = {
  ...account('404 not_found', { scoped: false }),
  invitee: '200',
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
    admin: ok,
    member: maybe(allowed.member),
    stranger: '404 not_found',
    allowlisted: maybe(allowed.allowlisted),
    invitee: '404 not_found',
    linkViewer: maybe(allowed.linkViewer),
    linkEditor: maybe(allowed.linkEditor),
    otherLink: '404 not_found',
  }
}
const read = { member: true, allowlisted: true, linkViewer: true, linkEditor: true }
const write = { member: true, allowlisted: false, linkViewer: false, linkEditor: true }
const memberOnly = { member: true, allowlisted: false, linkViewer: false, linkEditor: false }
const adminOnly = { member: false, allowlisted: false, linkViewer: false, linkEditor: false }

/**
 * A project's artifacts (`notes` holds only private ones, allowlisting one email): members list
 * them all; anyone else what they may read, here the allowlisted viewer only; where a caller may
 * read nothing the project is the 404 of one that does not exist, anonymous callers included.
 */
const projectListing: Row = {
  ...namespace('200'),
  anonymous: '404 not_found',
  allowlisted: '200',
}

const matrix: Record<OperationId, Row> = {
  health: Object.fromEntries(principalNames.map((p) => [p, '200'])) as Row,
  getProfile: account('200', { scoped: false }),
  updateProfile: account('200'),
  listMyInvitations: account('200', { scoped: false }),
  listApiKeys: account('200'),
  createApiKey: account('201'),
  revokeApiKey: ownersKey,
  listAgents: account('200'),
  revokeAgent: ownersKey,
  listWorkspaces: account('200'),
  createWorkspace: account('201'),
  listWorkspaceMembers: workspace('200', false),
  listWorkspaceProjects: workspace('200', false),
  listWorkspaceArtifacts: workspace('200', false),
  createInvitation: workspace('201', true),
  listInvitations: workspace('200', true),
  revokeInvitation: workspace('200', true),
  acceptInvitation: inviteesInvitation,
  listWorkspaceAuditEvents: workspace('200', false),
  createProject: namespace('201'),
  listMyProjects: account('200'),
  checkProjectSlug: namespace('200'),
  resolveProjectPath: namespace('200'),
  createArtifact: namespace('201'),
  listMyArtifacts: account('200'),
  searchArtifacts: account('200'),
  listProjectArtifacts: projectListing,
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
  getArtifactChanges: onArtifact('200', read),
  getArtifactAccess: onArtifact('200', memberOnly),
  updateArtifactAccess: onArtifact('200', adminOnly),
  createShareLink: onArtifact('201', adminOnly),
  listShareLinks: onArtifact('200', adminOnly),
  revokeShareLink: onArtifact('200', adminOnly),
  listAuditEvents: onArtifact('200', memberOnly),
  // Following takes a credential: there is no one to tell when access ends.
  listEvents: { ...onArtifact('200', read), anonymous: '401 unauthenticated' },
  // A webhook follows the private artifact: whoever may read it (and has an account) may create one.
  createWebhook: {
    ...account('201'),
    stranger: '404 not_found',
    invitee: '404 not_found',
  },
  listWebhooks: account('200'),
  // The owner's webhook: no one else's credential finds it.
  deleteWebhook: ownersKey,
  listWebhookDeliveries: ownersKey,
  redeliverWebhookDelivery: ownersKey,
  rotateWebhookSecret: ownersKey,
}

let api: TestApi
let world: World

beforeAll(async () => {
  api = await startTestApi()
  world = await createWorld(api)
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
          const request = await prepare(world, id)
          const { got, body } = await outcomeOf(world, request, tokenFor(world, principal, id, request.artifact))
          expect(got, body).toBe(expected)
        })
      }
    })
  }
})

/**
 * Writing never reveals what reading would not. A writer without read (the owner's key with
 * `artifacts:update` alone) calls every operation whose answer can hold an artifact's text (its
 * content, a diff, the change a conflict missed), in every mode in which it could (a read, a dry
 * run, a conflict on the authoritative path and after a recent write), and never sees a line of it.
 * The same requests from the owner's full key see the text: the check can fail.
 */
type TextRequest = {
  readonly method: string
  readonly url: (artifactId: string) => string
  /** The body: as it is, or made for the artifact (a webhook names it in its body). */
  readonly body?: unknown
}

/** A request's body for an artifact. */
const bodyFor = (request: TextRequest, artifactId: string): unknown =>
  typeof request.body === 'function' ? (request.body as (id: string) => unknown)(artifactId) : request.body
type TextCase = TextRequest & {
  readonly name: string
  /** What the writer without read gets: a status and code, or a status and `withheld` for an answer without the text. */
  readonly writer: string
  /** Writes the case needs first (e.g. one that makes the writer's next write take the fast path). */
  readonly before?: TextRequest
}

const withheldCases: Partial<Record<OperationId, readonly TextCase[]>> = {
  getContent: [
    { name: 'latest', method: 'GET', url: (a) => `/api/artifacts/${a}/content`, writer: '403 insufficient_scope' },
    { name: 'pinned', method: 'GET', url: (a) => `/api/artifacts/${a}/content?version=1`, writer: '403 insufficient_scope' },
  ],
  diffVersions: [{ name: 'diff', method: 'GET', url: (a) => `/api/artifacts/${a}/diff?from=1&to=2`, writer: '403 insufficient_scope' }],
  getArtifactChanges: [
    { name: 'catch-up', method: 'GET', url: (a) => `/api/artifacts/${a}/changes?since=1`, writer: '403 insufficient_scope' },
  ],
  appendVersion: [
    {
      name: 'dry run',
      method: 'POST',
      url: (a) => `/api/artifacts/${a}/versions?dryRun=true`,
      body: { content: '', expectedLatestVersion: 2 },
      writer: '200 withheld',
    },
    {
      name: 'conflict',
      method: 'POST',
      url: (a) => `/api/artifacts/${a}/versions`,
      body: { content: '', expectedLatestVersion: 1 },
      writer: '409 withheld',
    },
    {
      name: 'conflict after a recent write',
      before: { method: 'POST', url: (a) => `/api/artifacts/${a}/versions`, body: { content: 'mine\n', expectedLatestVersion: 2 } },
      method: 'POST',
      url: (a) => `/api/artifacts/${a}/versions`,
      body: { content: '', expectedLatestVersion: 1 },
      writer: '409 withheld',
    },
  ],
  restoreVersion: [
    {
      name: 'dry run',
      method: 'POST',
      url: (a) => `/api/artifacts/${a}/versions/1/restore?dryRun=true`,
      body: { expectedLatestVersion: 2 },
      writer: '200 withheld',
    },
    {
      name: 'conflict',
      method: 'POST',
      url: (a) => `/api/artifacts/${a}/versions/1/restore`,
      body: { expectedLatestVersion: 1 },
      writer: '409 withheld',
    },
  ],
}

let teamArtifacts = 0
/** A new private artifact of the matrix's team (one version of `content`), allowlisting `viewerEmails`; its id. */
async function teamArtifact(prefix: string, content: string, viewerEmails: readonly string[] = []): Promise<string> {
  const slug = `${prefix}-${++teamArtifacts}`
  const created = await api.call('POST', '/api/artifacts', world.owner.token, {
    ownerUsername: world.team.slug,
    projectSlug: 'notes',
    slug,
    type: 'md',
    title: slug,
    content,
    changelog: '',
    access: { publicView: false, publicEdit: false, viewerEmails },
  })
  return created.id as string
}

/** True when a schema (TypeBox, so JSON Schema) has a property `content` or `diff` anywhere. */
function holdsText(schema: unknown): boolean {
  if (typeof schema !== 'object' || schema === null) return false
  const properties = (schema as { properties?: Record<string, unknown> }).properties
  if (properties && ('content' in properties || 'diff' in properties)) return true
  return Object.values(schema).some((value) => (Array.isArray(value) ? value.some(holdsText) : holdsText(value)))
}

describe(`a writer without read (${engine}) sees no text of the artifact`, () => {
  /** A private artifact whose two versions each hold a line found nowhere else. */
  async function secretArtifact() {
    const unique = () => `${Math.random().toString(36).slice(2)}`
    const lines = [`first-secret-${unique()}`, `second-secret-${unique()}`]
    const id = await teamArtifact('secret', `${lines[0]}\n`)
    await api.call('POST', `/api/artifacts/${id}/versions`, world.owner.token, { content: `${lines[1]}\n`, expectedLatestVersion: 1 })
    return { id, lines }
  }

  async function send(request: TextRequest, artifactId: string, token: string) {
    return api.request(request.method, request.url(artifactId), {
      token,
      ...(request.body === undefined ? {} : { body: bodyFor(request, artifactId) }),
    })
  }

  it('covers every operation whose answer (success, dry run or conflict) can hold the text', () => {
    const holding = operationIds.filter((id) => {
      const op: OperationSpec = operations[id]
      return holdsText(op.success.schema) || holdsText(op.dryRun?.schema) || op.errors.includes('version_conflict')
    })
    expect(Object.keys(withheldCases).sort()).toEqual(holding.sort())
  })

  for (const [id, cases] of Object.entries(withheldCases)) {
    for (const c of cases ?? []) {
      it(`${id}, ${c.name}: ${c.writer}, and not a line of the text`, async () => {
        const writer = world.keys.scoped['artifacts:update']
        const secret = await secretArtifact()
        if (c.before) expect((await send(c.before, secret.id, writer)).statusCode).toBeLessThan(300)
        const res = await send(c, secret.id, writer)
        const [status, what] = c.writer.split(' ')
        expect(String(res.statusCode), res.body).toBe(status)
        for (const line of secret.lines) expect(res.body).not.toContain(line)
        if (what === 'withheld') {
          const body = res.json()
          expect(body.diff).toBeUndefined()
          expect(body.diffWithheld).toEqual({
            scope: 'artifacts:read',
            detail: "The diff shows the artifact's content, which this credential may not read: it needs artifacts:read.",
          })
        } else expect(res.json().code).toBe(what)

        // The control: the same request from a key that may read shows the text.
        const reader = await secretArtifact()
        if (c.before) expect((await send(c.before, reader.id, world.owner.token)).statusCode).toBeLessThan(300)
        const read = await send(c, reader.id, world.owner.token)
        expect(read.statusCode, read.body).toBe(what === 'withheld' ? Number(status) : 200)
        expect(
          reader.lines.some((line) => read.body.includes(line)),
          read.body,
        ).toBe(true)
      })
    }
  }
})

/**
 * Writing never grants what its caller may not do, nor answers what reading would not show. Every
 * operation whose answer or effect gives what another action gives (a share link reads the
 * artifact, an editor link also appends to it, an access change answers the settings with their
 * allowlist, and one opening the artifact lets others read or append) is called with the owner's
 * key holding the operation's own scope without one it also needs: 403 `insufficient_scope` naming the missing scope (body and RFC 6750 challenge), not a word
 * of the settings, and nothing written (no link, no audit event, the settings as they were). The
 * same request from a key holding every scope it needs succeeds: the check can fail.
 */
type GrantCase = {
  readonly name: string
  readonly request: TextRequest
  /** The scopes of the refused key: the operation's own, without `lacks`. */
  readonly holds: readonly Scope[]
  /** The scope the refusal names. */
  readonly lacks: Scope
  /** What the control (a key with `holds` and `lacks`) gets, what it changed, and the settings it left. */
  readonly control: { readonly status: number; readonly writes: 'link' | 'settings' | 'nothing'; readonly settings?: object }
}

const link = (body?: unknown): TextRequest => ({
  method: 'POST',
  url: (a) => `/api/artifacts/${a}/share-links`,
  ...(body === undefined ? {} : { body }),
})
const access = (body: object, query = ''): TextRequest => ({ method: 'PATCH', url: (a) => `/api/artifacts/${a}/access${query}`, body })
/** A change that opens nothing: what it answers is the question. */
const closed = { publicView: false, publicEdit: false }
/** What opening reading or appending needs beside the right to change access and to read it. */
const accessKey: readonly Scope[] = ['artifacts:access:write', 'artifacts:access:read']

const grantCases: Partial<Record<OperationId, readonly GrantCase[]>> = {
  createShareLink: [
    {
      name: 'a viewer link',
      request: link({ role: 'viewer' }),
      holds: ['artifacts:share'],
      lacks: 'artifacts:read',
      control: { status: 201, writes: 'link' },
    },
    {
      name: 'a link without a body (a viewer link)',
      request: link(),
      holds: ['artifacts:share'],
      lacks: 'artifacts:read',
      control: { status: 201, writes: 'link' },
    },
    {
      name: 'an editor link, without read',
      request: link({ role: 'editor' }),
      holds: ['artifacts:share', 'artifacts:update'],
      lacks: 'artifacts:read',
      control: { status: 201, writes: 'link' },
    },
    {
      name: 'an editor link, without update',
      request: link({ role: 'editor' }),
      holds: ['artifacts:share', 'artifacts:read'],
      lacks: 'artifacts:update',
      control: { status: 201, writes: 'link' },
    },
  ],
  updateArtifactAccess: [
    {
      name: 'a change (its answer holds the allowlist)',
      request: access(closed),
      holds: ['artifacts:access:write'],
      lacks: 'artifacts:access:read',
      control: { status: 200, writes: 'settings', settings: closed },
    },
    {
      name: 'a dry run (its answer holds the allowlist)',
      request: access(closed, '?dryRun=true'),
      holds: ['artifacts:access:write'],
      lacks: 'artifacts:access:read',
      control: { status: 200, writes: 'nothing' },
    },
    {
      name: 'making it public',
      request: access({ publicView: true }),
      holds: accessKey,
      lacks: 'artifacts:read',
      control: { status: 200, writes: 'settings', settings: { publicView: true } },
    },
    {
      name: 'a dry run making it public',
      request: access({ publicView: true }, '?dryRun=true'),
      holds: accessKey,
      lacks: 'artifacts:read',
      control: { status: 200, writes: 'nothing' },
    },
    {
      name: 'a new address on the allowlist',
      request: access({ viewerEmails: ['new-reader@example.com'] }),
      holds: accessKey,
      lacks: 'artifacts:read',
      control: { status: 200, writes: 'settings', settings: { viewerEmails: ['new-reader@example.com'] } },
    },
    {
      name: 'making it publicly editable',
      request: access({ publicEdit: true }),
      holds: accessKey,
      lacks: 'artifacts:update',
      control: { status: 200, writes: 'settings', settings: { publicEdit: true } },
    },
  ],
  // A webhook delivers what reading the artifact gives (no web hook is made; the artifact is untouched either way).
  createWebhook: [
    {
      name: 'a webhook on the artifact',
      request: {
        method: 'POST',
        url: () => '/api/webhooks',
        body: (artifact: string) => ({ url: 'https://grants.invalid/hook', artifact }),
      },
      holds: ['webhooks:write'],
      lacks: 'artifacts:read',
      control: { status: 201, writes: 'nothing' },
    },
  ],
}

describe(`a write grants no more than its caller may do (${engine})`, () => {
  /** A private artifact of the team, allowlisting one address found nowhere else. */
  async function privateArtifact() {
    const friend = `friend-${Math.random().toString(36).slice(2)}@example.com`
    return { id: await teamArtifact('granted', '# Private\n', [friend]), friend }
  }

  /** What the owner sees of an artifact's links, trail and settings: a write changes at least one. */
  async function state(artifactId: string) {
    const token = world.owner.token
    const links = await api.call('GET', `/api/artifacts/${artifactId}/share-links`, token)
    const trail = await api.call('GET', `/api/audit-events?artifactId=${artifactId}&limit=100`, token)
    const settings = await api.call('GET', `/api/artifacts/${artifactId}/access`, token)
    return {
      links: (links.items as { id: string }[]).map((l) => l.id),
      events: (trail.items as { id: string }[]).map((e) => e.id),
      settings,
    }
  }

  const send = (request: TextRequest, artifactId: string, token: string) =>
    api.request(request.method, request.url(artifactId), {
      token,
      ...(request.body === undefined ? {} : { body: bodyFor(request, artifactId) }),
    })

  it('covers every operation that needs more than its own scope, each scope it also needs missing in turn', () => {
    const needing = operationIds.filter((id) => scopesOf(operations[id]).length > 1)
    expect(Object.keys(grantCases).sort()).toEqual(needing.sort())
    for (const id of needing) {
      const [own, ...also] = scopesOf(operations[id])
      const cases = grantCases[id] ?? []
      for (const c of cases) expect(c.holds, `${id}, ${c.name}`).toContain(own)
      for (const scope of also)
        expect(
          cases.map((c) => c.lacks),
          id,
        ).toContain(scope)
    }
  })

  for (const [id, cases] of Object.entries(grantCases)) {
    for (const c of cases ?? []) {
      it(`${id}, ${c.name}, from a key with ${c.holds.join(' ')}: 403 insufficient_scope (${c.lacks}), nothing written`, async () => {
        const refused = await privateArtifact()
        const before = await state(refused.id)
        const key = (await api.user(world.owner.email, c.holds)).token
        const res = await send(c.request, refused.id, key)
        expect(res.statusCode, res.body).toBe(403)
        expect(res.json(), res.body).toMatchObject({ code: 'insufficient_scope', scope: c.lacks })
        expect(res.json().detail, res.body).toContain(`\`${c.lacks}\``)
        expect(res.headers['www-authenticate']).toContain(`error="insufficient_scope", scope="${c.lacks}"`)
        expect(res.body).not.toContain(refused.friend)
        expect(await state(refused.id)).toEqual(before)

        // The control: a key with every scope the request needs gets through, and writes what it should.
        const granted = await privateArtifact()
        const earlier = await state(granted.id)
        const full = (await api.user(world.owner.email, [...c.holds, c.lacks])).token
        const done = await send(c.request, granted.id, full)
        expect(done.statusCode, done.body).toBe(c.control.status)
        const after = await state(granted.id)
        if (c.control.writes === 'nothing') expect(after).toEqual(earlier)
        else expect(after.events).toHaveLength(earlier.events.length + 1)
        if (c.control.writes === 'link') expect(after.links).toHaveLength(earlier.links.length + 1)
        // What the refused key did not see, the control does.
        if (c.lacks === 'artifacts:access:read') expect(done.body).toContain(granted.friend)
        if (c.control.settings) expect(after.settings).toMatchObject(c.control.settings)
      })
    }
  }
})
