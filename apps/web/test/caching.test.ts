/**
 * One caching rule for every answer that holds an artifact's content, on every surface (the API's
 * content reads; the web app's document, raw text, history, diff and patch; share links), and no
 * cache keeps a refusal. The bytes of a pinned version never change, but who may read them does:
 * after an access change, a deletion or a sign-out, no cache (a browser's or a CDN's) serves the
 * content for more than a minute without asking, and asking gets the refusal, never a 304.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestWeb, type TestWeb } from './helper.ts'
import { type HttpSession, signInOverHttp } from './http-session.ts'
import { type Author, author } from './mcp-helper.ts'

let web: TestWeb
let writer: Author
let session: HttpSession
const ownerEmail = 'caching.owner@example.com'

const publicPinned = 'public, max-age=60, must-revalidate'
const publicLatest = 'public, no-cache'
const forOneReader = 'private, no-cache'

beforeAll(async () => {
  web = await startTestWeb({ api: true })
  writer = await author(web, ownerEmail)
  session = await signInOverHttp(web, ownerEmail)
})
afterAll(async () => {
  await web?.close()
})

const api = (method: string, path: string, body?: unknown) => writer.api(method, path, body)

let n = 0
/** An artifact with two versions; its id, its page's path, and the API's content path. */
async function artifact(publicView: boolean) {
  const { id, path } = await writer.artifact(`doc-${++n}`, { publicView, content: '# One\n' })
  await api('POST', `/api/artifacts/${id}/versions`, { content: '# Two\n', expectedLatestVersion: 1 })
  return { id, path, content: `/api/artifacts/${id}/content` }
}

/** GET on the web app (as a browser: HTML first), anonymous or with the owner's session. */
function fromWeb(path: string, as: 'anonymous' | 'owner', headers: Record<string, string> = {}) {
  if (as === 'owner') return session.get(path, headers)
  return fetch(`${web.url}${path}`, { headers: { accept: 'text/html', ...headers }, redirect: 'manual' })
}

/** GET on the API, anonymous or with the owner's key. */
function fromApi(path: string, as: 'anonymous' | 'owner', headers: Record<string, string> = {}) {
  return fetch(`${web.apiUrl}${path}`, {
    headers: { ...(as === 'owner' ? { authorization: `Bearer ${writer.owner.token}` } : {}), ...headers },
  })
}

type Get = (path: string, headers?: Record<string, string>) => Promise<Response>

/** Every content URL of an artifact, pinned (both versions named) or following the latest, with how to get it. */
function contentUrls(a: Awaited<ReturnType<typeof artifact>>, as: 'anonymous' | 'owner', pinned: boolean): [string, Get][] {
  const w: Get = (path, headers) => fromWeb(path, as, headers)
  const r: Get = (path, headers) => fromApi(path, as, headers)
  return pinned
    ? [
        [`${a.content}?version=1`, r],
        [`${a.path}?version=1`, w],
        [`${a.path}/raw?version=1`, w],
        [`${a.path}/diff?from=1&to=2`, w],
        [`${a.path}/diff.patch?from=1&to=2`, w],
      ]
    : [
        [a.content, r],
        [a.path, w],
        [`${a.path}/raw`, w],
        [`${a.path}/history`, w],
        [`${a.path}/diff`, w],
        [`${a.path}/diff.patch`, w],
      ]
}

/** Reads each URL and checks its caching; the validators it got, for revalidating later. */
async function expectCaching(urls: [string, Get][], expected: (url: string) => { cacheControl: string; varies: boolean }) {
  const validators: [string, Get, string][] = []
  for (const [url, get] of urls) {
    const res = await get(url)
    await res.arrayBuffer()
    expect(res.status, url).toBe(200)
    const { cacheControl, varies } = expected(url)
    expect(res.headers.get('cache-control'), url).toBe(cacheControl)
    // Whether the answer depends on who asks (the credential header; the API's CORS adds Origin).
    const vary = (res.headers.get('vary') ?? '').split(/,\s*/)
    expect(vary.includes(credentialOf(url)), `${url}: Vary ${vary.join(', ')}`).toBe(varies)
    const etag = res.headers.get('etag')
    expect(etag, url).toBeTruthy()
    const again = await get(url, { 'if-none-match': etag as string })
    expect(again.status, `${url} revalidated`).toBe(304)
    validators.push([url, get, etag as string])
  }
  return validators
}

/** Each URL, revalidated with the validator it had, is refused (404) and the refusal is kept by no cache. */
async function expectRefused(validators: [string, Get, string][]) {
  for (const [url, get, etag] of validators) {
    const res = await get(url, { 'if-none-match': etag })
    await res.arrayBuffer()
    expect(res.status, url).toBe(404)
    expect(res.headers.get('cache-control'), url).toBe('no-store')
    expect(res.headers.get('etag'), url).toBeNull()
  }
}

const credentialOf = (url: string) => (url.startsWith('/api/') ? 'Authorization' : 'Cookie')

describe('one caching rule for every content answer, API and web alike', () => {
  it('a public pinned version: any cache a minute without asking, the same on every surface, then the refusal once private', async () => {
    const a = await artifact(true)
    const validators = await expectCaching(contentUrls(a, 'anonymous', true), () => ({ cacheControl: publicPinned, varies: false }))
    // Signed in, the pinned page is the same page (it names no one): the same rule.
    await expectCaching(contentUrls(a, 'owner', true), () => ({ cacheControl: publicPinned, varies: false }))
    await api('PATCH', `/api/artifacts/${a.id}/access`, { publicView: false })
    await expectRefused(validators)
  })

  it('the latest of a public artifact: revalidated each time; private once the page names the signed-in reader', async () => {
    const a = await artifact(true)
    const validators = await expectCaching(contentUrls(a, 'anonymous', false), () => ({ cacheControl: publicLatest, varies: true }))
    // The document, history and diff pages name the person and carry their sign-out token.
    const naming = new Set([a.path, `${a.path}/history`, `${a.path}/diff`])
    await expectCaching(contentUrls(a, 'owner', false), (url) => ({
      cacheControl: naming.has(url) ? forOneReader : publicLatest,
      varies: true,
    }))
    await api('DELETE', `/api/artifacts/${a.id}`)
    await expectRefused(validators)
  })

  it('a private artifact: for one reader, asked each time, pinned or not; after sign-out the same copy is refused', async () => {
    const a = await artifact(false)
    const urls = [...contentUrls(a, 'owner', true), ...contentUrls(a, 'owner', false)]
    const validators = await expectCaching(urls, () => ({ cacheControl: forOneReader, varies: true }))
    // A browser that signed out still holds the pages: revalidating them without the session is refused.
    const signedOut = validators
      .filter(([url]) => !url.startsWith('/api/'))
      .map(([url, , etag]): [string, Get, string] => [url, (path, headers) => fromWeb(path, 'anonymous', headers), etag])
    expect(signedOut.length).toBe(9)
    await expectRefused(signedOut)
  })

  it('a share link: nothing stores its page or its text, nor the refusal of a dead link', async () => {
    const a = await artifact(false)
    const link = await api('POST', `/api/artifacts/${a.id}/share-links`, { role: 'viewer' })
    const share = `/s/${encodeURIComponent(String(link.secret))}`
    for (const url of [share, `${share}?version=1`, `${share}/raw`, `${share}/raw?version=1`]) {
      const res = await fromWeb(url, 'anonymous')
      await res.arrayBuffer()
      expect(res.status, url).toBe(200)
      expect(res.headers.get('cache-control'), url).toBe('no-store')
      expect(res.headers.get('etag'), url).toBeNull()
    }
    await api('POST', `/api/share-links/${link.id}/revoke`)
    const dead = await fromWeb(share, 'anonymous')
    expect(dead.status).toBe(404)
    expect(dead.headers.get('cache-control')).toBe('no-store')
  })

  it('every other API answer is as of now: no cache keeps it (metadata, lists, diffs, catch-up, a secret shown once)', async () => {
    const a = await artifact(true)
    for (const path of [
      `/api/artifacts/${a.id}`,
      `/api/artifacts/${a.id}/versions`,
      `/api/artifacts/${a.id}/diff?from=1&to=2`,
      `/api/artifacts/${a.id}/changes?since=1`,
      '/api/profile/artifacts',
    ]) {
      const res = await fromApi(path, 'owner')
      await res.arrayBuffer()
      expect(res.status, path).toBe(200)
      expect(res.headers.get('cache-control'), path).toBe('no-store')
    }
    const created = await fetch(`${web.apiUrl}/api/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${writer.owner.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'shown once', scopes: ['artifacts:read'] }),
    })
    await created.arrayBuffer()
    expect(created.status).toBe(201)
    expect(created.headers.get('cache-control')).toBe('no-store')
  })

  it('no refusal is stored, on either app: a problem or a page, anonymous or signed in', async () => {
    const missing = `/${writer.owner.username}/notes/never-was`
    const answers = [
      await fromApi('/api/artifacts/art_00000000000000000000000000/content', 'owner'),
      await fromApi('/api/artifacts/art_00000000000000000000000000/content', 'anonymous'),
      await fetch(`${web.apiUrl}/api/profile/me`, { headers: { authorization: 'Bearer qk_not-a-key' } }),
      await fromApi('/api/no-such-route', 'anonymous'),
      await fromWeb(missing, 'anonymous'),
      await fromWeb(missing, 'owner'),
      await fetch(`${web.url}${missing}`, { headers: { accept: 'application/json' } }),
      await fromWeb(`${missing}?version=abc`, 'owner'),
    ]
    for (const res of answers) {
      await res.arrayBuffer()
      expect(res.status, res.url).toBeGreaterThanOrEqual(400)
      expect(res.headers.get('cache-control'), res.url).toBe('no-store')
    }
  })
})
