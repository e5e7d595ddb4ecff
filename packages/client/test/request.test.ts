import { type OperationSpec, operationIds, operations } from '@quire/core/contract'
import { describe, expect, it } from 'vitest'
import { buildRequest, createClient, REDACTED, redactRequest } from '../src/index.ts'
import { jsonAnswer, recordingFetch } from './recording-fetch.ts'

const baseUrl = 'https://api.quire.test'

describe('buildRequest', () => {
  it('substitutes path parameters URL-encoded', () => {
    const request = buildRequest('resolveArtifactPath', { params: { owner: 'ana', projectSlug: 'a b/c?d#e', slug: 'x%y' } }, { baseUrl })
    expect(request).toEqual({
      operationId: 'resolveArtifactPath',
      method: 'GET',
      url: `${baseUrl}/api/by-path/ana/a%20b%2Fc%3Fd%23e/x%25y`,
      headers: { accept: 'application/json, application/problem+json' },
    })
  })

  it('refuses dot segments and missing parameters rather than reach another route', () => {
    expect(() => buildRequest('getArtifact', { params: { artifactId: '..' } }, { baseUrl })).toThrow(/may not be "\.\."/)
    expect(() => buildRequest('getArtifact', { params: { artifactId: '.' } }, { baseUrl })).toThrow(TypeError)
    expect(() => buildRequest('getArtifact', { params: {} } as never, { baseUrl })).toThrow(/Missing path parameter "artifactId"/)
  })

  it('serialises the query, leaving out absent values', () => {
    const diff = buildRequest('diffVersions', { params: { artifactId: 'art_1' }, query: { from: 1, to: 3 } }, { baseUrl })
    expect(diff.url).toBe(`${baseUrl}/api/artifacts/art_1/diff?from=1&to=3`)
    const audit = buildRequest('listAuditEvents', { query: { artifactId: 'art 1', limit: 5, cursor: undefined } }, { baseUrl })
    expect(audit.url).toBe(`${baseUrl}/api/audit-events?artifactId=art+1&limit=5`)
    expect(buildRequest('listMyArtifacts', { query: {} }, { baseUrl }).url).toBe(`${baseUrl}/api/profile/artifacts`)
  })

  it('asks for a dry run in the query, and for catch-up with since', () => {
    const dry = buildRequest(
      'appendVersion',
      { params: { artifactId: 'art_1' }, query: { dryRun: true }, body: { content: 'x', expectedLatestVersion: 1 } },
      { baseUrl },
    )
    expect(dry.url).toBe(`${baseUrl}/api/artifacts/art_1/versions?dryRun=true`)
    expect(dry.method).toBe('POST')
    const body = {
      ownerUsername: 'ana',
      projectSlug: 'notes',
      slug: 'plan',
      type: 'md',
      title: 'Plan',
      content: 'x',
      changelog: '',
    } as const
    const create = buildRequest(
      'createArtifact',
      { query: { dryRun: true }, body: { ...body, access: { publicView: false, publicEdit: false } } },
      { baseUrl },
    )
    expect(create.url).toBe(`${baseUrl}/api/artifacts?dryRun=true`)
    expect(JSON.parse(create.body ?? '')).toMatchObject({ slug: 'plan' })
    const changes = buildRequest('getArtifactChanges', { params: { artifactId: 'art_1' }, query: { since: 3, limit: 10 } }, { baseUrl })
    expect(changes.url).toBe(`${baseUrl}/api/artifacts/art_1/changes?since=3&limit=10`)
  })

  it('sends the body as JSON, and no body (nor content type) where there is none', () => {
    const append = buildRequest(
      'appendVersion',
      { params: { artifactId: 'art_1' }, body: { content: '# Hi\n', expectedLatestVersion: 2 } },
      { baseUrl, token: 'qk_secret' },
    )
    expect(append.method).toBe('POST')
    expect(append.body).toBe('{"content":"# Hi\\n","expectedLatestVersion":2}')
    expect(append.headers).toMatchObject({ 'content-type': 'application/json', authorization: 'Bearer qk_secret' })

    const restore = buildRequest('restoreVersion', { params: { artifactId: 'art_1', versionNumber: 1 } }, { baseUrl })
    expect(restore.body).toBeUndefined()
    expect(restore.headers['content-type']).toBeUndefined()
    const revoke = buildRequest('revokeShareLink', { params: { shareLinkId: 'shl_1' } }, { baseUrl })
    expect([revoke.method, revoke.body, revoke.headers['content-type']]).toEqual(['POST', undefined, undefined])
  })

  it('fills every path of the operation table with its method', () => {
    for (const id of operationIds) {
      const op: OperationSpec = operations[id]
      const params = Object.fromEntries(Object.keys(op.params?.properties ?? {}).map((name) => [name, `v-${name}`]))
      const request = buildRequest(id, { params } as never, { baseUrl })
      expect(request.method, id).toBe(op.method)
      expect(new URL(request.url).pathname, id).toBe(op.path.replace(/:(\w+)/g, 'v-$1'))
    }
  })

  it('takes an Idempotency-Key only for operations that accept one', () => {
    for (const id of operationIds) {
      const op: OperationSpec = operations[id]
      const params = Object.fromEntries(Object.keys(op.params?.properties ?? {}).map((name) => [name, '1']))
      const build = () => buildRequest(id, { params } as never, { baseUrl, idempotencyKey: 'key-1' })
      if (op.idempotencyKey) expect(build().headers['idempotency-key']).toBe('key-1')
      else expect(build, id).toThrow(/does not take an Idempotency-Key/)
    }
  })

  it('keeps a base path prefix and ignores trailing slashes', () => {
    expect(buildRequest('health', undefined, { baseUrl: 'https://example.test/quire/' }).url).toBe('https://example.test/quire/health')
  })

  it('refuses an operation id that is not in the table', () => {
    expect(() => buildRequest('toString' as never, undefined, { baseUrl })).toThrow(/Unknown operation "toString"/)
  })

  it('redacts the credential, keeping the scheme', () => {
    const request = buildRequest('getProfile', undefined, { baseUrl, token: 'qk_secret' })
    const shown = redactRequest(request)
    expect(shown.headers.authorization).toBe(`Bearer ${REDACTED}`)
    expect(JSON.stringify(shown)).not.toContain('qk_secret')
    expect(request.headers.authorization).toBe('Bearer qk_secret')
  })
})

describe('the client sends what the dry run shows', () => {
  it('sends exactly the dry-run request, with the real credential', async () => {
    const { fetch, received } = recordingFetch(() => jsonAnswer({ versionNumber: 3 }, { status: 201 }))
    const client = createClient({ baseUrl, token: 'qk_secret', fetch, userAgent: 'test-agent/1', clientName: 'cli/0.1.0' })
    const input = { params: { artifactId: 'art_1' }, body: { content: 'x', expectedLatestVersion: 2 } }
    const options = { idempotencyKey: 'retry-1', headers: { 'X-Trace': 't1' } }

    const shown = await client.dryRun('appendVersion', input, options)
    expect(received).toHaveLength(0)
    await client.call('appendVersion', input, options)

    const sent = received[0]
    expect(sent).toBeDefined()
    expect({ method: sent?.method, url: sent?.url, headers: sent?.headers, body: sent?.body }).toEqual({
      method: shown.method,
      url: shown.url,
      headers: { ...shown.headers, authorization: 'Bearer qk_secret' },
      body: shown.body,
    })
    expect(shown.headers).toMatchObject({
      authorization: `Bearer ${REDACTED}`,
      'user-agent': 'test-agent/1',
      'quire-client': 'cli/0.1.0',
      'idempotency-key': 'retry-1',
      'x-trace': 't1',
    })
  })

  it('asks a token function for the credential on every request, and sends none when it has none', async () => {
    const { fetch, received } = recordingFetch(() => jsonAnswer({ status: 'ok' }))
    const tokens = ['qat_one', null]
    const client = createClient({ baseUrl, fetch, token: async () => tokens.shift() })
    await client.ops.health()
    await client.ops.health()
    expect(received.map((r) => r.headers.authorization)).toEqual(['Bearer qat_one', undefined])
  })

  it('derives one method per row of the operation table', async () => {
    const { fetch, received } = recordingFetch(() => jsonAnswer({}))
    const client = createClient({ baseUrl, fetch })
    expect(Object.keys(client.ops).sort()).toEqual([...operationIds].sort())
    await client.ops.getArtifact({ params: { artifactId: 'art_1' } })
    await client.ops.getContent({ params: { artifactId: 'art_1' }, query: { version: 2 } })
    expect(received.map((r) => `${r.method} ${r.url}`)).toEqual([
      `GET ${baseUrl}/api/artifacts/art_1`,
      `GET ${baseUrl}/api/artifacts/art_1/content?version=2`,
    ])
  })

  it('lets per-call headers win over the client defaults, case-insensitively', async () => {
    const { fetch, received } = recordingFetch(() => jsonAnswer({}))
    const client = createClient({ baseUrl, fetch, headers: { 'Quire-Client': 'web/1' }, clientName: 'cli/1' })
    await client.ops.health(undefined, { headers: { 'QUIRE-CLIENT': 'mcp/1' } })
    expect(received[0]?.headers['quire-client']).toBe('mcp/1')
  })

  it('refuses a base URL that is not one', () => {
    expect(() => createClient({ baseUrl: 'not a url' })).toThrow(TypeError)
  })
})
