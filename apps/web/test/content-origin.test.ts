/**
 * The content origin over HTTP (its browser behaviour is rendered-documents.test.ts): the settings
 * that name it, the capabilities that address its documents (signed, expiring, version-pinned),
 * what it answers and with which headers, the pages that embed what it serves, and `previewUrl`
 * on the artifact read. Real processes on the run's database: the web app, the API and the
 * content origin listening, as `pnpm start` runs them.
 */
import { contentPolicies } from '@quire/content-origin'
import { contentUrlOf, PREVIEW_WINDOW_SECONDS, previewLinks, readEnv } from '@quire/runtime'
import { runningClock } from '@quire/testing/running-clock'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readServerEnv } from '../src/env.ts'
import { startTestWeb, type TestWeb } from './helper.ts'
import { restCall, userWithKey } from './mcp-helper.ts'

describe('the settings of the content origin', () => {
  it('is on locally by default, on the other loopback name than the web app, at CONTENT_PORT', () => {
    expect(contentUrlOf(readServerEnv({}).runtime)).toBe('http://127.0.0.1:3002')
    const { runtime } = readServerEnv({ WEB_URL: 'http://127.0.0.1:4001', WEB_PORT: '4001', CONTENT_PORT: '4002' })
    expect(contentUrlOf(runtime)).toBe('http://localhost:4002')
  })

  it('is off with CONTENT_URL=off, and in production unless CONTENT_URL names it', () => {
    expect(contentUrlOf(readServerEnv({ CONTENT_URL: 'off' }).runtime)).toBeNull()
    const production = { NODE_ENV: 'production', WEB_URL: 'https://quire.example', SESSION_SECRET: 'x'.repeat(40) }
    const oidc = { OIDC_ISSUER: 'https://id.example', OIDC_CLIENT_ID: 'quire', OIDC_CLIENT_SECRET: 'secret' }
    expect(contentUrlOf(readServerEnv({ ...production, ...oidc }).runtime)).toBeNull()
    const named = readServerEnv({ ...production, ...oidc, CONTENT_URL: 'https://quire-usercontent.example' })
    expect(contentUrlOf(named.runtime)).toBe('https://quire-usercontent.example')
  })

  it('refuses an origin that is not one, the web app’s own, and in production plain http or the same site', () => {
    const refused = (env: Record<string, string>) => () => readEnv(env)
    expect(refused({ CONTENT_URL: 'http://127.0.0.1:3002/docs' })).toThrow(/CONTENT_URL .* is not an origin/)
    expect(refused({ CONTENT_URL: 'ftp://127.0.0.1' })).toThrow(/is not an origin/)
    expect(refused({ WEB_URL: 'http://localhost:3001', CONTENT_URL: 'http://localhost:3001' })).toThrow(/another origin than WEB_URL/)
    const production = { NODE_ENV: 'production', WEB_URL: 'https://quire.example' }
    expect(refused({ ...production, CONTENT_URL: 'http://usercontent.example' })).toThrow(/https in production/)
    expect(refused({ ...production, CONTENT_URL: 'https://docs.quire.example' })).toThrow(/another site than WEB_URL/)
    expect(refused({ ...production, CONTENT_URL: 'https://quire.example:8443' })).toThrow(/another site than WEB_URL/)
    expect(readEnv({ ...production, CONTENT_URL: 'https://quire-usercontent.example' }).CONTENT_URL).toBe(
      'https://quire-usercontent.example',
    )
  })
})

describe('capabilities', () => {
  const links = previewLinks({ origin: 'https://content.example', key: 'k'.repeat(40) })
  const target = { artifactId: 'art_1', versionNumber: 3 }
  const tokenOf = (url: string) => url.replace('https://content.example/d/', '')

  it('name one version (or one diagram of it) and live five to ten minutes, the same URL for everyone in a window', async () => {
    const at = new Date('2026-11-29T12:01:00Z')
    const link = await links.mint(target, at)
    expect(link.url.startsWith('https://content.example/d/')).toBe(true)
    const lifetime = (link.expiresAt.getTime() - at.getTime()) / 1000
    expect(lifetime).toBeGreaterThanOrEqual(PREVIEW_WINDOW_SECONDS)
    expect(lifetime).toBeLessThanOrEqual(2 * PREVIEW_WINDOW_SECONDS)
    expect((await links.mint(target, new Date('2026-11-29T12:04:59Z'))).url).toBe(link.url)
    expect((await links.mint(target, new Date('2026-11-29T12:05:00Z'))).url).not.toBe(link.url)
    expect(await links.open(tokenOf(link.url), at)).toEqual(target)
    const diagram = await links.mint({ ...target, diagram: 2 }, at)
    expect(await links.open(tokenOf(diagram.url), at)).toEqual({ ...target, diagram: 2 })
  })

  it('open to nothing once expired, altered, signed with another key, or not a capability at all', async () => {
    const at = new Date('2026-11-29T12:01:00Z')
    const token = tokenOf((await links.mint(target, at)).url)
    expect(await links.open(token, new Date(at.getTime() + 10 * 60_000))).toBeNull()
    const [header, payload, signature] = token.split('.') as [string, string, string]
    const flipped = `${signature.slice(0, 10)}${signature[10] === 'A' ? 'B' : 'A'}${signature.slice(11)}`
    expect(await links.open(`${header}.${payload}.${flipped}`, at)).toBeNull()
    const otherVersion = Buffer.from(JSON.stringify({ v: 4, sub: 'art_1', aud: 'quire:content', exp: 1_900_000_000 })).toString('base64url')
    expect(await links.open(`${header}.${otherVersion}.${signature}`, at)).toBeNull()
    const stranger = previewLinks({ origin: 'https://content.example', key: 's'.repeat(40) })
    expect(await stranger.open(token, at)).toBeNull()
    for (const junk of ['', 'x', 'a.b.c', `${header}..${signature}`]) expect(await links.open(junk, at)).toBeNull()
  })
})

describe('the content origin and the pages that embed it', () => {
  const clock = runningClock()
  let web: TestWeb
  let owner: Awaited<ReturnType<typeof userWithKey>>
  const ids: Record<string, string> = {}
  const api = (method: string, path: string, body?: unknown) => restCall(web, owner.token, method, path, body)
  const contentUrl = () => web.contentUrl as string
  const previewOf = async (id: string) => (await api('GET', `/api/artifacts/${id}`)).previewUrl as string | null

  beforeAll(async () => {
    web = await startTestWeb({ api: true, content: true, clock })
    owner = await userWithKey(web, 'content.owner@example.com')
    await api('POST', '/api/projects', { ownerUsername: owner.username, slug: 'docs', title: 'Docs', icon: 'D' })
    const make = async (slug: string, type: string, content: string, publicView = true) => {
      const created = await api('POST', '/api/artifacts', {
        ownerUsername: owner.username,
        projectSlug: 'docs',
        slug,
        type,
        title: slug,
        content,
        changelog: 'first',
        access: { publicView, publicEdit: false },
      })
      ids[slug] = created.id as string
    }
    await make('report', 'html', '<!DOCTYPE html>\n<html><body><h1>Report</h1><script>document.title = "ran"</script></body></html>\n')
    await make('fragment', 'html', '<p>No doctype</p>\n', false)
    await make('chart', 'svg', '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>\n')
    await make('flow', 'mermaid', 'graph TD\n  A["<b>bold?</b>"] --> B\n')
    await make('notes', 'md', '# Notes\n\n```mermaid\ngraph LR\n  X --> Y\n```\n\ntext\n\n```mermaid\nsequenceDiagram\n  A->>B: hi\n```\n')
    await make('plain', 'md', '# Plain\n\nNo diagram.\n')
  }, 180_000)
  afterAll(async () => {
    await web?.close()
  })

  it('answers an HTML capability with the document, under its policy, sandboxed, framable by the web app only', async () => {
    const url = (await previewOf(ids.report as string)) as string
    expect(url.startsWith(`${contentUrl()}/d/`)).toBe(true)
    const response = await fetch(url, { headers: { cookie: 'quire_session=stolen' } })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8')
    const policy = response.headers.get('content-security-policy') ?? ''
    expect(policy).toBe(contentPolicies({ contentUrl: contentUrl(), webUrl: web.url }).html)
    for (const directive of [
      'sandbox allow-scripts',
      "default-src 'none'",
      "connect-src 'none'",
      "form-action 'none'",
      `frame-ancestors ${web.url}`,
    ])
      expect(policy).toContain(directive)
    expect(response.headers.get('x-content-type-options')).toBe('nosniff')
    expect(response.headers.get('cross-origin-resource-policy')).toBe('same-origin')
    expect(response.headers.get('referrer-policy')).toBe('no-referrer')
    expect(response.headers.get('set-cookie')).toBeNull()
    const body = await response.text()
    // The frame script right after the doctype, the document as written after it.
    expect(body).toMatch(
      /^<!DOCTYPE html><script src="\/assets\/frame\.[0-9a-f]{12}\.js" data-parent="http:\/\/127\.0\.0\.1:\d+"><\/script>\n<html>/,
    )
    expect(body).toContain('<script>document.title = "ran"</script>')
    // A strong validator: the same version answers 304.
    const etag = response.headers.get('etag') as string
    expect(etag).toMatch(/^"[0-9a-f]{64}\.html\./)
    expect((await fetch(url, { headers: { 'if-none-match': etag } })).status).toBe(304)
  })

  it('puts the frame script first in a document without a doctype, and serves a private artifact to its capability alone', async () => {
    const url = (await previewOf(ids.fragment as string)) as string
    const body = await (await fetch(url)).text()
    expect(body).toMatch(/^<script src="\/assets\/frame\.[0-9a-f]{12}\.js" data-parent="[^"]+"><\/script>\n<p>No doctype<\/p>/)
    // The page it belongs to is private: no capability, no document.
    expect((await fetch(`${web.url}/${owner.username}/docs/fragment`)).status).toBe(404)
  })

  it('answers an SVG capability as an image anyone may embed, in which nothing runs', async () => {
    const response = await fetch((await previewOf(ids.chart as string)) as string)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8')
    expect(response.headers.get('cross-origin-resource-policy')).toBe('cross-origin')
    const policy = response.headers.get('content-security-policy') ?? ''
    expect(policy.split('; ')).toContain('sandbox')
    expect(policy).not.toContain('script-src')
  })

  it('draws a Mermaid artifact and each diagram of a Markdown document on a page of ours, the source escaped in it', async () => {
    const flow = await (await fetch((await previewOf(ids.flow as string)) as string)).text()
    expect(flow).toContain(
      '<pre id="diagram-source" class="diagram-source">graph TD\n  A[&quot;&lt;b&gt;bold?&lt;/b&gt;&quot;] --&gt; B\n</pre>',
    )
    expect(flow).toMatch(/<script src="\/assets\/mermaid\.[0-9a-f]{12}\.js" defer><\/script>/)
    const previews = web.runtime.deps.previews
    if (!previews) throw new Error('the content origin is configured in this test')
    const diagram = async (id: string, index: number) => {
      const link = await previews.mint({ artifactId: id, versionNumber: 1, diagram: index }, clock.now())
      return fetch(link.url)
    }
    expect(await (await diagram(ids.notes as string, 0)).text()).toContain('>graph LR\n  X --&gt; Y\n</pre>')
    expect(await (await diagram(ids.notes as string, 1)).text()).toContain('>sequenceDiagram\n  A-&gt;&gt;B: hi\n</pre>')
    expect((await diagram(ids.notes as string, 2)).status).toBe(404)
    expect((await diagram(ids.plain as string, 0)).status).toBe(404)
    // A Markdown version as a whole is the web app's to show, not the content origin's.
    expect((await previewOf(ids.notes as string)) ?? null).toBeNull()
    const whole = await previews.mint({ artifactId: ids.notes as string, versionNumber: 1 }, clock.now())
    expect((await fetch(whole.url)).status).toBe(404)
  })

  it('answers 404, kept by no cache, for an expired, altered or unknown capability, and for a deleted artifact', async () => {
    const previews = web.runtime.deps.previews
    if (!previews) throw new Error('the content origin is configured in this test')
    const expired = await previews.mint(
      { artifactId: ids.report as string, versionNumber: 1 },
      new Date(clock.now().getTime() - 20 * 60_000),
    )
    const live = (await previewOf(ids.report as string)) as string
    const altered = `${live.slice(0, -3)}${live.endsWith('AAA') ? 'BBB' : 'AAA'}`
    for (const url of [expired.url, altered, `${contentUrl()}/d/nothing`, `${contentUrl()}/`, `${contentUrl()}/d/`]) {
      const response = await fetch(url)
      expect(response.status, url).toBe(404)
      expect(response.headers.get('cache-control')).toBe('no-store')
      expect(await response.text()).toMatch(/^Not found\./)
    }
    const { id } = await api('POST', '/api/artifacts', {
      ownerUsername: owner.username,
      projectSlug: 'docs',
      slug: 'doomed',
      type: 'html',
      title: 'Doomed',
      content: '<p>soon gone</p>',
      changelog: 'first',
      access: { publicView: false, publicEdit: false },
    })
    const url = (await previewOf(id as string)) as string
    expect((await fetch(url)).status).toBe(200)
    await api('DELETE', `/api/artifacts/${id as string}`)
    expect((await fetch(url)).status).toBe(404)
  })

  it('serves its assets for good, compressed when asked, and nothing else', async () => {
    const page = await (await fetch((await previewOf(ids.flow as string)) as string)).text()
    const mermaid = /src="(\/assets\/mermaid\.[0-9a-f]{12}\.js)"/.exec(page)?.[1] as string
    const plain = await fetch(`${contentUrl()}${mermaid}`, { headers: { 'accept-encoding': 'identity' } })
    expect(plain.status).toBe(200)
    expect(plain.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    expect(plain.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(plain.headers.get('cross-origin-resource-policy')).toBe('cross-origin')
    const size = (await plain.arrayBuffer()).byteLength
    expect(size).toBeGreaterThan(1_000_000)
    // fetch decodes brotli itself: the same bytes arrive, fewer crossed the wire.
    const compressed = await fetch(`${contentUrl()}${mermaid}`, { headers: { 'accept-encoding': 'br' } })
    expect(compressed.headers.get('content-encoding')).toBe('br')
    expect(Number(compressed.headers.get('content-length'))).toBeLessThan(size / 3)
    expect((await compressed.arrayBuffer()).byteLength).toBe(size)
    expect((await fetch(`${contentUrl()}/assets/mermaid.000000000000.js`)).status).toBe(404)
    expect(await (await fetch(`${contentUrl()}/robots.txt`)).text()).toBe('User-agent: *\nDisallow: /\n')
  })

  it('shows an HTML artifact in a frame sandboxed to scripts, with the source a tab away', async () => {
    const path = `/${owner.username}/docs/report`
    const response = await fetch(`${web.url}${path}`)
    expect(response.status).toBe(200)
    const policy = response.headers.get('content-security-policy') ?? ''
    expect(policy).toContain(`frame-src ${contentUrl()}`)
    expect(policy).toMatch(new RegExp(`script-src ${web.url}/assets/frames\\.[0-9a-f]{12}\\.js;`))
    const page = await response.text()
    const frame =
      /<iframe class="rendered-frame rendered-html" src="([^"]+)" title="report \(rendered\)" sandbox="allow-scripts" referrerpolicy="no-referrer" loading="lazy"><\/iframe>/.exec(
        page,
      )
    expect(frame?.[1]?.startsWith(`${contentUrl()}/d/`)).toBe(true)
    expect(page).toContain(`<a href="${path}" aria-current="page">Rendered</a><a href="${path}?view=source">Source</a>`)
    expect(page).not.toContain('(shown as source)')
    const script = /<script src="(\/assets\/frames\.[0-9a-f]{12}\.js)" defer><\/script>/.exec(page)?.[1] as string
    const served = await fetch(`${web.url}${script}`)
    expect(served.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(await served.text()).toContain("event.origin !== 'null'")

    const source = await fetch(`${web.url}${path}?view=source`)
    const sourcePage = await source.text()
    expect(sourcePage).not.toContain('<iframe')
    expect(sourcePage).toContain(`<a href="${path}?view=source" aria-current="page">Source</a>`)
    expect(sourcePage).toContain('<pre><code class="hljs language-xml">')
    expect(sourcePage).toContain('&quot;ran&quot;')
    expect(source.headers.get('content-security-policy')).toContain("script-src 'none'")
    expect((await fetch(`${web.url}${path}?view=frame`)).status).toBe(400)
  })

  it('shows an SVG as an image and a Markdown document’s diagrams in frames, each with its source', async () => {
    const svg = await (await fetch(`${web.url}/${owner.username}/docs/chart`)).text()
    expect(svg).toMatch(new RegExp(`<img class="rendered-image" src="${contentUrl()}/d/[^"]+" alt="chart" referrerpolicy="no-referrer">`))
    expect(svg).not.toContain('/assets/frames.')
    const notes = await (await fetch(`${web.url}/${owner.username}/docs/notes`)).text()
    expect(notes.match(/<figure class="diagram">/g)).toHaveLength(2)
    expect(notes.match(/<iframe class="rendered-frame rendered-diagram" src="[^"]+" title="Diagram [12]"/g)).toHaveLength(2)
    expect(notes.match(/<summary>Diagram source<\/summary>/g)).toHaveLength(2)
    expect(notes).not.toContain('quire:diagram')
    const plain = await fetch(`${web.url}/${owner.username}/docs/plain`)
    expect(plain.headers.get('content-security-policy')).toContain("script-src 'none'")
  })

  it('names the capabilities’ window in the ETag of a page that holds them: a later window is another page', async () => {
    const path = `${web.url}/${owner.username}/docs/report?version=1`
    const first = await fetch(path)
    const etag = first.headers.get('etag') as string
    const src = /<iframe[^>]+src="([^"]+)"/.exec(await first.text())?.[1]
    const revalidated = await fetch(path, { headers: { 'if-none-match': etag } })
    expect(revalidated.status).toBe(304)
    // A browser takes a 304's headers into the page it kept: the policy that lets it frame the document comes along.
    expect(revalidated.headers.get('content-security-policy')).toBe(first.headers.get('content-security-policy'))
    expect(revalidated.headers.get('content-security-policy')).toContain(`frame-src ${contentUrl()}`)
    clock.advance(PREVIEW_WINDOW_SECONDS * 1000)
    const later = await fetch(path, { headers: { 'if-none-match': etag } })
    expect(later.status).toBe(200)
    expect(later.headers.get('etag')).not.toBe(etag)
    const laterSrc = /<iframe[^>]+src="([^"]+)"/.exec(await later.text())?.[1]
    expect(laterSrc).toBeDefined()
    expect(laterSrc).not.toBe(src)
    // A page that holds none keeps its ETag.
    const plain = `${web.url}/${owner.username}/docs/plain?version=1`
    const plainTag = (await fetch(plain)).headers.get('etag') as string
    clock.advance(PREVIEW_WINDOW_SECONDS * 1000)
    expect((await fetch(plain, { headers: { 'if-none-match': plainTag } })).status).toBe(304)
  })

  it('gives the API caller a previewUrl for the latest version of the types drawn there, null for the others', async () => {
    const read = await api('GET', `/api/artifacts/${ids.report as string}`)
    expect(read.previewUrl).toMatch(new RegExp(`^${contentUrl()}/d/`))
    const expires = new Date(read.previewExpiresAt as string).getTime() - clock.now().getTime()
    expect(expires).toBeGreaterThan(4 * 60_000)
    expect(expires).toBeLessThanOrEqual(10 * 60_000)
    const byPath = await api('GET', `/api/by-path/${owner.username}/docs/chart`)
    expect(byPath.previewUrl).toMatch(new RegExp(`^${contentUrl()}/d/`))
    const plain = await api('GET', `/api/artifacts/${ids.plain as string}`)
    expect(plain.previewUrl).toBeNull()
    expect(plain.previewExpiresAt).toBeNull()
  })
})

describe('without a content origin', () => {
  let web: TestWeb
  beforeAll(async () => {
    web = await startTestWeb({ api: true, env: { CONTENT_URL: 'off' } })
  }, 180_000)
  afterAll(async () => {
    await web?.close()
  })

  it('shows HTML, SVG and Mermaid as source, says so, and reads no previewUrl', async () => {
    const owner = await userWithKey(web, 'no.content@example.com')
    const api = (method: string, path: string, body?: unknown) => restCall(web, owner.token, method, path, body)
    await api('POST', '/api/projects', { ownerUsername: owner.username, slug: 'docs', title: 'Docs', icon: 'D' })
    const created = await api('POST', '/api/artifacts', {
      ownerUsername: owner.username,
      projectSlug: 'docs',
      slug: 'report',
      type: 'html',
      title: 'Report',
      content: '<h1>Report</h1>',
      changelog: 'first',
      access: { publicView: true, publicEdit: false },
    })
    expect(created.id).toBeDefined()
    expect((await api('GET', `/api/artifacts/${created.id as string}`)).previewUrl).toBeNull()
    const response = await fetch(`${web.url}/${owner.username}/docs/report`)
    const page = await response.text()
    expect(page).toContain('HTML (shown as source)')
    expect(page).not.toContain('<iframe')
    expect(page).not.toContain('view-tabs')
    expect(response.headers.get('content-security-policy')).toContain("script-src 'none'")
  })
})
