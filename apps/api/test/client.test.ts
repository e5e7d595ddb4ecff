import { createClient, isQuireApiError, type QuireClient, QuireNetworkError } from '@quire/client'
import { freePort } from '@quire/testing/free-port'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { count, engine, startTestApi, type TestApi } from './helper.ts'

/**
 * The typed client against the real API over real HTTP: the app listens on a port, the client
 * uses Node's own fetch, and nothing in between is replaced.
 */
let api: TestApi
let baseUrl: string
beforeAll(async () => {
  api = await startTestApi()
  baseUrl = await api.app.listen({ port: 0, host: '127.0.0.1' })
})
afterAll(async () => {
  await api.close()
})

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail('the call succeeded'),
    (error: unknown) => error,
  )
}

/** A fresh user with a project `notes` and a client holding the user's API key. */
async function signedInUser(label: string): Promise<{ client: QuireClient; username: string }> {
  const user = await api.user(`${label}-${Math.random().toString(36).slice(2, 8)}@example.com`)
  const client = createClient({ baseUrl, token: user.token, clientName: 'cli/0.1.0', userAgent: 'quire-client-test' })
  await client.ops.createProject({ body: { ownerUsername: user.username, slug: 'notes', title: 'Notes', icon: '📝' } })
  return { client, username: user.username }
}

function newArtifact(username: string, slug: string, content = '# Hello\n') {
  return {
    body: {
      ownerUsername: username,
      projectSlug: 'notes',
      slug,
      type: 'md' as const,
      title: `Title of ${slug}`,
      content,
      changelog: 'first',
      access: { publicView: false, publicEdit: false },
    },
  }
}

describe(`@quire/client against the API over HTTP (${engine})`, () => {
  it('creates an artifact and appends a version with expectedLatestVersion', async () => {
    const { client, username } = await signedInUser('writer')
    const artifact = await client.ops.createArtifact(newArtifact(username, 'hello'))
    expect(artifact).toMatchObject({ ownerUsername: username, projectSlug: 'notes', slug: 'hello', latestVersion: 1 })

    const version = await client.ops.appendVersion({
      params: { artifactId: artifact.id },
      body: { content: '# Hello again\n', changelog: 'second', expectedLatestVersion: 1 },
    })
    expect(version).toMatchObject({ artifactId: artifact.id, versionNumber: 2, changelog: 'second' })
    const content = await client.call('getContent', { params: { artifactId: artifact.id } })
    expect(content).toMatchObject({ versionNumber: 2, content: '# Hello again\n' })
    // Through the derived method or the generic call, the same request.
    expect(await client.call('getArtifact', { params: { artifactId: artifact.id } })).toMatchObject({ latestVersion: 2 })

    // The Quire-Client header names the surface in the audit trail.
    const events = await client.ops.listAuditEvents({ query: { artifactId: artifact.id } })
    expect(events.items.map((e) => [e.action, e.via.surface])).toEqual([
      ['artifact.version_created', 'cli'],
      ['artifact.created', 'cli'],
    ])
  })

  it('surfaces a version conflict as QuireApiError with latestVersion and the diff, writing nothing', async () => {
    const { client, username } = await signedInUser('conflict')
    const artifact = await client.ops.createArtifact(newArtifact(username, 'doc', 'one\n'))
    await client.ops.appendVersion({ params: { artifactId: artifact.id }, body: { content: 'two\n', expectedLatestVersion: 1 } })

    const error = await rejection(
      client.ops.appendVersion({ params: { artifactId: artifact.id }, body: { content: 'mine\n', expectedLatestVersion: 1 } }),
    )
    if (!isQuireApiError(error, 'version_conflict')) throw error
    expect(error.status).toBe(409)
    expect(error.operationId).toBe('appendVersion')
    expect(error.problem).toMatchObject({ latestVersion: 2, expectedLatestVersion: 1, type: 'urn:quire:problem:version_conflict' })
    expect(error.problem.diff).toContain('-one')
    expect(error.problem.diff).toContain('+two')
    expect(error.requestId).toEqual(expect.any(String))
    expect(await count(api, 'versions', { artifactId: artifact.id })).toBe(2)
  })

  it('reports an unknown artifact as not_found (404)', async () => {
    const { client } = await signedInUser('reader')
    const error = await rejection(client.ops.getArtifact({ params: { artifactId: 'art_01jc0000000000000000000000' } }))
    expect(isQuireApiError(error, 'not_found')).toBe(true)
    expect(error).toMatchObject({ status: 404, code: 'not_found', title: 'Not found', wwwAuthenticate: null })
  })

  it('reports a missing or bad credential with the WWW-Authenticate challenge', async () => {
    const anonymous = createClient({ baseUrl })
    const missing = await rejection(anonymous.ops.getProfile())
    expect(missing).toMatchObject({ status: 401, code: 'unauthenticated' })
    expect((missing as { wwwAuthenticate: string }).wwwAuthenticate).toMatch(/^Bearer realm="quire", resource_metadata="https:\/\/.+"$/)

    const wrong = createClient({ baseUrl, token: async () => 'qk_not-a-real-key' })
    const invalid = await rejection(wrong.ops.listMyArtifacts())
    expect(invalid).toMatchObject({ status: 401, code: 'invalid_token' })
    expect((invalid as { wwwAuthenticate: string }).wwwAuthenticate).toContain('error="invalid_token"')
    // Anonymous reads that are allowed still work without a token.
    expect(await anonymous.ops.health()).toMatchObject({ status: 'ok' })
  })

  it('searches with a typed query and walks the hits across pages', async () => {
    const { client, username } = await signedInUser('searcher')
    for (const slug of ['s1', 's2', 's3'])
      await client.ops.createArtifact(newArtifact(username, slug, `# ${slug}\n\nA note on kestrels.\n`))
    const page = await client.ops.searchArtifacts({ query: { q: 'kestrel', limit: 2 } })
    expect(page.items).toHaveLength(2)
    expect(page.items[0]?.snippets[0]?.segments).toContainEqual({ text: 'kestrels', match: true })
    const seen: string[] = []
    for await (const hit of client.paginate('searchArtifacts', { query: { q: 'kestrel', limit: 2 } })) seen.push(hit.artifact.slug)
    expect(seen.sort()).toEqual(['s1', 's2', 's3'])
    expect(await rejection(client.ops.searchArtifacts({ query: { q: '-kestrel' } }))).toMatchObject({
      status: 400,
      code: 'validation_failed',
    })
  })

  it('walks a list across pages with a small limit', async () => {
    const { client, username } = await signedInUser('lister')
    const slugs = ['a1', 'a2', 'a3', 'a4', 'a5']
    for (const slug of slugs) await client.ops.createArtifact(newArtifact(username, slug))

    const pages = []
    for await (const page of client.pages('listMyArtifacts', { query: { limit: 2 } })) pages.push(page)
    expect(pages.map((p) => p.items.length)).toEqual([2, 2, 1])
    expect(pages.at(-1)?.nextCursor).toBeNull()

    const seen: string[] = []
    for await (const artifact of client.paginate('listMyArtifacts', { query: { limit: 2 } })) seen.push(artifact.slug)
    expect(seen).toEqual([...slugs].reverse())

    const artifact = await client.ops.resolveArtifactPath({ params: { owner: username, projectSlug: 'notes', slug: 'a1' } })
    for (let i = 2; i <= 4; i++)
      await client.ops.appendVersion({ params: { artifactId: artifact.id }, body: { content: `v${i}\n`, expectedLatestVersion: i - 1 } })
    const numbers: number[] = []
    for await (const version of client.paginate('listVersions', { params: { artifactId: artifact.id }, query: { limit: 3 } }))
      numbers.push(version.versionNumber)
    expect(numbers).toEqual([4, 3, 2, 1])
  })

  it('replays a write retried with the same Idempotency-Key, and refuses the key for another request', async () => {
    const { client, username } = await signedInUser('retrier')
    const artifact = await client.ops.createArtifact(newArtifact(username, 'once'), { idempotencyKey: 'create-once-1' })
    const again = await client.send('createArtifact', newArtifact(username, 'once'), { idempotencyKey: 'create-once-1' })
    expect(again).toMatchObject({ status: 201, replayed: true, body: artifact })

    const input = { params: { artifactId: artifact.id }, body: { content: 'v2\n', expectedLatestVersion: 1 } }
    const first = await client.send('appendVersion', input, { idempotencyKey: 'append-1' })
    const retry = await client.send('appendVersion', input, { idempotencyKey: 'append-1' })
    expect([first.replayed, retry.replayed]).toEqual([false, true])
    expect(retry.body).toEqual(first.body)
    expect(await count(api, 'versions', { artifactId: artifact.id })).toBe(2)

    const reused = await rejection(
      client.ops.appendVersion(
        { params: { artifactId: artifact.id }, body: { content: 'other\n', expectedLatestVersion: 2 } },
        { idempotencyKey: 'append-1' },
      ),
    )
    expect(reused).toMatchObject({ status: 422, code: 'idempotency_key_reused' })
  })

  it('sends what the dry run shows, and answers If-None-Match with notModified', async () => {
    const { client, username } = await signedInUser('cacher')
    const artifact = await client.ops.createArtifact(newArtifact(username, 'pinned'))
    const shown = await client.dryRun('getContent', { params: { artifactId: artifact.id }, query: { version: 1 } })
    expect(shown).toMatchObject({ method: 'GET', url: `${baseUrl}/api/artifacts/${artifact.id}/content?version=1` })
    expect(shown.headers.authorization).toBe('Bearer [redacted]')

    const first = await client.send('getContent', { params: { artifactId: artifact.id }, query: { version: 1 } })
    if (first.notModified) throw new Error('a first read cannot be "not modified"')
    expect(first.etag).toBe(`"${first.body.sha256}"`)
    const again = await client.send(
      'getContent',
      { params: { artifactId: artifact.id }, query: { version: 1 } },
      { ifNoneMatch: first.etag ?? '' },
    )
    expect(again).toMatchObject({ status: 304, notModified: true, body: null })
  })

  it('reports a server that is not there as a network error', async () => {
    const port = await freePort()
    const client = createClient({ baseUrl: `http://127.0.0.1:${port}` })
    const error = await rejection(client.ops.health())
    expect(error).toBeInstanceOf(QuireNetworkError)
    expect(error).toMatchObject({ kind: 'network', status: null, operationId: 'health' })
  })
})
