/**
 * The artifact's URL opens the document: `/:owner/:project/:slug` renders the latest version,
 * `?version=N` a pinned one (a strong ETag, 304 on revalidation), `…/raw` the content
 * as plain text. A private artifact is "not found" to anyone it is not shared with, its title
 * included; only a public one carries preview tags.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestWeb, type TestWeb } from './helper.ts'
import { restCall, userWithKey } from './mcp-helper.ts'

let web: TestWeb
let owner: Awaited<ReturnType<typeof userWithKey>>

beforeAll(async () => {
  web = await startTestWeb({ api: true })
  owner = await userWithKey(web, 'pages.owner@example.com')
  await api('POST', '/api/projects', { ownerUsername: owner.username, slug: 'notes', title: 'Notes', icon: 'N' })
})
afterAll(async () => {
  await web?.close()
})

/** A REST call as the owner. */
const api = (method: string, path: string, body?: unknown) => restCall(web, owner.token, method, path, body)

async function artifact(slug: string, options: { publicView: boolean; content: string; title?: string; type?: string }) {
  const created = await api('POST', '/api/artifacts', {
    ownerUsername: owner.username,
    projectSlug: 'notes',
    slug,
    type: options.type ?? 'md',
    title: options.title ?? `Title of ${slug}`,
    content: options.content,
    changelog: 'first',
    access: { publicView: options.publicView, publicEdit: false },
  })
  return { id: created.id as string, path: `/${owner.username}/notes/${slug}` }
}

const page = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${web.url}${path}`, { headers: { accept: 'text/html', ...headers } })

describe('the artifact page', () => {
  it('renders the latest version of a public artifact, revalidated every time, with preview tags', async () => {
    const { id, path } = await artifact('hello', { publicView: true, content: '# Hello\n\nA *first* paragraph.\n' })
    await api('POST', `/api/artifacts/${id}/versions`, { content: '# Hello\n\nThe second version.\n', expectedLatestVersion: 1 })
    const res = await page(path)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(res.headers.get('cache-control')).toBe('public, no-cache')
    const body = await res.text()
    expect(body).toContain('<title>Title of hello · Quire</title>')
    expect(body).toContain('The second version.')
    expect(body).toContain('Version 2 of 2')
    expect(body).not.toContain('not the latest')
    expect(body).toContain(`<link rel="canonical" href="${web.url}${path}">`)
    expect(body).toContain('<meta property="og:title" content="Title of hello">')
    expect(body).toContain('<meta name="description" content="The second version.')

    // Revalidation: the same ETag is a 304 with no body.
    const again = await page(path, { 'if-none-match': res.headers.get('etag') ?? '' })
    expect(again.status).toBe(304)
    expect(await again.text()).toBe('')
  })

  it('pins a version with ?version=N: a notice, a strong ETag of the content hash, cached a minute (access may change)', async () => {
    const { id, path } = await artifact('pinned', { publicView: true, content: 'one\n', type: 'txt' })
    await api('POST', `/api/artifacts/${id}/versions`, { content: 'two\n', expectedLatestVersion: 1 })
    const versions = (await api('GET', `/api/artifacts/${id}/versions`)) as { items: { versionNumber: number; sha256: string }[] }
    const first = versions.items.find((v) => v.versionNumber === 1)
    // The plain page's ETag is the content hash; each compressed coding of it has its own (page-encoding.test.ts).
    const res = await page(`${path}?version=1`, { 'accept-encoding': 'identity' })
    expect(res.status).toBe(200)
    expect(res.headers.get('etag')).toBe(`"${first?.sha256}"`)
    expect(res.headers.get('cache-control')).toBe('public, max-age=60, must-revalidate')
    expect((await page(`${path}?version=1`, { 'accept-encoding': 'gzip' })).headers.get('etag')).toBe(`"${first?.sha256}-gzip"`)
    const body = await res.text()
    expect(body).toContain('You are reading version 1, not the latest.')
    expect(body).toContain(`href="${path}"`)
    expect(body).toContain('one')
    expect((await page(`${path}?version=1`, { 'accept-encoding': 'identity', 'if-none-match': `"${first?.sha256}"` })).status).toBe(304)
    // A version that does not exist, or is not a number.
    expect((await page(`${path}?version=9`)).status).toBe(404)
    const bad = await page(`${path}?version=first`)
    expect(bad.status).toBe(400)
    expect(await bad.text()).toContain('must be a version number')
  })

  it('serves a pinned page from memory only to whoever may read it now: made private, it is a 404; a new version shows at once', async () => {
    const { id, path } = await artifact('kept-whole', { publicView: true, content: '# Kept\n\nFirst.\n' })
    const first = await page(`${path}?version=1`)
    expect(first.status).toBe(200)
    const body = await first.text()
    expect(body).toContain('Version 1 of 1')
    expect(await (await page(`${path}?version=1`)).text()).toBe(body)
    await api('POST', `/api/artifacts/${id}/versions`, { content: '# Kept\n\nSecond.\n', expectedLatestVersion: 1 })
    expect(await (await page(`${path}?version=1`)).text()).toContain('Version 1 of 2')
    await api('PATCH', `/api/artifacts/${id}/access`, { publicView: false })
    const hidden = await page(`${path}?version=1`)
    expect(hidden.status).toBe(404)
    expect(await hidden.text()).not.toContain('First.')
  })

  it('serves …/raw as plain text that nothing can run, with the content hash as ETag', async () => {
    const content = '<script>alert(1)</script>\n'
    const { path } = await artifact('raw', { publicView: true, content, type: 'html' })
    const res = await fetch(`${web.url}${path}/raw`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    expect(res.headers.get('content-security-policy')).toContain('sandbox')
    expect(res.headers.get('etag')).toMatch(/^"[0-9a-f]{64}"$/)
    expect(await res.text()).toBe(content)
    const pinned = await fetch(`${web.url}${path}/raw?version=1`)
    expect(pinned.headers.get('cache-control')).toBe('public, max-age=60, must-revalidate')
  })

  it('answers a private artifact with the same 404 as a missing one for an anonymous reader, nothing of it in the page', async () => {
    const { path } = await artifact('secret', { publicView: false, content: 'Private words\n', title: 'Secret plans' })
    for (const target of [path, `${path}?version=1`, `${path}/raw`]) {
      const res = await page(target)
      expect(res.status, target).toBe(404)
      const body = await res.text()
      expect(body).not.toContain('Secret plans')
      expect(body).not.toContain('Private words')
    }
    const missing = await page(`/${owner.username}/notes/no-such-thing`)
    expect(missing.status).toBe(404)
    expect(await missing.text()).toContain('sign in with an account it is shared with')
    // A script gets the same as a problem.
    const problem = await fetch(`${web.url}${path}`, { headers: { accept: 'application/json' } })
    expect(problem.status).toBe(404)
    expect(await problem.json()).toMatchObject({ code: 'not_found' })
  })
})
