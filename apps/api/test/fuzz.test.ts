import { ErrorCodes, illFormedText, type OperationId, type OperationSpec, operationIds, operations } from '@quire/core'
import { httpStatusOf } from '@quire/server'
import { Ajv } from 'ajv'
import addFormats from 'ajv-formats'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { claimedAgent } from '../../../tooling/vitest/claimed-agent.ts'
import { engine, startTestApi, type TestApi } from './helper.ts'
import { arbitraryFor, mutated, textArbitrary } from './schema-arbitrary.ts'

/**
 * Every operation of the table, fuzzed: path parameters, query strings and bodies from the
 * operation's own schemas, with hostile text (NUL, lone surrogates, controls, non-ASCII, very long
 * strings) in every free string, and real ids and names of a small world often enough that each
 * operation's handler runs to a success too. Never a 5xx; a failure is problem+json with a known
 * code; a success matches the contract; ill-formed text never gets past the edge.
 */

const runsPerOperation = 100

let api: TestApi
const ajv = new Ajv({ strict: false })
addFormats.default(ajv)

/** The world the fuzzer's "real" values come from. */
interface World {
  owner: { token: string; username: string; personalWorkspaceId: string }
  /** Accepts invitations made to them (acceptInvitation needs the invitee). */
  invitee: { token: string; email: string }
  /** Renamed by updateProfile, so that the owner's username (in many paths) stays put. */
  renamer: { token: string }
  team: { id: string; slug: string }
  artifactId: string
  shareLinkId: string
  apiKeyId: string
  agentId: string
  invitationId: string
}
let world: World
let fresh = 0

/** A request that must succeed (the world is built through the API itself). */
// biome-ignore lint/suspicious/noExplicitAny: test bodies are read loosely
async function call(method: string, url: string, token: string, body?: unknown): Promise<any> {
  return api.call(method, url, token, body)
}

beforeAll(async () => {
  api = await startTestApi()
  const owner = await api.user('fuzz-owner@example.com')
  const invitee = await api.user('fuzz-invitee@example.com')
  const renamer = await api.user('fuzz-renamer@example.com')
  const workspaces = await call('GET', '/api/workspaces', owner.token)
  const personal = workspaces.items.find((w: { kind: string }) => w.kind === 'personal')
  const team = await call('POST', '/api/workspaces', owner.token, { slug: 'fuzz-team', name: 'Fuzz team' })
  for (const ns of [owner.username, team.slug])
    await call('POST', '/api/projects', owner.token, { ownerUsername: ns, slug: 'notes', title: 'Notes', icon: 'n' })
  const artifact = await call('POST', '/api/artifacts', owner.token, {
    ownerUsername: owner.username,
    projectSlug: 'notes',
    slug: 'hello',
    type: 'md',
    title: 'Hello',
    content: '# Hello\n',
    changelog: 'first',
    access: { publicView: true, publicEdit: false },
  })
  await call('POST', `/api/artifacts/${artifact.id}/versions`, owner.token, { content: '# Hello again\n', expectedLatestVersion: 1 })
  const link = await call('POST', `/api/artifacts/${artifact.id}/share-links`, owner.token, { role: 'viewer' })
  const key = await call('POST', '/api/api-keys', owner.token, { name: 'revoked by the fuzzer', scopes: ['artifacts:read'] })
  const invitation = await call('POST', `/api/workspaces/${team.id}/invitations`, owner.token, { email: 'pending@example.com' })
  const agentId = (await claimedAgent(api.runtime.deps, { userId: owner.userId, email: 'fuzz-owner@example.com' })).id
  world = {
    owner: { token: owner.token, username: owner.username, personalWorkspaceId: personal.id },
    invitee: { token: invitee.token, email: 'fuzz-invitee@example.com' },
    renamer: { token: renamer.token },
    team: { id: team.id, slug: team.slug },
    artifactId: artifact.id,
    shareLinkId: link.id,
    apiKeyId: key.id,
    agentId,
    invitationId: invitation.id,
  }
})
afterAll(async () => {
  await api.close()
})

/** A path parameter as generated: one of the world's real values, hostile text, or raw bytes as sent. */
type Segment = { kind: 'real'; variant: number } | { kind: 'text'; value: string } | { kind: 'raw'; value: string }

// No dot segments: a URL resolves them away, into another operation's route.
const rawSegments = ['%00', '%ED%A0%80', '%C0%80', '%FF', '%E3%80%82', '%E0%A4%A', 'a'.repeat(600), '-1', '0', '2147483648']

function segmentArbitrary(clean: boolean): fc.Arbitrary<Segment> {
  const real = fc.nat(3).map((variant): Segment => ({ kind: 'real', variant }))
  if (clean) return real
  return fc.oneof(
    { weight: 3, arbitrary: real },
    { weight: 2, arbitrary: textArbitrary({ maxLength: 30 }).map((value): Segment => ({ kind: 'text', value })) },
    { weight: 1, arbitrary: fc.constantFrom(...rawSegments).map((value): Segment => ({ kind: 'raw', value })) },
  )
}

/** The real value of a path parameter for an operation; operations that consume what they act on get a fresh one. */
async function realSegment(id: OperationId, name: string, variant: number): Promise<string> {
  const n = ++fresh
  switch (name) {
    case 'artifactId': {
      if (id !== 'deleteArtifact') return world.artifactId
      const doomed = await call('POST', '/api/artifacts', world.owner.token, {
        ownerUsername: world.owner.username,
        projectSlug: 'notes',
        slug: `doomed-${n}`,
        type: 'txt',
        title: 'Doomed',
        content: 'x',
        changelog: '',
        access: { publicView: false, publicEdit: false },
      })
      return doomed.id
    }
    case 'owner':
      return variant % 2 === 0 ? world.owner.username : world.team.slug
    case 'projectSlug':
      return 'notes'
    case 'slug':
      return variant % 2 === 0 ? 'hello' : `free-${n}`
    case 'workspaceId':
      return variant % 2 === 0 ? world.team.id : world.owner.personalWorkspaceId
    case 'versionNumber':
      return String(1 + (variant % 2))
    case 'shareLinkId':
      return world.shareLinkId
    case 'apiKeyId':
      return world.apiKeyId
    case 'agentId':
      return world.agentId
    case 'invitationId': {
      if (id !== 'acceptInvitation') return world.invitationId
      // A workspace of its own each time, so that the invitee can accept again.
      const side = await call('POST', '/api/workspaces', world.owner.token, { slug: `side-${n}`, name: `Side ${n}` })
      const invitation = await call('POST', `/api/workspaces/${side.id}/invitations`, world.owner.token, { email: world.invitee.email })
      return invitation.id
    }
    default:
      throw new Error(`No real value for the path parameter ${name}`)
  }
}

/**
 * What a URL carries of a string: lone surrogates become U+FFFD on the way (no UTF-8 form), the
 * rest is percent-encoded; a dot segment (`.`, `..`) gets a prefix, since URLs resolve those away.
 */
function encodeSegment(value: string): string {
  const encoded = encodeURIComponent(value.toWellFormed())
  return /^\.{1,2}$/.test(encoded) ? `x${encoded}` : encoded
}

async function pathOf(id: OperationId, op: OperationSpec, segments: Segment[]): Promise<string> {
  const names = [...op.path.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1] as string)
  let path = op.path
  for (const [i, name] of names.entries()) {
    const segment = segments[i] as Segment
    const value =
      segment.kind === 'real'
        ? await realSegment(id, name, segment.variant)
        : segment.kind === 'text'
          ? encodeSegment(segment.value) || 'x'
          : segment.value
    path = path.replace(`:${name}`, value)
  }
  return path
}

/** The values of the world to prefer for fields of these names, in bodies and queries. */
function overrides(): Record<string, fc.Arbitrary<unknown>> {
  const versions = fc.integer({ min: 1, max: 3 })
  return {
    ownerUsername: fc.constantFrom(world.owner.username, world.team.slug),
    projectSlug: fc.constant('notes'),
    expectedLatestVersion: fc.constantFrom<unknown>(latest, latest, 1),
    version: versions,
    from: versions,
    to: versions,
    artifactId: fc.constant(world.artifactId),
    expiresAt: fc.integer({ min: 1, max: 300 }).map((days) => new Date(Date.now() + days * 86_400_000).toISOString()),
  }
}

/** Stands for the artifact's latest version number, read just before the request is sent. */
const latest = '$latest'

function queryArbitrary(op: OperationSpec, clean: boolean): fc.Arbitrary<string> {
  const valid = op.query ? arbitraryFor(op.query as never, { clean, overrides: overrides() }) : fc.constant({})
  const shape = clean ? valid : fc.oneof({ weight: 3, arbitrary: valid }, { weight: 1, arbitrary: mutated(valid) })
  const raw = clean
    ? fc.constant('')
    : fc.oneof({ weight: 4, arbitrary: fc.constant('') }, { weight: 1, arbitrary: fc.constantFrom(...rawSegments) })
  return fc.tuple(shape, raw).map(([q, rawValue]) => {
    if (q === null || typeof q !== 'object' || Array.isArray(q)) return `?junk=${encodeURIComponent(JSON.stringify(q))}`
    const s = new URLSearchParams(
      Object.entries(q as Record<string, unknown>).map(([k, v]) => [
        k,
        typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v),
      ]),
    ).toString()
    const all = [s, rawValue && `${rawValue}=${rawValue}`].filter(Boolean).join('&')
    return all ? `?${all}` : ''
  })
}

interface Body {
  value?: unknown
  payload?: string
  contentType?: string
}

function bodyArbitrary(op: OperationSpec, clean: boolean): fc.Arbitrary<Body> {
  if (!op.body) return fc.constantFrom<Body>({}, { payload: '{"a":1}', contentType: 'application/json' })
  const valid = arbitraryFor(op.body as never, { clean, overrides: overrides() })
  const json = (value: unknown): Body => ({ value, contentType: 'application/json' })
  if (clean) return valid.map(json)
  return fc.oneof(
    { weight: 4, arbitrary: valid.map(json) },
    { weight: 2, arbitrary: mutated(valid).map(json) },
    { weight: 1, arbitrary: fc.string({ maxLength: 50 }).map((s): Body => ({ payload: s, contentType: 'application/json' })) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Body>(
        { payload: 'x=1', contentType: 'application/x-www-form-urlencoded' },
        {},
        { payload: '', contentType: 'application/json' },
      ),
    },
  )
}

type Who = 'owner' | 'invitee' | 'none' | 'garbage'

const credential: fc.Arbitrary<Who> = fc.oneof(
  { weight: 4, arbitrary: fc.constant<Who>('owner') },
  { weight: 1, arbitrary: fc.constantFrom<Who>('invitee', 'none', 'garbage') },
)

function tokenOf(id: OperationId, who: Who): string | null {
  if (who === 'none') return null
  if (who === 'garbage') return 'qk_garbage'
  if (who === 'invitee' || id === 'acceptInvitation') return world.invitee.token
  return id === 'updateProfile' ? world.renamer.token : world.owner.token
}

interface Case {
  segments: Segment[]
  query: string
  body: Body
  who: Who
}

/** One request's inputs: a quarter clean (real values, well-formed text, the owner), the rest anything. */
function caseArbitrary(op: OperationSpec): fc.Arbitrary<Case> {
  const params = [...op.path.matchAll(/:([A-Za-z]+)/g)].length
  const of = (clean: boolean) =>
    fc.record({
      segments: fc.array(segmentArbitrary(clean), { minLength: params, maxLength: params }),
      query: queryArbitrary(op, clean),
      body: bodyArbitrary(op, clean),
      who: clean ? fc.constant<Who>('owner') : credential,
    })
  return fc.oneof({ weight: 1, arbitrary: of(true) }, { weight: 3, arbitrary: of(false) })
}

/** Whether the input carries text the edge must refuse (as the server will have parsed it). */
function carriesIllFormedText(op: OperationSpec, c: Case): boolean {
  const inUrl = (s: string) => s.includes('%00')
  if (c.segments.some((s) => (s.kind === 'text' ? s.value.includes('\u0000') : s.kind === 'raw' && inUrl(s.value)))) return true
  if (inUrl(c.query)) return true
  return op.body !== undefined && c.body.value !== undefined && illFormedText(c.body.value).length > 0
}

const statuses = new Map<OperationId, Map<string, number>>()

function record(id: OperationId, status: string): void {
  const counts = statuses.get(id) ?? new Map<string, number>()
  counts.set(status, (counts.get(status) ?? 0) + 1)
  statuses.set(id, counts)
}

async function latestVersion(): Promise<number> {
  return (await call('GET', `/api/artifacts/${world.artifactId}`, world.owner.token)).latestVersion
}

describe(`fuzzing every operation of the table (${engine})`, () => {
  for (const id of operationIds) {
    const op: OperationSpec = operations[id]
    const validateSuccess = ajv.compile(op.success.schema as object)
    // A write with a dry run answers 200 with its preview when asked (`dryRun: true` in the body of the answer).
    const validatePreview = op.dryRun ? ajv.compile(op.dryRun.schema as object) : null
    it(`${id}: never a 5xx, always problem+json on failure, the contract on success, ill-formed text refused`, async () => {
      await fc.assert(
        fc.asyncProperty(caseArbitrary(op), async (c) => {
          const path = await pathOf(id, op, c.segments)
          const headers: Record<string, string> = {}
          const token = tokenOf(id, c.who)
          if (token) headers.authorization = `Bearer ${token}`
          if (c.body.contentType) headers['content-type'] = c.body.contentType
          let payload = c.body.payload
          if (c.body.value !== undefined) {
            payload = JSON.stringify(c.body.value)
            if (payload.includes(`"${latest}"`)) payload = payload.replaceAll(`"${latest}"`, String(await latestVersion()))
          }
          const res = await api.app.inject({
            method: op.method,
            url: `${path}${c.query}`,
            headers,
            ...(payload !== undefined ? { payload } : {}),
          })
          const shown = `${op.method} ${path}${c.query} ${(payload ?? '').slice(0, 300)}`
          expect(res.statusCode, shown).toBeLessThan(500)
          if (res.statusCode >= 400) {
            expect(res.headers['content-type']).toContain('application/problem+json')
            const problem = res.json()
            expect(ErrorCodes).toContain(problem.code)
            expect(httpStatusOf(problem.code)).toBe(res.statusCode)
            expect(problem.detail).toEqual(expect.any(String))
            record(id, `${res.statusCode} ${problem.code}`)
          } else {
            record(id, String(res.statusCode))
            const answer = res.body === '' ? null : res.json()
            if (validatePreview && answer?.dryRun === true) {
              expect(res.statusCode, shown).toBe(200)
              expect(validatePreview(answer), JSON.stringify(validatePreview.errors)).toBe(true)
            } else if (res.statusCode === op.success.status)
              expect(validateSuccess(answer), JSON.stringify(validateSuccess.errors)).toBe(true)
          }
          if (carriesIllFormedText(op, c)) expect(res.statusCode, shown).toBeGreaterThanOrEqual(400)
        }),
        { numRuns: runsPerOperation },
      )
    })
  }

  it('reached every operation’s handler and saw it succeed', () => {
    const succeeded = operationIds.filter((id) => [...(statuses.get(id)?.keys() ?? [])].some((s) => s.startsWith('2')))
    const runs = [...statuses.values()].reduce((sum, counts) => sum + [...counts.values()].reduce((a, b) => a + b, 0), 0)
    console.info(`fuzz (${engine}): ${operationIds.length} operations, ${runs} requests, ${succeeded.length} with a success`)
    expect(operationIds.filter((id) => !succeeded.includes(id))).toEqual([])
  })
})
