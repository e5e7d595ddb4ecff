/**
 * The trail of a deleted artifact. After `DELETE /api/artifacts/:artifactId` (a soft delete), those
 * who could delete it (its workspace's owners and admins) still read
 * `GET /api/audit-events?artifactId=…`, with `deletedArtifact` saying it is deleted; to everyone
 * else the deleted artifact answers exactly as one that never existed.
 */
import { createIdGenerator, scopes } from '@quire/core'
import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { engine, startTestApi, type TestApi } from './helper.ts'
import { type ArtifactWorld, artifactWorld, createWorld, type PrincipalName, tokenFor, type World } from './operation-world.ts'

let api: TestApi
let world: World
/** A key of the workspace member with every scope but `artifacts:read` (the one `audit.read` needs). */
let memberMissingScope: string
const neverExisted = createIdGenerator().next('art')

beforeAll(async () => {
  api = await startTestApi()
  world = await createWorld(api)
  memberMissingScope = (
    await api.user(
      world.users.member.email,
      scopes.filter((s) => s !== 'artifacts:read'),
    )
  ).token
})
afterAll(async () => {
  await api?.close()
})

interface Event {
  readonly id: string
  readonly action: string
  readonly artifactId: string
  readonly actor: { readonly id: string }
}

const trailUrl = (artifactId: string, query = '') => `/api/audit-events?artifactId=${artifactId}${query}`

/** What a caller can tell apart: status, code, detail, the scope named, the challenge, and a success's body. */
function answer(res: LightMyRequestResponse) {
  const body = res.body === '' ? null : res.json()
  if (res.statusCode < 300) return { status: res.statusCode, body }
  return {
    status: res.statusCode,
    code: body.code,
    detail: body.detail,
    scope: body.scope,
    challenge: res.headers['www-authenticate'] ?? null,
  }
}

const ask = async (url: string, token: string | null) => answer(await api.request('GET', url, { token }))

/** A page that must be a 200. */
async function page(url: string, token: string) {
  const res = await api.request('GET', url, { token })
  expect(res.statusCode, res.body).toBe(200)
  return res.json() as { items: Event[]; nextCursor: string | null; deletedArtifact?: { id: string; deletedAt: string } }
}

/** The artifact's principals' token for listAuditEvents, as in the authorization matrix. */
const token = (principal: PrincipalName, artifact: ArtifactWorld) => tokenFor(world, principal, 'listAuditEvents', artifact)

async function deleted(by: string): Promise<{ artifact: ArtifactWorld; deletedAt: string }> {
  const artifact = await artifactWorld(world)
  const res = await api.request('DELETE', `/api/artifacts/${artifact.artifactId}`, { token: by })
  expect(res.statusCode, res.body).toBe(200)
  return { artifact, deletedAt: res.json().deletedAt }
}

describe(`the trail of a deleted artifact (${engine})`, () => {
  it('its owners and admins still read every event, the deletion last, and the page says it is deleted', async () => {
    const artifact = await artifactWorld(world)
    const live = await page(trailUrl(artifact.artifactId, '&limit=100'), world.owner.token)
    expect(live).not.toHaveProperty('deletedArtifact')
    expect(live.items.at(-1)?.action).toBe('artifact.created')

    const del = await api.request('DELETE', `/api/artifacts/${artifact.artifactId}`, { token: world.users.admin.token })
    expect(del.statusCode, del.body).toBe(200)
    const { deletedAt } = del.json()
    expect((await api.request('GET', `/api/artifacts/${artifact.artifactId}`, { token: world.owner.token })).statusCode).toBe(404)

    const trail = await page(trailUrl(artifact.artifactId, '&limit=100'), world.owner.token)
    expect(trail.deletedArtifact).toEqual({ id: artifact.artifactId, deletedAt })
    expect(trail.nextCursor).toBeNull()
    const [deletion, ...before] = trail.items
    expect(before).toEqual(live.items)
    expect(deletion).toMatchObject({ action: 'artifact.deleted', artifactId: artifact.artifactId, actor: { id: world.users.admin.userId } })

    // The admin, and a key of the owner with only `artifacts:read` (the role decides, not `artifacts:delete`), read the same.
    for (const principal of ['admin', 'ownerScoped'] as const) {
      expect(await ask(trailUrl(artifact.artifactId, '&limit=100'), token(principal, artifact)), principal).toEqual({
        status: 200,
        body: trail,
      })
    }

    // One kind of event, and a walk by cursor: every page says the artifact is deleted.
    const kind = await page(trailUrl(artifact.artifactId, '&action=artifact.deleted'), world.owner.token)
    expect(kind).toEqual({ items: [deletion], nextCursor: null, deletedArtifact: { id: artifact.artifactId, deletedAt } })
    const walked: Event[] = []
    let cursor: string | null = null
    do {
      const next = await page(trailUrl(artifact.artifactId, `&limit=2${cursor ? `&cursor=${cursor}` : ''}`), world.owner.token)
      expect(next.deletedArtifact).toEqual({ id: artifact.artifactId, deletedAt })
      walked.push(...next.items)
      cursor = next.nextCursor
    } while (cursor !== null)
    expect(walked).toEqual(trail.items)

    // The account-level trail is no artifact's: it carries no mark.
    expect(await page('/api/audit-events', world.owner.token)).not.toHaveProperty('deletedArtifact')
  })

  it('a new artifact with the freed slug has a trail of its own; the deleted one keeps its own', async () => {
    const { artifact, deletedAt } = await deleted(world.owner.token)
    const again = await api.call('POST', '/api/artifacts', world.owner.token, {
      ownerUsername: world.team.slug,
      projectSlug: 'notes',
      slug: artifact.slug,
      type: 'md',
      title: 'Again',
      content: 'again',
      changelog: '',
      access: { publicView: false, publicEdit: false },
    })
    const fresh = await page(trailUrl(again.id), world.owner.token)
    expect(fresh).not.toHaveProperty('deletedArtifact')
    expect(fresh.items.map((e) => [e.action, e.artifactId])).toEqual([['artifact.created', again.id]])
    const old = await page(trailUrl(artifact.artifactId), world.owner.token)
    expect(old.deletedArtifact).toEqual({ id: artifact.artifactId, deletedAt })
    expect(old.items.every((e) => e.artifactId === artifact.artifactId)).toBe(true)
  })

  it('to everyone else, a deleted artifact answers exactly as one that never existed', async () => {
    const artifact = await artifactWorld(world)
    const others = {
      member: token('member', artifact),
      memberMissingScope,
      allowlisted: token('allowlisted', artifact),
      stranger: token('stranger', artifact),
      invitee: token('invitee', artifact),
      anonymous: null,
      linkViewer: token('linkViewer', artifact),
      linkEditor: token('linkEditor', artifact),
      otherLink: token('otherLink', artifact),
    }
    // Before the deletion the member reads the trail, and the others are refused in their ways.
    const before = Object.fromEntries(
      await Promise.all(Object.entries(others).map(async ([who, t]) => [who, await ask(trailUrl(artifact.artifactId), t)] as const)),
    )
    expect(before.member?.status).toBe(200)
    expect(before.memberMissingScope).toMatchObject({ status: 403, code: 'insufficient_scope', scope: 'artifacts:read' })
    expect(before.allowlisted).toMatchObject({ status: 403, code: 'forbidden' })

    expect((await api.request('DELETE', `/api/artifacts/${artifact.artifactId}`, { token: world.owner.token })).statusCode).toBe(200)
    for (const [who, t] of Object.entries(others)) {
      const seen = await ask(trailUrl(artifact.artifactId), t)
      expect(seen, who).toEqual(await ask(trailUrl(neverExisted), t))
      if (!who.startsWith('link')) expect(seen, who).toMatchObject({ status: 404, code: 'not_found' })
    }
    // The owner still reads it: the refusals above are about the callers, not the trail.
    expect((await page(trailUrl(artifact.artifactId), world.owner.token)).deletedArtifact?.id).toBe(artifact.artifactId)
  })

  it('a key of the owner that lacks the scope of audit.read, and a dead key, are refused as before the deletion', async () => {
    const artifact = await artifactWorld(world)
    const keys = { ownerMissingScope: token('ownerMissingScope', artifact), ownerRevokedKey: token('ownerRevokedKey', artifact) }
    const before = {
      ownerMissingScope: await ask(trailUrl(artifact.artifactId), keys.ownerMissingScope),
      ownerRevokedKey: await ask(trailUrl(artifact.artifactId), keys.ownerRevokedKey),
    }
    expect(before.ownerMissingScope).toMatchObject({ status: 403, code: 'insufficient_scope', scope: 'artifacts:read' })
    expect(before.ownerRevokedKey).toMatchObject({ status: 401, code: 'invalid_token' })

    // The key lacking `artifacts:read` carries `artifacts:delete`: it deletes, and still may not read the trail.
    expect((await api.request('DELETE', `/api/artifacts/${artifact.artifactId}`, { token: keys.ownerMissingScope })).statusCode).toBe(200)
    expect(await ask(trailUrl(artifact.artifactId), keys.ownerMissingScope)).toEqual(before.ownerMissingScope)
    expect(await ask(trailUrl(artifact.artifactId), keys.ownerRevokedKey)).toEqual(before.ownerRevokedKey)
  })
})
