/**
 * Browsing: `/s/:token` opens a share link's artifact with the link's role (a revoked or expired
 * link is the 404 a missing artifact gets, the URL is never cached nor sent as a Referer);
 * `/:owner` and `/:owner/:project` list what the viewer may see through the same use-cases as the
 * API (a 404 otherwise, a private title never included); the signed-in home lists the person's
 * workspaces, projects and recent artifacts. Static routes still win over `/:owner`.
 */

import { runningClock } from '@quire/testing/running-clock'
import { testEngine } from '@quire/testing/test-database'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { browserTimeout, launchChromium, signInWithBrowser, startTestWeb, type TestWeb } from './helper.ts'
import { restCall, userWithKey } from './mcp-helper.ts'

const OWNER_EMAIL = 'browse.owner@example.com'

let web: TestWeb
let owner: Awaited<ReturnType<typeof userWithKey>>
let browser: Browser | undefined
let context: BrowserContext | undefined
/** The use-cases' clock: a link expires when a test moves it past the link's expiry. */
const clock = runningClock()
const HOUR_MS = 3_600_000

beforeAll(async () => {
  web = await startTestWeb({ api: true, clock })
  owner = await userWithKey(web, OWNER_EMAIL)
  await api('POST', '/api/projects', { ownerUsername: owner.username, slug: 'notes', title: 'Notes', icon: 'N' })
  await api('POST', '/api/projects', { ownerUsername: owner.username, slug: 'other', title: 'Other things', icon: 'O' })
})
afterAll(async () => {
  await context?.close()
  await browser?.close()
  await web?.close()
})

/** A REST call as the owner. */
const api = (method: string, path: string, body?: unknown) => restCall(web, owner.token, method, path, body)

async function artifact(slug: string, options: { publicView: boolean; content: string; title?: string; project?: string }) {
  const project = options.project ?? 'notes'
  const created = await api('POST', '/api/artifacts', {
    ownerUsername: owner.username,
    projectSlug: project,
    slug,
    type: 'md',
    title: options.title ?? `Title of ${slug}`,
    content: options.content,
    changelog: 'first',
    access: { publicView: options.publicView, publicEdit: false },
  })
  return { id: created.id as string, path: `/${owner.username}/${project}/${slug}` }
}

async function shareLink(artifactId: string, body: { role?: 'viewer' | 'editor'; expiresAt?: string } = {}) {
  const created = await api('POST', `/api/artifacts/${artifactId}/share-links`, body)
  return { id: created.id as string, secret: created.secret as string, url: created.url as string }
}

const page = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${web.url}${path}`, { headers: { accept: 'text/html', ...headers }, redirect: 'manual' })

/** A browser context signed in as `email` (the browser is launched once, on first need). */
async function signedIn(email: string): Promise<BrowserContext> {
  browser ??= await launchChromium()
  const fresh = await browser.newContext()
  const signIn = await fresh.newPage()
  await signInWithBrowser(signIn, web, email)
  await signIn.close()
  return fresh
}

/** A signed-in browser page of the owner (one sign-in for the file). */
async function ownerBrowser(): Promise<Page> {
  context ??= await signedIn(OWNER_EMAIL)
  return context.newPage()
}

describe(`share links open their artifact (${testEngine})`, () => {
  it('a viewer link renders the latest version and pinned ones, never cached, never sent as a Referer', async () => {
    const { id, path } = await artifact('shared-private', {
      publicView: false,
      content: '# Shared\n\nFirst words.\n',
      title: 'Secret plan',
    })
    await api('POST', `/api/artifacts/${id}/versions`, { content: '# Shared\n\nSecond words.\n', expectedLatestVersion: 1 })
    const link = await shareLink(id)
    expect(link.url).toBe(`${web.url}/s/${encodeURIComponent(link.secret)}`)
    const sharePath = `/s/${encodeURIComponent(link.secret)}`

    const res = await page(sharePath)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(res.headers.get('cache-control')).toBe('no-store')
    expect(res.headers.get('referrer-policy')).toBe('no-referrer')
    expect(res.headers.get('x-robots-tag')).toBe('noindex')
    const body = await res.text()
    expect(body).toContain('<title>Secret plan · Quire</title>')
    expect(body).toContain('Second words.')
    expect(body).toContain('Version 2 of 2')
    expect(body).toContain('through a share link')
    // The one link that leaves the share link says it needs a sign-in; the rest stay under it.
    expect(body).toContain(`<a href="${path}">${path}</a>, needs sign-in`)
    expect(body).toContain(`href="${sharePath}/raw"`)
    expect(body).not.toContain(`href="/${owner.username}"`)
    expect(body).not.toContain(`href="/${owner.username}/notes"`)
    expect(body).not.toContain('Editor link')
    expect(body).not.toContain('og:title')

    // The same artifact is not found without the link.
    expect((await page(path)).status).toBe(404)

    const pinned = await page(`${sharePath}?version=1`)
    expect(pinned.status).toBe(200)
    expect(pinned.headers.get('cache-control')).toBe('no-store')
    const pinnedBody = await pinned.text()
    expect(pinnedBody).toContain('First words.')
    expect(pinnedBody).toContain('not the latest')
    expect(pinnedBody).toContain(`<a href="${sharePath}">Read the latest (version 2)</a>`)
    expect((await page(`${sharePath}?version=9`)).status).toBe(404)
    expect((await page(`${sharePath}?version=zero`)).status).toBe(400)

    const raw = await page(`${sharePath}/raw?version=1`)
    expect(raw.status).toBe(200)
    expect(raw.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    expect(raw.headers.get('referrer-policy')).toBe('no-referrer')
    expect(await raw.text()).toBe('# Shared\n\nFirst words.\n')
  })

  it('an editor link says so in a notice', async () => {
    const { id } = await artifact('shared-editor', { publicView: false, content: 'Edit me.\n' })
    const link = await shareLink(id, { role: 'editor' })
    const res = await page(`/s/${encodeURIComponent(link.secret)}`)
    expect(res.status).toBe(200)
    const body = await res.text()
    expect(body).toContain('Editor link')
    expect(body).toContain('that lets you edit')
  })

  it('a public artifact through a link names its public address', async () => {
    const { id, path } = await artifact('shared-public', { publicView: true, content: 'Open to all.\n' })
    const link = await shareLink(id)
    const body = await (await page(`/s/${encodeURIComponent(link.secret)}`)).text()
    expect(body).toContain(`Its public address is <a href="${path}">`)
    // Preview tags name the public address, never the secret.
    expect(body).toContain(`<link rel="canonical" href="${web.url}${path}">`)
    // The secret is only in the links that stay under it (here: the raw view).
    expect(body.split(link.secret).length - 1).toBe(1)
  })

  it('revoked, expired and unknown links are the 404 of a missing artifact, with nothing of it', async () => {
    const { id } = await artifact('shared-gone', { publicView: false, content: 'Gone words.\n', title: 'Vanishing title' })
    const revoked = await shareLink(id)
    await api('POST', `/api/share-links/${revoked.id}/revoke`)
    const expiring = await shareLink(id, { expiresAt: new Date(clock.now().getTime() + HOUR_MS).toISOString() })
    expect((await page(`/s/${encodeURIComponent(expiring.secret)}`)).status).toBe(200)
    // Its hour passes on the clock the use-cases read, not in a wait.
    clock.advance(HOUR_MS + 1_000)

    const missing = await page('/s/quire_shl_not-a-real-link')
    expect(missing.status).toBe(404)
    const missingBody = await missing.text()
    for (const secret of [revoked.secret, expiring.secret]) {
      const res = await page(`/s/${encodeURIComponent(secret)}`)
      expect(res.status, secret).toBe(404)
      expect(res.headers.get('cache-control')).toBe('no-store')
      expect(res.headers.get('referrer-policy')).toBe('no-referrer')
      expect(res.headers.get('x-robots-tag')).toBe('noindex')
      const body = await res.text()
      expect(body).not.toContain('Vanishing title')
      expect(body).not.toContain('Gone words')
      expect(body).not.toContain('shared-gone')
      // The same page as an unknown link (but for its request id).
      expect(body.replace(/req-[\w-]+|[0-9a-f-]{36}/g, '')).toBe(missingBody.replace(/req-[\w-]+|[0-9a-f-]{36}/g, ''))
      expect((await page(`/s/${encodeURIComponent(secret)}/raw`)).status).toBe(404)
    }
  })

  it('an API key pasted as a share link opens nothing', async () => {
    const res = await page(`/s/${encodeURIComponent(owner.token)}`)
    expect(res.status).toBe(404)
  })
})

describe(`owner and project pages (${testEngine})`, { timeout: browserTimeout() }, () => {
  it('show an anonymous visitor the public artifacts only, under slugs, and are a 404 where nothing is public', async () => {
    await api('POST', '/api/projects', { ownerUsername: owner.username, slug: 'hidden', title: 'Codename Bluebird', icon: 'H' })
    await artifact('anon-private', { publicView: false, content: 'x\n', title: 'Private diary entry' })
    await artifact('anon-public', { publicView: true, content: 'y\n', title: 'Public announcement' })
    await artifact('hidden-private', { publicView: false, content: 'z\n', title: 'Hidden draft', project: 'hidden' })
    for (const path of [`/${owner.username}`, `/${owner.username}/notes`]) {
      const res = await page(path)
      expect(res.status, path).toBe(200)
      expect(res.headers.get('cache-control')).toBe('private, no-cache')
      const body = await res.text()
      expect(body).toContain('Public announcement')
      expect(body).toContain(`href="/${owner.username}/notes/anon-public"`)
      for (const secret of ['Private diary entry', 'Hidden draft', 'Codename Bluebird', OWNER_EMAIL])
        expect(body, path).not.toContain(secret)
    }
    for (const path of [`/${owner.username}/hidden`, '/nobody-here', `/${owner.username}/no-such-project`]) {
      const res = await page(path)
      expect(res.status, path).toBe(404)
      const body = await res.text()
      expect(body).not.toContain('Hidden draft')
      expect(body).not.toContain('Codename Bluebird')
      expect(body).toContain('Page not found')
    }
    const json = await page(`/${owner.username}/hidden`, { accept: 'application/json' })
    expect(json.status).toBe(404)
    expect(((await json.json()) as { code: string }).code).toBe('not_found')
  })

  it('list the projects and artifacts a member may see, newest first, with a 404 for unknown names', async () => {
    await artifact('older', { publicView: false, content: 'a\n', title: 'Older private note' })
    await artifact('newer', { publicView: true, content: 'b\n', title: 'Newer public note' })
    await artifact('elsewhere', { publicView: true, content: 'c\n', title: 'In another project', project: 'other' })
    const tab = await ownerBrowser()
    try {
      const ownerRes = await tab.goto(`${web.url}/${owner.username}`)
      expect(ownerRes?.status()).toBe(200)
      const ownerText = await tab.locator('main').textContent()
      expect(ownerText).toContain('Notes')
      expect(ownerText).toContain('Other things')
      expect(await tab.locator(`a[href="/${owner.username}/notes"]`).count()).toBeGreaterThan(0)

      const projectRes = await tab.goto(`${web.url}/${owner.username}/notes`)
      expect(projectRes?.status()).toBe(200)
      expect(projectRes?.headers()['cache-control']).toBe('private, no-store')
      const titles = await tab.locator('.listing-title').allInnerTexts()
      expect(titles).toContain('Older private note')
      expect(titles).toContain('Newer public note')
      expect(titles).not.toContain('In another project')
      expect(titles.indexOf('Newer public note')).toBeLessThan(titles.indexOf('Older private note'))
      const row = tab.locator('.listing li', { hasText: 'Older private note' })
      expect(await row.textContent()).toContain('Private')
      expect(await row.textContent()).toContain('Version 1')
      expect(await row.locator('.type-tag').textContent()).toMatch(/md/i)
      expect(await row.locator(`a[href="/${owner.username}/notes/older"]`).count()).toBe(1)

      expect((await tab.goto(`${web.url}/${owner.username}/nothing-here`))?.status()).toBe(404)
      expect((await tab.goto(`${web.url}/someone-else-entirely`))?.status()).toBe(404)
      expect((await tab.goto(`${web.url}/${owner.username}/notes?cursor=forged`))?.status()).toBe(400)
    } finally {
      await tab.close()
    }
  })

  it('show a signed-in stranger what an anonymous visitor sees', async () => {
    const stranger = await userWithKey(web, 'browse.stranger@example.com')
    await artifact('stranger-public', { publicView: true, content: 's\n', title: 'Open letter' })
    const strangerContext = await signedIn('browse.stranger@example.com')
    try {
      const tab = await strangerContext.newPage()
      for (const path of [`/${owner.username}`, `/${owner.username}/notes`]) {
        const res = await tab.goto(`${web.url}${path}`)
        expect(res?.status(), path).toBe(200)
        const text = await tab.content()
        expect(text).toContain('Open letter')
        expect(text).not.toContain('Older private note')
        expect(text).not.toContain('Your role')
      }
      expect((await tab.goto(`${web.url}/${owner.username}/hidden`))?.status()).toBe(404)
      expect((await tab.goto(`${web.url}/${stranger.username}`))?.status()).toBe(200)
    } finally {
      await strangerContext.close()
    }
  })
})

describe(`the signed-in home (${testEngine})`, { timeout: browserTimeout() }, () => {
  it('leads with new work, then lists recently changed artifacts, projects and workspaces', async () => {
    const { id } = await artifact('home-recent', { publicView: false, content: 'z\n', title: 'Freshly written' })
    await api('POST', `/api/artifacts/${id}/versions`, { content: 'zz\n', expectedLatestVersion: 1, changelog: 'second' })
    const tab = await ownerBrowser()
    try {
      const res = await tab.goto(`${web.url}/`)
      expect(res?.status()).toBe(200)
      // New work first: the button and the link come before any list.
      const head = tab.locator('main > .home-head')
      expect(await head.locator('a.button[href="/new"]').textContent()).toBe('New artifact')
      expect(await head.locator('a[href="/new/project"]').textContent()).toBe('New project')
      const headings = await tab.locator('main h2').allTextContents()
      expect(headings).toEqual(['Recently changed', 'Your projects', 'Your workspaces'])
      // The row: title (the link), type, project (a link), version, access, the time of the last change.
      const row = tab.locator('.home-recent li', { has: tab.locator(`a[href="/${owner.username}/notes/home-recent"]`) })
      expect(await row.count()).toBe(1)
      expect(await row.locator('.listing-title').textContent()).toBe('Freshly written')
      expect(await row.locator('.type-tag').textContent()).toBe('md')
      expect(await row.locator(`a.listing-project[href="/${owner.username}/notes"]`).textContent()).toBe(`${owner.username} / notes`)
      const meta = await row.locator('.listing-meta').textContent()
      expect(meta).toContain('v2')
      expect(meta).toContain('Private')
      const changed = row.locator('time')
      expect(await changed.getAttribute('datetime')).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/)
      expect(await changed.textContent()).toMatch(/^(just now|\d+ minutes? ago)$/)
      // The profile's details live on /settings now.
      expect(await tab.locator('main').textContent()).not.toContain(owner.userId)
      const projects = tab.locator('section[aria-labelledby="projects-heading"]')
      expect(await projects.locator(`a[href="/${owner.username}/other"]`).textContent()).toBe('Other things')
      const workspaces = tab.locator('section[aria-labelledby="workspaces-heading"]')
      expect(await workspaces.locator(`a[href="/${owner.username}"]`).count()).toBe(1)
    } finally {
      await tab.close()
    }
  })

  it('tells a person with nothing yet to start with a project, and how to connect their tools', async () => {
    const fresh = await signedIn('browse.fresh@example.com')
    try {
      const tab = await fresh.newPage()
      expect((await tab.goto(`${web.url}/`))?.status()).toBe(200)
      const start = tab.locator('.home-start')
      expect(await start.locator('h2').textContent()).toBe('Start with a project')
      expect(await start.locator('a.button[href="/new/project"]').textContent()).toBe('New project')
      expect(await tab.locator('.home-recent').count()).toBe(0)
      expect(await tab.locator('main').textContent()).toContain(`claude mcp add --transport http quire ${web.url}/mcp`)
    } finally {
      await fresh.close()
    }
  })

  it('stays the welcome page when signed out: what Quire is, an example, and the ways in for this origin', async () => {
    const body = await (await page('/')).text()
    expect(body).toContain('Versioned documents for people and AI agents')
    expect(body).not.toContain('Recently changed')
    expect(body).toContain('<span class="badge example-badge">Example</span>')
    expect(body).toContain(`claude mcp add --transport http quire ${web.url}/mcp`)
    expect(body).toContain(`export AGENT_SERVICE_BASE_URL=${web.apiUrl}`)
  })
})

describe(`static routes still win over /:owner (${testEngine})`, () => {
  it('/login still starts a sign-in and /health still answers', async () => {
    const login = await page('/login')
    expect(login.status).toBe(303)
    expect(login.headers.get('location')).toContain('/dev-oidc/')
    const health = await fetch(`${web.url}/health`)
    expect(health.status).toBe(200)
    expect(health.headers.get('content-type')).toContain('application/json')
  })
})
