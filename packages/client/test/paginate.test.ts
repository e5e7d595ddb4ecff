import { operationIds, operations } from '@quire/core/contract'
import { describe, expect, it } from 'vitest'
import { createClient, isPaginated } from '../src/index.ts'
import { jsonAnswer, recordingFetch } from './recording-fetch.ts'

const baseUrl = 'https://api.quire.test'

/** A list of `total` numbered items served `limit` at a time, the cursor being the next index. */
function numberedList(total: number) {
  return recordingFetch((request) => {
    const url = new URL(request.url)
    const start = Number(url.searchParams.get('cursor') ?? '0')
    const limit = Number(url.searchParams.get('limit') ?? '50')
    const items = Array.from({ length: Math.max(0, Math.min(limit, total - start)) }, (_, i) => ({ n: start + i }))
    const next = start + limit < total ? String(start + limit) : null
    return jsonAnswer({ items, nextCursor: next })
  })
}

describe('paginate', () => {
  it('yields every item across pages, passing nextCursor as cursor', async () => {
    const { fetch, received } = numberedList(5)
    const client = createClient({ baseUrl, fetch })
    const items = []
    for await (const item of client.paginate('listMyArtifacts', { query: { limit: 2 } })) items.push(item)
    expect(items).toEqual([0, 1, 2, 3, 4].map((n) => ({ n })))
    expect(received.map((r) => new URL(r.url).search)).toEqual(['?limit=2', '?limit=2&cursor=2', '?limit=2&cursor=4'])
  })

  it('keeps path parameters and other query fields on every page, and starts from a given cursor', async () => {
    const { fetch, received } = numberedList(6)
    const client = createClient({ baseUrl, fetch })
    const pages = []
    for await (const page of client.pages('listAuditEvents', { query: { artifactId: 'art_1', limit: 2, cursor: '2' } })) pages.push(page)
    expect(pages.map((p) => p.nextCursor)).toEqual(['4', null])
    expect(received.map((r) => r.url)).toEqual([
      `${baseUrl}/api/audit-events?artifactId=art_1&limit=2&cursor=2`,
      `${baseUrl}/api/audit-events?artifactId=art_1&limit=2&cursor=4`,
    ])
    const versions = recordingFetch(() => jsonAnswer({ items: [], nextCursor: null }))
    await createClient({ baseUrl, fetch: versions.fetch })
      .paginate('listVersions', { params: { artifactId: 'a b' } })
      .next()
    expect(versions.received[0]?.url).toBe(`${baseUrl}/api/artifacts/a%20b/versions`)
  })

  it("pages one project's artifacts at its path, owner and project slug encoded", async () => {
    const { fetch, received } = numberedList(3)
    const client = createClient({ baseUrl, fetch })
    const items = []
    for await (const item of client.paginate('listProjectArtifacts', {
      params: { owner: 'ana', projectSlug: 'my notes' },
      query: { limit: 2 },
    }))
      items.push(item)
    expect(items).toEqual([0, 1, 2].map((n) => ({ n })))
    expect(received.map((r) => r.url)).toEqual([
      `${baseUrl}/api/projects/ana/my%20notes/artifacts?limit=2`,
      `${baseUrl}/api/projects/ana/my%20notes/artifacts?limit=2&cursor=2`,
    ])
  })

  it('fetches the next page only when the consumer asks for more', async () => {
    const { fetch, received } = numberedList(100)
    const client = createClient({ baseUrl, fetch })
    for await (const item of client.paginate('listWorkspaces', { query: { limit: 10 } })) {
      if ((item as unknown as { n: number }).n === 3) break
    }
    expect(received).toHaveLength(1)
  })

  it('stops with an error when the server hands back the same cursor', async () => {
    const { fetch } = recordingFetch(() => jsonAnswer({ items: [{ n: 1 }], nextCursor: 'same' }))
    const walk = async () => {
      for await (const _ of createClient({ baseUrl, fetch }).paginate('listApiKeys')) {
        // drain
      }
    }
    await expect(walk()).rejects.toMatchObject({ kind: 'invalid_response', operationId: 'listApiKeys' })
  })

  it('walks exactly the operations whose query takes a cursor and whose answer is a page', async () => {
    for (const id of operationIds) {
      const schema = operations[id].success.schema as { properties?: Record<string, unknown> }
      const isPage = schema.properties?.items !== undefined && schema.properties.nextCursor !== undefined
      expect(isPaginated(id), id).toBe(isPage)
    }
    const client = createClient({ baseUrl, fetch: recordingFetch(() => jsonAnswer({})).fetch })
    // @ts-expect-error getArtifact is not a list
    await expect(client.paginate('getArtifact', { params: { artifactId: 'art_1' } }).next()).rejects.toThrow(/not a paginated list/)
  })
})
