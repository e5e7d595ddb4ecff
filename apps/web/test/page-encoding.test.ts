/**
 * A page that is the same for every reader (a pinned version, the latest as an anonymous reader
 * sees it) is kept compressed: sent in the coding the request's Accept-Encoding prefers (brotli,
 * gzip, or none), each coding its own ETag, `Vary: Accept-Encoding`, the exact Content-Length, the
 * same security headers, and a 304 to its own validator. A page that names the signed-in person
 * or carries a secret (a share link) is never compressed.
 */
import { request } from 'node:http'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestWeb, type TestWeb } from './helper.ts'
import { type HttpSession, signInOverHttp } from './http-session.ts'
import { type Author, author } from './mcp-helper.ts'

let web: TestWeb
let writer: Author
let session: HttpSession
const ownerEmail = 'encoding.owner@example.com'

/** A document with highlighted code, long enough that every coding is much smaller than the page. */
const content = [
  '# Encoded',
  '',
  ...Array.from({ length: 40 }, (_, i) => `Paragraph ${i} with a [link](https://example.com/${i}) and \`code\`.`),
  '',
  '```ts',
  ...Array.from({ length: 40 }, (_, i) => `export const value${i}: number = ${i} * 2 // line ${i}`),
  '```',
  '',
].join('\n')

beforeAll(async () => {
  web = await startTestWeb({ api: true })
  writer = await author(web, ownerEmail)
  session = await signInOverHttp(web, ownerEmail)
})
afterAll(async () => {
  await web?.close()
})

/** One answer as it came over the wire: status, headers, and the body's bytes undecoded. */
interface RawAnswer {
  readonly status: number
  readonly headers: Record<string, string | string[] | undefined>
  readonly bytes: Buffer
}

/** GET (or HEAD) of `path` on the web app with exactly `headers`, nothing decoded. */
function raw(path: string, headers: Record<string, string>, method = 'GET'): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(`${web.url}${path}`, { method, headers: { accept: 'text/html', ...headers } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}

/** The page's text, decoded by the answer's Content-Encoding. */
function decoded(answer: RawAnswer): string {
  const coding = answer.headers['content-encoding']
  if (coding === 'br') return brotliDecompressSync(answer.bytes).toString('utf8')
  if (coding === 'gzip') return gunzipSync(answer.bytes).toString('utf8')
  expect(coding).toBeUndefined()
  return answer.bytes.toString('utf8')
}

const varyOf = (answer: RawAnswer) => String(answer.headers.vary ?? '').split(/,\s*/)

/** What each Accept-Encoding gets: the coding of highest weight, brotli first at equal weight. */
const negotiations: [string | null, 'br' | 'gzip' | null][] = [
  ['gzip, deflate, br', 'br'],
  ['gzip, deflate, br, zstd', 'br'],
  ['gzip', 'gzip'],
  ['x-gzip', 'gzip'],
  ['gzip;q=1, br;q=0.5', 'gzip'],
  ['br;q=0, gzip;q=0.2', 'gzip'],
  ['*', 'br'],
  ['*;q=0.5, br;q=0', 'gzip'],
  ['deflate', null],
  ['identity', null],
  ['br;q=0, gzip;q=0', null],
  [null, null],
]

describe('a page the same for every reader is sent compressed, once compressed', () => {
  it('a pinned version: the coding the request prefers, its own ETag, Vary, Content-Length, security headers, and a 304', async () => {
    const { id, path } = await writer.artifact('encoded', { publicView: true, content })
    const versions = (await writer.api('GET', `/api/artifacts/${id}/versions`)) as { items: { sha256: string }[] }
    const sha256 = versions.items[0]?.sha256
    const url = `${path}?version=1`
    const plain = await raw(url, {})
    expect(plain.status).toBe(200)
    const page = decoded(plain)
    expect(page).toContain('<span class="hljs-keyword">export</span>')
    const etags = new Set<string>()
    for (const [accept, coding] of negotiations) {
      const headers: Record<string, string> = accept === null ? {} : { 'accept-encoding': accept }
      const res = await raw(url, headers)
      expect(res.status, String(accept)).toBe(200)
      expect(res.headers['content-encoding'], String(accept)).toBe(coding ?? undefined)
      expect(res.headers['content-length'], String(accept)).toBe(String(res.bytes.length))
      expect(decoded(res), String(accept)).toBe(page)
      if (coding !== null) expect(res.bytes.length, String(accept)).toBeLessThan(page.length / 3)
      expect(res.headers.etag, String(accept)).toBe(coding === null ? `"${sha256}"` : `"${sha256}-${coding}"`)
      etags.add(String(res.headers.etag))
      expect(varyOf(res), String(accept)).toEqual(['Accept-Encoding'])
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
      expect(res.headers['cache-control']).toBe('public, max-age=60, must-revalidate')
      expect(res.headers['content-security-policy']).toContain("img-src 'self' data: https:")
      expect(res.headers['content-security-policy']).toContain("script-src 'none'")
      expect(res.headers['x-content-type-options']).toBe('nosniff')
      expect(res.headers['x-frame-options']).toBe('DENY')
      expect(res.headers['referrer-policy']).toBe('same-origin')

      // Its own validator: a 304 without a body, with the same ETag and Vary.
      const again = await raw(url, { ...headers, 'if-none-match': String(res.headers.etag) })
      expect(again.status, String(accept)).toBe(304)
      expect(again.bytes.length).toBe(0)
      expect(again.headers.etag).toBe(res.headers.etag)
      expect(varyOf(again)).toEqual(['Accept-Encoding'])
      expect(again.headers['cache-control']).toBe('public, max-age=60, must-revalidate')
      expect(again.headers['x-content-type-options']).toBe('nosniff')
    }
    expect([...etags].sort()).toEqual([`"${sha256}"`, `"${sha256}-br"`, `"${sha256}-gzip"`].sort())

    // Another coding's validator is another representation: the page, in the coding asked for.
    const other = await raw(url, { 'accept-encoding': 'gzip', 'if-none-match': `"${sha256}-br"` })
    expect(other.status).toBe(200)
    expect(other.headers['content-encoding']).toBe('gzip')
    expect(decoded(other)).toBe(page)

    // HEAD: the same headers, no body.
    const head = await raw(url, { 'accept-encoding': 'br' }, 'HEAD')
    expect(head.status).toBe(200)
    expect(head.headers['content-encoding']).toBe('br')
    expect(head.headers.etag).toBe(`"${sha256}-br"`)
    expect(head.bytes.length).toBe(0)
  })

  it('the latest version as an anonymous reader sees it: compressed, weak ETag per coding, Vary on the cookie and the coding', async () => {
    const { id, path } = await writer.artifact('latest-encoded', { publicView: true, content })
    await writer.api('POST', `/api/artifacts/${id}/versions`, { content: `${content}\nMore.\n`, expectedLatestVersion: 1 })
    const plain = await raw(path, {})
    const br = await raw(path, { 'accept-encoding': 'br' })
    expect(br.status).toBe(200)
    expect(br.headers['content-encoding']).toBe('br')
    expect(decoded(br)).toBe(decoded(plain))
    expect(decoded(br)).toContain('More.')
    expect(String(plain.headers.etag)).toMatch(/^W\/"[A-Za-z0-9_-]{27}"$/)
    expect(br.headers.etag).toBe(`${String(plain.headers.etag).slice(0, -1)}-br"`)
    expect(varyOf(br)).toEqual(['Cookie', 'Accept-Encoding'])
    expect(br.headers['cache-control']).toBe('public, no-cache')
    expect((await raw(path, { 'accept-encoding': 'br', 'if-none-match': String(br.headers.etag) })).status).toBe(304)
    // A new version: the kept page is another one, and the old validator no longer matches.
    await writer.api('POST', `/api/artifacts/${id}/versions`, { content: `${content}\nEven more.\n`, expectedLatestVersion: 2 })
    const changed = await raw(path, { 'accept-encoding': 'br', 'if-none-match': String(br.headers.etag) })
    expect(changed.status).toBe(200)
    expect(decoded(changed)).toContain('Even more.')
  })

  it('a page that names the signed-in person, or a share link, is never compressed', async () => {
    const { id, path } = await writer.artifact('personal', { publicView: false, content })
    // The latest, signed in: the header names the owner and carries the sign-out form's token.
    const mine = await session.get(path, { 'accept-encoding': 'gzip, deflate, br' })
    expect(mine.status).toBe(200)
    expect(mine.headers.get('content-encoding')).toBeNull()
    expect(mine.headers.get('vary')?.split(/,\s*/)).not.toContain('Accept-Encoding')
    expect(await mine.text()).toContain('Sign out')
    // The pinned version of the same private artifact names no one: compressed, for its readers only.
    const pinned = await session.get(`${path}?version=1`, { 'accept-encoding': 'gzip, deflate, br' })
    expect(pinned.status).toBe(200)
    expect(pinned.headers.get('content-encoding')).toBe('br')
    expect(pinned.headers.get('cache-control')).toBe('private, no-cache')
    expect(pinned.headers.get('vary')?.split(/,\s*/)).toEqual(['Cookie', 'Accept-Encoding'])
    await pinned.arrayBuffer()
    // Anonymous, the private page is not found, compressed or not.
    expect((await raw(`${path}?version=1`, { 'accept-encoding': 'br' })).status).toBe(404)

    const link = await writer.api('POST', `/api/artifacts/${id}/share-links`, { role: 'viewer' })
    const shared = await raw(`/s/${encodeURIComponent(String(link.secret))}?version=1`, { 'accept-encoding': 'gzip, deflate, br' })
    expect(shared.status).toBe(200)
    expect(shared.headers['content-encoding']).toBeUndefined()
    expect(shared.headers['cache-control']).toBe('no-store')
    expect(decoded(shared)).toContain('Paragraph 39')
  })
})
