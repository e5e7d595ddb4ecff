/**
 * An artifact's history (`…/history`, every version newest first, 50 a page) and the diff between
 * two versions (`…/diff?from&to`, inline with line numbers; `…/diff.patch` as text). They go through
 * the API's use-cases: a private artifact is the same 404 as a missing one for anyone it is not
 * shared with. A diff of two named versions never changes (strong ETag, kept a minute without
 * asking, by the one caching rule); history and a diff against the latest revalidate.
 */

import { threadCpuMs } from '@quire/testing/cpu-time'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { browserTimeout, launchChromium, signInWithBrowser, startTestWeb, type TestWeb } from './helper.ts'
import { restCall, userWithKey } from './mcp-helper.ts'

let web: TestWeb
let owner: Awaited<ReturnType<typeof userWithKey>>
const ownerEmail = 'history.owner@example.com'

beforeAll(async () => {
  web = await startTestWeb({ api: true })
  owner = await userWithKey(web, ownerEmail)
  await api('POST', '/api/projects', { ownerUsername: owner.username, slug: 'notes', title: 'Notes', icon: 'N' })
})
afterAll(async () => {
  await web?.close()
})

/** A REST call as the owner. */
const api = (method: string, path: string, body?: unknown) => restCall(web, owner.token, method, path, body)

/** Creates an artifact with these versions in order (the first with changelog `first`). */
async function artifact(
  slug: string,
  options: { publicView: boolean; versions: readonly string[]; title?: string; changelogs?: readonly string[] },
) {
  const [first, ...rest] = options.versions
  const created = await api('POST', '/api/artifacts', {
    ownerUsername: owner.username,
    projectSlug: 'notes',
    slug,
    type: 'txt',
    title: options.title ?? `Title of ${slug}`,
    content: first,
    changelog: options.changelogs?.[0] ?? 'first',
    access: { publicView: options.publicView, publicEdit: false },
  })
  const id = created.id as string
  for (const [i, content] of rest.entries()) {
    const changelog = options.changelogs?.[i + 1] ?? `change ${i + 2}`
    await api('POST', `/api/artifacts/${id}/versions`, { content, changelog, expectedLatestVersion: i + 1 })
  }
  return { id, path: `/${owner.username}/notes/${slug}` }
}

const page = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${web.url}${path}`, { headers: { accept: 'text/html', ...headers } })

/** The rows of the diff table, as `class|old|new|text` with tags stripped (the hidden marker kept). */
function diffRows(body: string): string[] {
  return [
    ...body.matchAll(
      /<tr class="(add|del|context)"><td class="ln">(\d*)<\/td><td class="ln">(\d*)<\/td><td class="code">(.*?)<\/td><\/tr>/g,
    ),
  ].map((m) => `${m[1]}|${m[2]}|${m[3]}|${(m[4] ?? '').replace(/<[^>]+>/g, '')}`)
}

describe('the history page', () => {
  it('lists every version newest first with changelog, author, size, time, restore mark and links', async () => {
    const { id, path } = await artifact('story', {
      publicView: true,
      versions: ['one\n', 'one\ntwo\n'],
      changelogs: ['Begin the story', 'Add <b>two</b>'],
    })
    await api('POST', `/api/artifacts/${id}/versions/1/restore`, { changelog: 'Back to the start', expectedLatestVersion: 2 })
    const res = await page(`${path}/history`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
    const body = await res.text()
    expect(body).toContain('<title>History of Title of story · Quire</title>')
    const order = ['Version 3', 'Version 2', 'Version 1'].map((v) => body.indexOf(`<h2 class="version-title">${v}</h2>`))
    expect(order.every((at) => at > 0)).toBe(true)
    expect(order).toEqual([...order].sort((a, b) => a - b))
    expect(body).toContain('Begin the story')
    expect(body).toContain('Add &lt;b&gt;two&lt;/b&gt;') // escaped, never markup
    expect(body).toContain('Back to the start')
    expect(body).toContain(`by <strong>${owner.username}</strong>`)
    expect(body).toContain('(person)')
    expect(body).toContain('4 B') // `one\n`
    expect(body).toMatch(/<time datetime="\d{4}-\d\d-\d\dT[^"]+">\d{4}-\d\d-\d\d \d\d:\d\d UTC<\/time>/)
    expect(body).toContain(`Restored from <a href="${path}?version=1">version 1</a>`)
    expect(body).toContain(`<a href="${path}?version=2">View version 2</a>`)
    expect(body).toContain(`<a href="${path}/diff?from=2&amp;to=3">Changes from version 2</a>`)
    expect(body).toContain('First version')
    // The compare form: a plain GET to …/diff.
    expect(body).toContain(`<form class="compare" method="get" action="${path}/diff">`)
    expect(body).toMatch(/name="from" [^>]*value="2"/)
    expect(body).toMatch(/name="to" [^>]*value="3"/)
    // The artifact page links here.
    expect(await (await page(path)).text()).toContain(`<a href="${path}/history">History</a>`)
  })

  it('shows 50 versions a page and the older ones behind a cursor', async () => {
    const versions = Array.from({ length: 55 }, (_, i) => `line ${i + 1}\n`)
    const { path } = await artifact('long-history', { publicView: true, versions })
    const first = await (await page(`${path}/history`)).text()
    expect(first.match(/<li class="version"/g)).toHaveLength(50)
    expect(first).toContain('>Version 55<')
    expect(first).toContain('>Version 6<')
    expect(first).not.toContain('>Version 5<')
    const next = /href="([^"]*\/history\?cursor=[^"]+)" rel="next"/.exec(first)?.[1]
    expect(next).toBeDefined()
    const second = await (await page((next ?? '').replace(/&amp;/g, '&'))).text()
    expect(second.match(/<li class="version"/g)).toHaveLength(5)
    expect(second).toContain('>Version 5<')
    expect(second).toContain('>Version 1<')
    expect(second).not.toContain('rel="next"')
    expect(second).toContain(`<a href="${path}/history">← Newest versions</a>`)
    // A cursor this service did not issue.
    const bad = await page(`${path}/history?cursor=nonsense`)
    expect(bad.status).toBe(400)
    expect(await bad.text()).toContain('<h1')
  })

  it('revalidates every time, and answers 304 to the same ETag', async () => {
    const { id, path } = await artifact('revalidate', { publicView: true, versions: ['a\n'] })
    const res = await page(`${path}/history`)
    expect(res.headers.get('cache-control')).toBe('public, no-cache')
    const etag = res.headers.get('etag') ?? ''
    expect(etag).toMatch(/^W\/"/)
    const again = await page(`${path}/history`, { 'if-none-match': etag })
    expect(again.status).toBe(304)
    expect(await again.text()).toBe('')
    // A new version changes the page, and its ETag.
    await api('POST', `/api/artifacts/${id}/versions`, { content: 'b\n', expectedLatestVersion: 1 })
    const changed = await page(`${path}/history`, { 'if-none-match': etag })
    expect(changed.status).toBe(200)
    expect(await changed.text()).toContain('Version 2')
  })
})

describe('the diff page', () => {
  it('shows added and removed lines inline, with both line numbers, hunk headers and markers', async () => {
    const { path } = await artifact('poem', {
      publicView: true,
      versions: ['alpha\nbeta\ngamma\ndelta\n', 'alpha\nBETA\ngamma\ndelta\nepsilon <img src=x onerror=alert(1)>\n'],
    })
    // Defaults: from the one before the latest, to the latest.
    const res = await page(`${path}/diff`)
    expect(res.status).toBe(200)
    const body = await res.text()
    expect(body).toContain('Changes from version 1 to version 2')
    expect(body).toContain('+2 <span class="word">lines added</span>')
    expect(body).toContain('−1 <span class="word">line removed</span>')
    expect(body).toContain('<tr class="hunk"><th colspan="3" scope="rowgroup">@@ -1,4 +1,5 @@</th></tr>')
    expect(diffRows(body)).toEqual([
      'context|1|1|alpha',
      'del|2||− beta',
      'add||2|+ BETA',
      'context|3|3|gamma',
      'context|4|4|delta',
      'add||5|+ epsilon &lt;img src=x onerror=alert(1)&gt;',
    ])
    expect(body).toContain('<span class="sr-only">+ </span>')
    expect(body).not.toContain('<img src=x')
    expect(body).toContain(`href="${path}/diff.patch?from=1&amp;to=2"`)
    expect(body).toContain(`href="${path}/diff?from=2&amp;to=1"`) // swap sides
    // Against the latest, so it revalidates.
    expect(res.headers.get('cache-control')).toBe('public, no-cache')
    // Explicit versions give the same table.
    expect(diffRows(await (await page(`${path}/diff?from=1&to=2`)).text())).toEqual(diffRows(body))
  })

  it('says there are no differences between equal versions', async () => {
    const { id, path } = await artifact('same', { publicView: true, versions: ['x\n', 'y\n'] })
    await api('POST', `/api/artifacts/${id}/versions/1/restore`, { expectedLatestVersion: 2 })
    for (const query of ['?from=1&to=3', '?from=2&to=2']) {
      const body = await (await page(`${path}/diff${query}`)).text()
      expect(body, query).toContain('No differences')
      expect(body, query).not.toContain('<table')
    }
    // A single version: the default compares it with itself.
    const single = await artifact('single', { publicView: true, versions: ['only\n'] })
    const res = await page(`${single.path}/diff`)
    expect(res.status).toBe(200)
    expect(await res.text()).toContain('No differences: version 1 and version 1 have the same content.')
  })

  it('answers 400 to a version that is not a number, 404 to one that does not exist', async () => {
    const { path } = await artifact('bad-query', { publicView: true, versions: ['a\n', 'b\n'] })
    for (const query of ['?from=abc&to=2', '?from=1&to=0', '?from=1.5', '?to=-1', '?from=1&from=2', '?to=99999999999']) {
      const res = await page(`${path}/diff${query}`)
      expect(res.status, query).toBe(400)
      expect(res.headers.get('content-type'), query).toBe('text/html; charset=utf-8')
      expect(await res.text(), query).toContain('must be version numbers')
      expect((await page(`${path}/diff.patch${query}`)).status, query).toBe(400)
    }
    const json = await fetch(`${web.url}${path}/diff?from=x`, { headers: { accept: 'application/json' } })
    expect(json.status).toBe(400)
    expect(await json.json()).toMatchObject({ code: 'validation_failed' })
    const missing = await page(`${path}/diff?from=1&to=9`)
    expect(missing.status).toBe(404)
    expect(await missing.text()).toContain('Version 9 does not exist (latest is 2).')
  })

  it('caches a diff of two named versions with a strong ETag (a minute without asking, access may change), and answers 304', async () => {
    const { id, path } = await artifact('pinned-diff', { publicView: true, versions: ['a\n', 'b\n'] })
    const res = await page(`${path}/diff?from=1&to=2`)
    expect(res.status).toBe(200)
    expect(res.headers.get('cache-control')).toBe('public, max-age=60, must-revalidate')
    const etag = res.headers.get('etag') ?? ''
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/)
    expect(await res.text()).not.toContain('Signed in as')
    const again = await page(`${path}/diff?from=1&to=2`, { 'if-none-match': etag })
    expect(again.status).toBe(304)
    // A new version changes nothing about 1 → 2.
    await api('POST', `/api/artifacts/${id}/versions`, { content: 'c\n', expectedLatestVersion: 2 })
    expect((await page(`${path}/diff?from=1&to=2`)).headers.get('etag')).toBe(etag)
    // Another pair has another ETag; the same pair's patch has its own.
    expect((await page(`${path}/diff?from=2&to=3`)).headers.get('etag')).not.toBe(etag)
    expect((await page(`${path}/diff.patch?from=1&to=2`)).headers.get('etag')).not.toBe(etag)
  })

  it('renders at most 5,000 lines of a large diff, then links to the whole unified diff', async () => {
    const old = Array.from({ length: 6000 }, (_, i) => `old line ${i}`).join('\n')
    const next = Array.from({ length: 6000 }, (_, i) => `new line ${i}`).join('\n')
    const { path } = await artifact('huge', { publicView: true, versions: [old, next] })
    // Cut short, the page stays cheap: the server runs in this thread, so its CPU time is this
    // thread's (packages/testing/src/cpu-time.ts), whatever else the machine runs.
    const started = threadCpuMs()
    const res = await page(`${path}/diff?from=1&to=2`)
    const body = await res.text()
    const spent = threadCpuMs() - started
    expect(res.status).toBe(200)
    expect(spent).toBeLessThan(5_000)
    expect(diffRows(body)).toHaveLength(5_000)
    expect(body).toContain('only its first 5,000 lines are shown')
    expect(body).toContain(`<a href="${path}/diff.patch?from=1&amp;to=2">Open the whole unified diff</a>`)
    const patch = await (await fetch(`${web.url}${path}/diff.patch?from=1&to=2`)).text()
    expect(patch.split('\n').filter((line) => /^[+-](old|new) line/.test(line))).toHaveLength(12_000)
  })
})

describe('the raw unified diff', () => {
  it('is plain text that nothing can run, the same as the API gives', async () => {
    const { id, path } = await artifact('patch', { publicView: true, versions: ['<script>alert(1)</script>\n', 'safe\n'] })
    const res = await fetch(`${web.url}${path}/diff.patch?from=1&to=2`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    expect(res.headers.get('content-security-policy')).toContain('sandbox')
    expect(res.headers.get('cache-control')).toBe('public, max-age=60, must-revalidate')
    const text = await res.text()
    const fromApi = await api('GET', `/api/artifacts/${id}/diff?from=1&to=2`)
    expect(text).toBe(fromApi.diff)
    expect(text).toContain('-<script>alert(1)</script>')
    expect(
      (await fetch(`${web.url}${path}/diff.patch?from=1&to=2`, { headers: { 'if-none-match': res.headers.get('etag') ?? '' } })).status,
    ).toBe(304)
    // Against the latest: revalidated.
    expect((await fetch(`${web.url}${path}/diff.patch`)).headers.get('cache-control')).toBe('public, no-cache')
  })
})

describe('a private artifact', () => {
  it('is the same 404 as a missing artifact for an anonymous reader: no title, changelog or content', async () => {
    const { path } = await artifact('top-sekrit', {
      publicView: false,
      title: 'Secret plans',
      versions: ['Private words\n', 'More private words\n'],
      changelogs: ['Confidential start', 'Confidential change'],
    })
    const missingPath = `/${owner.username}/notes/no-such-thing`
    const missing = await page(`${missingPath}/history`)
    expect(missing.status).toBe(404)
    const missingBody = (await missing.text()).replace(/Request id[^<]*<[^>]*>[^<]*/g, '')
    for (const suffix of ['/history', '/diff', '/diff?from=1&to=2', '/diff?from=abc', '/diff.patch?from=1&to=2', '/history?cursor=x']) {
      const res = await page(`${path}${suffix}`)
      expect(res.status, suffix).toBe(404)
      const body = await res.text()
      for (const secret of ['Secret plans', 'Private words', 'Confidential', 'top-sekrit']) expect(body, suffix).not.toContain(secret)
      expect(body.replace(/Request id[^<]*<[^>]*>[^<]*/g, ''), suffix).toBe(missingBody)
      expect(res.headers.get('etag'), suffix).toBeNull()
    }
  })

  it('is shown to its owner, signed in, cached privately', { timeout: browserTimeout() }, async () => {
    const { path } = await artifact('owned', {
      publicView: false,
      title: 'Owner only',
      versions: ['mine\n', 'still mine\n'],
      changelogs: ['Mine'],
    })
    let browser: Browser | undefined
    try {
      browser = await launchChromium()
      const context = await browser.newContext()
      const tab = await context.newPage()
      await signInWithBrowser(tab, web, ownerEmail)
      const history = await tab.goto(`${web.url}${path}/history`)
      expect(history?.status()).toBe(200)
      expect(history?.headers()['cache-control']).toBe('private, no-cache')
      expect(await tab.textContent('main')).toContain('Mine')
      expect(await tab.textContent('header.site nav')).toContain(ownerEmail)
      const diff = await tab.goto(`${web.url}${path}/diff?from=1&to=2`)
      expect(diff?.status()).toBe(200)
      expect(diff?.headers()['cache-control']).toBe('private, no-cache')
      expect(diff?.headers().vary).toContain('Cookie')
      expect(await tab.locator('tr.add').count()).toBe(1)
      expect(await tab.locator('tr.del').count()).toBe(1)
      // The form works without script: it lands on the diff of the two numbers typed.
      await tab.goto(`${web.url}${path}/history`)
      await tab.fill('#compare-from', '2')
      await tab.fill('#compare-to', '1')
      await Promise.all([tab.waitForURL(/\/diff\?from=2&to=1$/), tab.click('form.compare button')])
      expect(await tab.textContent('h1')).toContain('Changes from version 2 to version 1')
    } finally {
      await browser?.close()
    }
  })
})
