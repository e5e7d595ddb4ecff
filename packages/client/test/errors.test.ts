import { describe, expect, it } from 'vitest'
import { createClient, isQuireApiError, QuireApiError, QuireError, QuireNetworkError } from '../src/index.ts'
import { jsonAnswer, problemAnswer, recordingFetch } from './recording-fetch.ts'

const baseUrl = 'https://api.quire.test'
const append = { params: { artifactId: 'art_1' }, body: { content: 'mine\n', expectedLatestVersion: 1 } }

/** A server that never answers: the request ends only when its signal aborts. */
function hanging(_url: string, init: RequestInit): Promise<Response> {
  return new Promise<Response>((_, reject) => init.signal?.addEventListener('abort', () => reject(init.signal?.reason)))
}

function clientAnswering(answer: () => Response | Promise<Response>) {
  return createClient({ baseUrl, token: 'qk_secret', fetch: recordingFetch(answer).fetch })
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail('the call succeeded'),
    (error: unknown) => error,
  )
}

describe('problem answers become QuireApiError', () => {
  it('carries status, code, title, detail, request id and the whole problem', async () => {
    const client = clientAnswering(() =>
      problemAnswer(409, 'version_conflict', { requestId: 'req-7', latestVersion: 3, expectedLatestVersion: 1, diff: '--- v1\n+++ v3\n' }),
    )
    const error = await failure(client.ops.appendVersion(append))
    expect(error).toBeInstanceOf(QuireApiError)
    expect(error).toBeInstanceOf(QuireError)
    if (!isQuireApiError(error, 'version_conflict')) throw new Error('not a version conflict')
    expect(error).toMatchObject({
      name: 'QuireApiError',
      operationId: 'appendVersion',
      status: 409,
      code: 'version_conflict',
      title: 'A title',
      detail: 'Detail of version_conflict.',
      requestId: 'req-7',
      wwwAuthenticate: null,
      retryAfter: null,
    })
    // Typed extension members of the conflict.
    const latest: number = error.problem.latestVersion
    expect([latest, error.problem.expectedLatestVersion, error.problem.diff]).toEqual([3, 1, '--- v1\n+++ v3\n'])
    expect(error.message).toBe('Detail of version_conflict. (version_conflict, HTTP 409)')
  })

  it('keeps the WWW-Authenticate challenge, and takes the request id from the header when the body has none', async () => {
    const challenge = 'Bearer realm="quire", resource_metadata="https://api.quire.test/.well-known/oauth-protected-resource"'
    const client = clientAnswering(() =>
      problemAnswer(401, 'unauthenticated', {}, { 'www-authenticate': challenge, 'x-request-id': 'req-9' }),
    )
    const error = await failure(client.ops.getProfile())
    expect(error).toMatchObject({ code: 'unauthenticated', status: 401, wwwAuthenticate: challenge, requestId: 'req-9' })
    expect(isQuireApiError(error, 'not_found')).toBe(false)
    expect(isQuireApiError(error)).toBe(true)
  })

  it('reads Retry-After as seconds', async () => {
    const client = clientAnswering(() => problemAnswer(429, 'rate_limited', { retryAfter: 12 }, { 'retry-after': '12' }))
    const error = await failure(client.ops.health())
    expect(error).toMatchObject({ code: 'rate_limited', retryAfter: 12, problem: { retryAfter: 12 } })
  })

  it('fills title and detail from the code table when a problem leaves them out', async () => {
    const client = clientAnswering(() => jsonAnswer({ code: 'not_found' }, { status: 404 }))
    const error = await failure(client.ops.getArtifact({ params: { artifactId: 'art_x' } }))
    expect(error).toMatchObject({
      code: 'not_found',
      title: 'Not found',
      detail: 'Not found',
      problem: { type: 'urn:quire:problem:not_found' },
    })
  })
})

describe('answers that are not Quire answers become QuireNetworkError', () => {
  it('a proxy page that is not JSON', async () => {
    const client = clientAnswering(
      () => new Response('<html>Bad gateway</html>', { status: 502, headers: { 'content-type': 'text/html' } }),
    )
    const error = await failure(client.ops.health())
    expect(error).toBeInstanceOf(QuireNetworkError)
    expect(error).toMatchObject({ kind: 'invalid_response', status: 502, operationId: 'health' })
    expect(String((error as Error).message)).toContain('`text/html`, not JSON')
  })

  it('JSON that does not parse, a success body included', async () => {
    const client = clientAnswering(() => new Response('{"items": [', { status: 200, headers: { 'content-type': 'application/json' } }))
    const error = await failure(client.ops.listMyArtifacts())
    expect(error).toMatchObject({ kind: 'invalid_response', status: 200 })
    expect((error as Error).cause).toBeInstanceOf(SyntaxError)
  })

  it('an error whose code is not in the closed list', async () => {
    const client = clientAnswering(() => jsonAnswer({ code: 'teapot', detail: 'short and stout' }, { status: 418 }))
    expect(await failure(client.ops.health())).toMatchObject({ kind: 'invalid_response', status: 418 })
  })

  it('no answer at all, with the cause kept', async () => {
    const refused = new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:9') })
    const client = createClient({
      baseUrl,
      fetch: async () => {
        throw refused
      },
    })
    const error = await failure(client.ops.health())
    expect(error).toMatchObject({ kind: 'network', status: null, cause: refused })
    expect((error as Error).message).toBe(`GET ${baseUrl}/health failed: fetch failed: connect ECONNREFUSED 127.0.0.1:9`)
  })

  it('no answer in time', async () => {
    const client = createClient({ baseUrl, fetch: hanging, timeoutMs: 20 })
    expect(await failure(client.ops.health())).toMatchObject({
      kind: 'timeout',
      message: `GET ${baseUrl}/health got no answer within 20 ms.`,
    })
    // A call's own limit wins over the client's.
    const patient = createClient({ baseUrl, fetch: hanging, timeoutMs: 60_000 })
    expect(await failure(patient.ops.health(undefined, { timeoutMs: 10 }))).toMatchObject({ kind: 'timeout' })
  })

  it("the caller's own abort rejects with its reason, not as a network failure", async () => {
    const client = createClient({ baseUrl, fetch: hanging, timeoutMs: 60_000 })
    const controller = new AbortController()
    const pending = failure(client.ops.health(undefined, { signal: controller.signal }))
    controller.abort(new Error('user pressed Ctrl-C'))
    const error = await pending
    expect(error).not.toBeInstanceOf(QuireError)
    expect(error).toMatchObject({ message: 'user pressed Ctrl-C' })
  })
})

describe('send', () => {
  it('reports replays, ETags and 304 answers', async () => {
    const answers = [
      jsonAnswer({ versionNumber: 2 }, { status: 201, headers: { 'idempotent-replayed': 'true', 'x-request-id': 'req-1' } }),
      jsonAnswer({ content: 'x' }, { headers: { etag: '"abc"' } }),
      new Response(null, { status: 304, headers: { etag: '"abc"' } }),
    ]
    const { fetch, received } = recordingFetch((_, i) => answers[i] as Response)
    const client = createClient({ baseUrl, fetch })
    const replay = await client.send('appendVersion', append, { idempotencyKey: 'k1' })
    expect(replay).toMatchObject({ status: 201, notModified: false, replayed: true, requestId: 'req-1', body: { versionNumber: 2 } })
    const first = await client.send('getContent', { params: { artifactId: 'art_1' }, query: { version: 1 } })
    expect(first).toMatchObject({ notModified: false, etag: '"abc"', body: { content: 'x' } })
    const again = await client.send('getContent', { params: { artifactId: 'art_1' }, query: { version: 1 } }, { ifNoneMatch: '"abc"' })
    expect(again).toMatchObject({ status: 304, notModified: true, body: null })
    expect(received[2]?.headers['if-none-match']).toBe('"abc"')
  })
})
