/**
 * `POST /api/artifacts?dryRun=true`: every check of the create runs (the slug being free
 * included), nothing is written (no artifact, version, content, audit event or Idempotency-Key),
 * and every refusal is the create's own problem. A taken artifact slug offers free ones, in the
 * create's 409 and in the availability answers.
 */
import { ArtifactDryRun } from '@quire/core/contract'
import type { LightMyRequestResponse } from 'fastify'
import { Value } from 'typebox/value'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { count, engine, seedArtifact, startTestApi, type TestApi } from './helper.ts'

let api: TestApi
beforeAll(async () => {
  api = await startTestApi()
})
afterAll(async () => {
  await api.close()
})

/** Every row a create could leave behind. */
async function footprint() {
  return {
    artifacts: await count(api, 'artifacts'),
    versions: await count(api, 'versions'),
    contents: await count(api, 'contents'),
    audit: await count(api, 'audit_events'),
    idempotency: await count(api, 'idempotency_keys'),
  }
}

/** A problem without what differs between two requests (its request id). */
function problemOf(res: LightMyRequestResponse) {
  const { requestId: _, instance: __, ...rest } = res.json()
  return { status: res.statusCode, ...rest }
}

function createBody(owner: string, slug: string, extra: Record<string, unknown> = {}) {
  return {
    ownerUsername: owner,
    projectSlug: 'notes',
    slug,
    type: 'md',
    title: 'Launch plan',
    content: '# Plan\n\nFirst.\n',
    changelog: 'First draft',
    access: { publicView: false, publicEdit: false },
    ...extra,
  }
}

describe(`createArtifact with dryRun=true (${engine})`, () => {
  it('answers 200 with what the create then makes, writing nothing (the Idempotency-Key stays free)', async () => {
    const { owner } = await seedArtifact(api)
    const body = createBody(owner.username, 'plan', {
      description: 'What we ship',
      access: { publicView: true, publicEdit: false, viewerEmails: ['Bob@Example.com'] },
    })
    const key = { 'idempotency-key': 'dry-create-1' }
    const before = await footprint()
    const dry = await api.request('POST', '/api/artifacts?dryRun=true', { token: owner.token, body, headers: key })
    expect(dry.statusCode, dry.body).toBe(200)
    expect(dry.headers.location).toBeUndefined()
    expect(Value.Check(ArtifactDryRun, dry.json())).toBe(true)
    expect(await footprint()).toEqual(before)
    expect((await api.request('GET', `/api/by-path/${owner.username}/notes/plan`, { token: owner.token })).statusCode).toBe(404)

    const real = await api.request('POST', '/api/artifacts', { token: owner.token, body, headers: key })
    expect(real.statusCode).toBe(201)
    expect(real.headers['idempotent-replayed']).toBeUndefined()
    const artifact = real.json()
    const [version] = (await api.call('GET', `/api/artifacts/${artifact.id}/versions`, owner.token)).items
    const access = await api.call('GET', `/api/artifacts/${artifact.id}/access`, owner.token)
    expect(dry.json()).toEqual({
      dryRun: true,
      wouldCreate: {
        ownerUsername: artifact.ownerUsername,
        projectSlug: artifact.projectSlug,
        slug: artifact.slug,
        url: artifact.url,
        type: artifact.type,
        title: artifact.title,
        description: artifact.description,
        versionNumber: version.versionNumber,
        sha256: version.sha256,
        size: version.size,
        changelog: version.changelog,
        access: { publicView: access.publicView, publicEdit: access.publicEdit, viewerEmails: access.viewerEmails },
      },
    })
    expect(dry.json().wouldCreate.access.viewerEmails).toEqual(['bob@example.com'])
    expect(await count(api, 'audit_events')).toBe(before.audit + 1)
  })

  it('gives every refusal the create gives, the same problem, writing nothing', async () => {
    const { owner } = await seedArtifact(api)
    const stranger = await api.user(`stranger-${Math.random().toString(36).slice(2, 8)}@example.com`)
    const readOnly = await api.call('POST', '/api/api-keys', owner.token, { name: 'read-only', scopes: ['artifacts:read'] })
    const createOnly = await api.call('POST', '/api/api-keys', owner.token, { name: 'create only', scopes: ['artifacts:create'] })
    const cases: { name: string; token: string | null; body: unknown; code: string; status: number }[] = [
      { name: 'anonymous', token: null, body: createBody(owner.username, 'a'), code: 'unauthenticated', status: 401 },
      {
        name: 'a dead token',
        token: 'qk_notakeyatallnotakeyatall',
        body: createBody(owner.username, 'a'),
        code: 'invalid_token',
        status: 401,
      },
      { name: 'a stranger', token: stranger.token, body: createBody(owner.username, 'a'), code: 'not_found', status: 404 },
      { name: 'no create scope', token: readOnly.secret, body: createBody(owner.username, 'a'), code: 'insufficient_scope', status: 403 },
      {
        name: 'setting access without its scope',
        token: createOnly.secret,
        body: createBody(owner.username, 'a', { access: { publicView: true, publicEdit: false } }),
        code: 'insufficient_scope',
        status: 403,
      },
      {
        name: 'no such project',
        token: owner.token,
        body: { ...createBody(owner.username, 'a'), projectSlug: 'nope' },
        code: 'not_found',
        status: 404,
      },
      {
        name: 'a repeated viewer email',
        token: owner.token,
        body: createBody(owner.username, 'a', { access: { publicView: false, publicEdit: false, viewerEmails: ['a@x.io', 'A@x.io'] } }),
        code: 'validation_failed',
        status: 400,
      },
      {
        name: 'a bad body',
        token: owner.token,
        body: { ...createBody(owner.username, 'a'), type: 'docx' },
        code: 'validation_failed',
        status: 400,
      },
      { name: 'a taken slug', token: owner.token, body: createBody(owner.username, 'hello'), code: 'slug_taken', status: 409 },
    ]
    const before = await footprint()
    for (const c of cases) {
      const options = { token: c.token, body: c.body }
      const dry = await api.request('POST', '/api/artifacts?dryRun=true', options)
      const real = await api.request('POST', '/api/artifacts', options)
      expect(problemOf(dry), c.name).toEqual(problemOf(real))
      expect(dry.statusCode, c.name).toBe(c.status)
      expect(dry.json().code, c.name).toBe(c.code)
      expect(dry.headers['www-authenticate'], c.name).toBe(real.headers['www-authenticate'])
    }
    expect((await footprint()).artifacts).toBe(before.artifacts)
    const small = await startTestApi({ env: { QUIRE_CONTENT_MAX_BYTES: '2048' } })
    try {
      // Content over the limit: 413, as the create.
      const { owner: ada } = await seedArtifact(small)
      const body = createBody(ada.username, 'big', { content: 'x'.repeat(3000) })
      const dry = await small.request('POST', '/api/artifacts?dryRun=true', { token: ada.token, body })
      const real = await small.request('POST', '/api/artifacts', { token: ada.token, body })
      expect(dry.statusCode).toBe(413)
      expect(problemOf(dry)).toEqual(problemOf(real))
      expect(await count(small, 'artifacts')).toBe(1)
    } finally {
      await small.close()
    }
  })

  it('a member may dry-run a create with the default access, not one that sets access (403, as the create)', async () => {
    const name = Math.random().toString(36).slice(2, 8)
    const owner = await api.user(`owner-${name}@example.com`)
    const member = await api.user(`member-${name}@example.com`)
    const ws = await api.call('POST', '/api/workspaces', owner.token, { slug: `dry-${name}`, name: 'Dry' })
    await api.call('POST', '/api/projects', owner.token, { ownerUsername: ws.slug, slug: 'notes', title: 'Notes', icon: 'n' })
    const invitation = await api.call('POST', `/api/workspaces/${ws.id}/invitations`, owner.token, { email: `member-${name}@example.com` })
    await api.call('POST', `/api/workspace-invitations/${invitation.id}/accept`, member.token)
    const before = await footprint()
    const plain = await api.request('POST', '/api/artifacts?dryRun=true', { token: member.token, body: createBody(ws.slug, 'plan') })
    expect(plain.statusCode, plain.body).toBe(200)
    expect(plain.json().wouldCreate).toMatchObject({ ownerUsername: ws.slug, url: `https://quire.test/${ws.slug}/notes/plan` })
    const open = createBody(ws.slug, 'plan', { access: { publicView: true, publicEdit: false } })
    const dry = await api.request('POST', '/api/artifacts?dryRun=true', { token: member.token, body: open })
    const real = await api.request('POST', '/api/artifacts', { token: member.token, body: open })
    expect(dry.statusCode).toBe(403)
    expect(problemOf(dry)).toEqual(problemOf(real))
    expect(await footprint()).toEqual(before)
  })
})

describe(`free artifact slugs instead of a taken one (${engine})`, () => {
  it('the 409 slug_taken of the create and of its dry run carries suggestions: from the title, then numbered, each free', async () => {
    const { owner } = await seedArtifact(api, { slug: 'plan' })
    await api.call('POST', '/api/artifacts', owner.token, createBody(owner.username, 'plan-2'))
    const body = createBody(owner.username, 'plan')
    const dry = await api.request('POST', '/api/artifacts?dryRun=true', { token: owner.token, body })
    const real = await api.request('POST', '/api/artifacts', { token: owner.token, body })
    expect(real.statusCode).toBe(409)
    expect(real.json()).toMatchObject({ code: 'slug_taken', suggestions: ['launch-plan', 'plan-launch', 'plan-3'] })
    expect(problemOf(dry)).toEqual(problemOf(real))
    for (const slug of real.json().suggestions) {
      const preview = await api.request('POST', '/api/artifacts?dryRun=true', {
        token: owner.token,
        body: createBody(owner.username, slug),
      })
      expect(preview.statusCode, slug).toBe(200)
      expect(
        (await api.request('POST', '/api/artifacts', { token: owner.token, body: createBody(owner.username, slug) })).statusCode,
        slug,
      ).toBe(201)
    }
  })

  it('the availability check and the URL preview offer them when the slug is taken, and none when it is free', async () => {
    const { owner } = await seedArtifact(api, { slug: 'plan' })
    await api.call('POST', '/api/artifacts', owner.token, createBody(owner.username, 'plan-3'))
    const taken = { ownerUsername: owner.username, projectSlug: 'notes', slug: 'plan', available: false, reason: 'taken' }
    const suggestions = ['plan-2', 'plan-4', 'plan-5']
    const check = await api.call('GET', `/api/artifacts/slug-availability/${owner.username}/notes/plan`, owner.token)
    expect(check).toEqual({ ...taken, suggestions })
    const preview = await api.call('GET', `/api/slug-preview/${owner.username}/notes/plan`, owner.token)
    expect(preview).toEqual({ url: `https://quire.test/${owner.username}/notes/plan`, ...taken, suggestions })
    const free = await api.call('GET', `/api/artifacts/slug-availability/${owner.username}/notes/fresh`, owner.token)
    expect(free).not.toHaveProperty('suggestions')
    // A deleted artifact leaves its slug free.
    const gone = await api.call('GET', `/api/by-path/${owner.username}/notes/plan-3`, owner.token)
    await api.call('DELETE', `/api/artifacts/${gone.id}`, owner.token)
    const after = await api.call('GET', `/api/artifacts/slug-availability/${owner.username}/notes/plan`, owner.token)
    expect(after.suggestions).toEqual(['plan-2', 'plan-3', 'plan-4'])
  })
})
