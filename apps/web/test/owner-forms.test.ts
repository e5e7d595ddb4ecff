/**
 * The owner's forms, driven in a real Chromium signed in through the development provider: a new
 * version (and the conflict when someone saved meanwhile: the diff missed, the text kept), restore,
 * delete after typing the slug, access settings, share links (the URL shown once, then revoked).
 * Each post runs the operation the REST call runs, so every outcome is checked over REST. Whoever
 * may not act (a stranger, an allowlisted viewer, someone signed out) sees no owner's controls and
 * is refused as the API refuses them; a post without the session's CSRF token, or from another
 * site's page, changes nothing. The forms work without JavaScript, and every field has a label.
 */
import { createServer, type Server } from 'node:http'
import { testEngine } from '@quire/testing/test-database'
import type { Browser, BrowserContext } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BrowserSessions, seriousViolations, submit, unlabelled } from './browser-forms.ts'
import { browserTimeout, freePort, launchChromium, startTestWeb, type TestWeb } from './helper.ts'
import { restCall, userWithKey } from './mcp-helper.ts'

const OWNER_EMAIL = 'forms.owner@example.com'
const VIEWER_EMAIL = 'forms.viewer@example.com'
const STRANGER_EMAIL = 'forms.stranger@example.com'

let web: TestWeb
let owner: Awaited<ReturnType<typeof userWithKey>>
let browser: Browser
let sessions: BrowserSessions
let ownerContext: BrowserContext

beforeAll(async () => {
  web = await startTestWeb({ api: true })
  owner = await userWithKey(web, OWNER_EMAIL)
  await api('POST', '/api/projects', { ownerUsername: owner.username, slug: 'guides', title: 'Guides', icon: 'G' })
  browser = await launchChromium()
  sessions = new BrowserSessions(browser, web)
  ownerContext = await sessions.signedIn(OWNER_EMAIL)
}, browserTimeout())
afterAll(async () => {
  await sessions?.close()
  await browser?.close()
  await web?.close()
})

/** A REST call as the owner. */
const api = (method: string, path: string, body?: unknown) => restCall(web, owner.token, method, path, body)

/** A REST call as the owner that may fail: its status and body. */
async function apiStatus(method: string, path: string): Promise<number> {
  const response = await fetch(`${web.apiUrl}${path}`, { method, headers: { authorization: `Bearer ${owner.token}` } })
  await response.arrayBuffer()
  return response.status
}

/** A private Markdown artifact (or public, or with viewers) with these versions in order. */
async function artifact(slug: string, versions: readonly string[], access: { publicView?: boolean; viewerEmails?: string[] } = {}) {
  const [first, ...rest] = versions
  const created = await api('POST', '/api/artifacts', {
    ownerUsername: owner.username,
    projectSlug: 'guides',
    slug,
    type: 'md',
    title: `Title of ${slug}`,
    content: first,
    changelog: 'first',
    access: {
      publicView: access.publicView ?? false,
      publicEdit: false,
      ...(access.viewerEmails ? { viewerEmails: access.viewerEmails } : {}),
    },
  })
  const id = created.id as string
  for (const [i, content] of rest.entries()) await api('POST', `/api/artifacts/${id}/versions`, { content, expectedLatestVersion: i + 1 })
  return { id, path: `/${owner.username}/guides/${slug}` }
}

/** The latest version over REST: its number, content and changelog. */
async function latest(id: string) {
  const meta = await api('GET', `/api/artifacts/${id}`)
  const content = await api('GET', `/api/artifacts/${id}/content`)
  const versions = (await api('GET', `/api/artifacts/${id}/versions?limit=1`)).items as { changelog: string; restoredFrom: number | null }[]
  return {
    number: meta.latestVersion as number,
    content: content.content as string,
    changelog: versions[0]?.changelog,
    restoredFrom: versions[0]?.restoredFrom,
  }
}

/** A new tab of the owner's signed-in browser. */
const ownerPage = () => ownerContext.newPage()

/** The CSRF token of a signed-in context's session, as its pages carry it (the home page's sign-out form). */
async function csrfTokenOf(context: BrowserContext): Promise<string> {
  const body = await (await context.request.get(`${web.url}/`)).text()
  const token = /name="_csrf" value="([^"]+)"/.exec(body)?.[1]
  if (!token) throw new Error('no CSRF token on the home page')
  return token
}

describe(`a new version from the browser (${testEngine})`, { timeout: browserTimeout() }, () => {
  it('shows the latest content, saves text and changelog as the next version, and lands on the page with a fixed notice', async () => {
    const { id, path } = await artifact('write', ['\nStarts with an empty line.\n'])
    const page = await ownerPage()
    const form = await page.goto(`${web.url}${path}/edit`)
    expect(form?.status()).toBe(200)
    expect(form?.headers()['cache-control']).toBe('no-store')
    // The textarea holds the content exactly, its leading newline included.
    expect(await page.inputValue('#content')).toBe('\nStarts with an empty line.\n')
    expect(await page.inputValue('input[name="expectedLatestVersion"]')).toBe('1')
    await page.fill('#content', '# Second\n\nLine one.\nLine two.\n')
    await page.fill('#changelog', 'Rewrite the <b>intro</b>')
    expect(await submit(page, 'form.owner-form button[type="submit"]')).toBe(200)
    expect(new URL(page.url()).pathname).toBe(path)
    expect(new URL(page.url()).search).toBe('?notice=saved')
    expect(await page.textContent('.notice.success')).toContain('Saved: your new version is now the latest.')
    // Saved with the document's own newlines (the textarea sent CRLF).
    expect(await latest(id)).toMatchObject({
      number: 2,
      content: '# Second\n\nLine one.\nLine two.\n',
      changelog: 'Rewrite the <b>intro</b>',
    })
    // A notice is a key: anything else in the query shows nothing.
    await page.goto(`${web.url}${path}?notice=%3Cscript%3Ealert(1)%3C/script%3E`)
    expect(await page.locator('.notice.success').count()).toBe(0)
    expect(await page.content()).not.toContain('alert(1)')
    await page.close()
  })

  it('keeps a document’s CRLF newlines when it had them', async () => {
    const { id, path } = await artifact('crlf', ['one\r\ntwo\r\n'])
    const page = await ownerPage()
    await page.goto(`${web.url}${path}/edit`)
    await page.fill('#content', 'one\ntwo\nthree\n')
    await submit(page, 'form.owner-form button[type="submit"]')
    expect((await latest(id)).content).toBe('one\r\ntwo\r\nthree\r\n')
    await page.close()
  })

  it('on a conflict shows the diff missed, keeps the text and changelog, and saves on the second submit', async () => {
    const { id, path } = await artifact('race', ['alpha\nbeta\ngamma\n'])
    const page = await ownerPage()
    await page.goto(`${web.url}${path}/edit`)
    await page.fill('#content', 'alpha\nbeta\ngamma\nmy own line\n')
    await page.fill('#changelog', 'Add my line')
    // Meanwhile, someone saves over REST.
    await api('POST', `/api/artifacts/${id}/versions`, {
      content: 'alpha\nBETA FROM REST\ngamma\n',
      changelog: 'theirs',
      expectedLatestVersion: 1,
    })
    expect(await submit(page, 'form.owner-form button[type="submit"]')).toBe(409)
    expect(await page.textContent('.conflict')).toContain('Someone saved a new version while you were editing')
    expect(await page.textContent('.conflict')).toContain('You started from version 1; the artifact is now at version 2.')
    // The diff of what was missed, from version 1 to 2, in the diff page's table.
    expect(await page.locator('.conflict tr.del .code').allTextContents()).toEqual(['− beta'])
    expect(await page.locator('.conflict tr.add .code').allTextContents()).toEqual(['+ BETA FROM REST'])
    expect(await page.inputValue('#content')).toBe('alpha\nbeta\ngamma\nmy own line\n')
    expect(await page.inputValue('#changelog')).toBe('Add my line')
    expect(await page.inputValue('input[name="expectedLatestVersion"]')).toBe('2')
    expect((await latest(id)).number).toBe(2) // nothing written
    // The person merges and saves again: it goes through.
    await page.fill('#content', 'alpha\nBETA FROM REST\ngamma\nmy own line\n')
    expect(await submit(page, 'form.owner-form button[type="submit"]')).toBe(200)
    expect(page.url()).toContain('?notice=saved')
    expect(await latest(id)).toMatchObject({ number: 3, content: 'alpha\nBETA FROM REST\ngamma\nmy own line\n', changelog: 'Add my line' })
    await page.close()
  })

  it('comes back with the text and a message next to the field when the content is too large or the changelog too long', async () => {
    const { id, path } = await artifact('limits', ['small\n'])
    const page = await ownerPage()
    await page.goto(`${web.url}${path}/edit`)
    const huge = `${'x'.repeat(80)}\n`.repeat(13_500) // about 1.1 MB, over the 1 MiB limit
    // Typing a megabyte takes a browser minutes: the field gets it at once, as a paste would.
    await page.$eval(
      '#content',
      (field, text) => {
        ;(field as HTMLTextAreaElement).value = text
      },
      huge,
    )
    await page.fill('#changelog', 'Too big')
    expect(await submit(page, 'form.owner-form button[type="submit"]')).toBe(413)
    expect(await page.textContent('#content-error')).toContain('the limit is 1048576 bytes')
    expect(await page.getAttribute('#content', 'aria-invalid')).toBe('true')
    expect((await page.inputValue('#content')).length).toBe(huge.length)
    expect(await page.inputValue('#changelog')).toBe('Too big')
    // A changelog over 2,000 characters (the field's own limit removed, as a script could).
    await page.fill('#content', 'kept text\n')
    await page.$eval('#changelog', (field) => field.removeAttribute('maxlength'))
    await page.fill('#changelog', 'c'.repeat(2001))
    expect(await submit(page, 'form.owner-form button[type="submit"]')).toBe(400)
    expect(await page.textContent('#changelog-error')).toMatch(/2000/)
    expect(await page.textContent('.error-summary')).toContain('Changelog')
    expect(await page.inputValue('#content')).toBe('kept text\n')
    expect((await latest(id)).number).toBe(1)
    await page.close()
  })

  it('works with JavaScript disabled', async () => {
    const { id, path } = await artifact('no-script', ['before\n'])
    const context = await sessions.signedIn(OWNER_EMAIL, { javaScriptEnabled: false })
    const page = await context.newPage()
    await page.goto(`${web.url}${path}/edit`)
    await page.fill('#content', 'written without script\n')
    await page.fill('#changelog', 'No JS')
    expect(await submit(page, 'form.owner-form button[type="submit"]')).toBe(200)
    expect(page.url()).toContain('?notice=saved')
    expect(await latest(id)).toMatchObject({ number: 2, content: 'written without script\n', changelog: 'No JS' })
    // Restoring from the history page too (the disclosure opens without script).
    await page.goto(`${web.url}${path}/history`)
    await page.click('#v1 details.restore summary')
    expect(await submit(page, '#v1 details.restore button')).toBe(200)
    expect(await latest(id)).toMatchObject({ number: 3, content: 'before\n', restoredFrom: 1 })
  })

  it('is reached and sent with the keyboard alone', async () => {
    const { id, path } = await artifact('keyboard', ['typed by hand\n'])
    const page = await ownerPage()
    await page.goto(`${web.url}${path}`)
    // From the artifact page: Tab to the Edit link and follow it.
    for (let i = 0; i < 30 && (await page.evaluate(() => document.activeElement?.textContent)) !== 'Edit'; i++)
      await page.keyboard.press('Tab')
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Edit')
    await Promise.all([page.waitForURL(/\/edit$/), page.keyboard.press('Enter')])
    const focusTo = async (selector: string) => {
      for (let i = 0; i < 30 && !(await page.evaluate((s) => document.activeElement?.matches(s), selector)); i++)
        await page.keyboard.press('Tab')
      expect(await page.evaluate((s) => document.activeElement?.matches(s), selector)).toBe(true)
    }
    await focusTo('#content')
    await page.keyboard.press('Control+End')
    await page.keyboard.type('more\n')
    await focusTo('#changelog')
    await page.keyboard.type('By keyboard')
    await focusTo('form.owner-form button[type="submit"]')
    await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')])
    expect(await latest(id)).toMatchObject({ number: 2, content: 'typed by hand\nmore\n', changelog: 'By keyboard' })
    await page.close()
  })
})

describe(`restore and delete (${testEngine})`, { timeout: browserTimeout() }, () => {
  it('restores an old version from the history page as a new head, with an optional changelog', async () => {
    const { id, path } = await artifact('restore', ['one\n', 'two\n', 'three\n'])
    const page = await ownerPage()
    await page.goto(`${web.url}${path}/history`)
    // A restore control for each old version, none for the latest.
    expect(await page.locator('details.restore').count()).toBe(2)
    expect(await page.locator('#v3 details.restore').count()).toBe(0)
    await page.click('#v1 details.restore summary')
    await page.fill('#restore-note-1', 'Back to one')
    expect(await submit(page, '#v1 details.restore button')).toBe(200)
    expect(page.url()).toBe(`${web.url}${path}?notice=restored`)
    expect(await page.textContent('.notice.success')).toContain('Restored')
    expect(await latest(id)).toMatchObject({ number: 4, content: 'one\n', changelog: 'Back to one', restoredFrom: 1 })
    await page.close()
  })

  it('restores nothing when someone saved after the history page was opened', async () => {
    const { id, path } = await artifact('restore-late', ['one\n', 'two\n'])
    const page = await ownerPage()
    await page.goto(`${web.url}${path}/history`)
    await api('POST', `/api/artifacts/${id}/versions`, { content: 'three\n', expectedLatestVersion: 2 })
    await page.click('#v1 details.restore summary')
    expect(await submit(page, '#v1 details.restore button')).toBe(409)
    expect(await page.textContent('main')).toContain('the artifact is now at version 3')
    expect(await latest(id)).toMatchObject({ number: 3, content: 'three\n' })
    await page.close()
  })

  it('deletes only after the slug is typed, then lands on the project with a notice', async () => {
    const { id, path } = await artifact('doomed', ['bye\n'])
    const page = await ownerPage()
    await page.goto(`${web.url}${path}`)
    await Promise.all([page.waitForURL(/\/delete$/), page.click('.artifact-actions a.danger')])
    expect(await page.textContent('h1')).toContain('Delete Title of doomed?')
    await page.fill('#confirm', 'doome')
    expect(await submit(page, 'form.owner-form button.danger')).toBe(400)
    expect(await page.textContent('#confirm-error')).toContain('Nothing was deleted')
    expect(await page.inputValue('#confirm')).toBe('doome')
    expect(await apiStatus('GET', `/api/artifacts/${id}`)).toBe(200)
    await page.fill('#confirm', 'doomed')
    expect(await submit(page, 'form.owner-form button.danger')).toBe(200)
    expect(page.url()).toBe(`${web.url}/${owner.username}/guides?notice=deleted`)
    expect(await page.textContent('.notice.success')).toContain('The artifact was deleted.')
    expect(await apiStatus('GET', `/api/artifacts/${id}`)).toBe(404)
    expect((await page.goto(`${web.url}${path}`))?.status()).toBe(404)
    await page.close()
  })
})

describe(`access settings and share links (${testEngine})`, { timeout: browserTimeout() }, () => {
  it('saves the switches and the allowlist (checked over REST), and keeps what was typed when an address is wrong', async () => {
    const { id, path } = await artifact('access', ['a\n'])
    const page = await ownerPage()
    await page.goto(`${web.url}${path}`)
    await Promise.all([page.waitForURL(/\/settings$/), page.click('text=Settings & sharing')])
    expect(await page.isChecked('#publicView')).toBe(false)
    await page.check('#publicView')
    await page.fill('#viewerEmails', 'Bob@Example.com\n\n  carol@example.com  \n')
    expect(await submit(page, 'text=Save access settings')).toBe(200)
    expect(page.url()).toBe(`${web.url}${path}/settings?notice=access-saved`)
    expect(await page.textContent('.notice.success')).toContain('Access settings saved.')
    expect(await api('GET', `/api/artifacts/${id}/access`)).toMatchObject({
      publicView: true,
      publicEdit: false,
      viewerEmails: ['bob@example.com', 'carol@example.com'],
    })
    // The form shows what is stored.
    expect(await page.isChecked('#publicView')).toBe(true)
    expect(await page.inputValue('#viewerEmails')).toBe('bob@example.com\ncarol@example.com')
    // A malformed address: nothing changes, the text stays, the message names the address.
    await page.uncheck('#publicView')
    await page.fill('#viewerEmails', 'bob@example.com\nnot an address\n')
    expect(await submit(page, 'text=Save access settings')).toBe(400)
    expect(await page.textContent('#viewerEmails-error')).toContain('“not an address”')
    expect(await page.inputValue('#viewerEmails')).toBe('bob@example.com\nnot an address\n')
    expect(await page.isChecked('#publicView')).toBe(false)
    expect(await api('GET', `/api/artifacts/${id}/access`)).toMatchObject({
      publicView: true,
      viewerEmails: ['bob@example.com', 'carol@example.com'],
    })
    await page.close()
  })

  it('creates a link whose URL is shown once and opens the artifact, lists it, and revokes it (then it is a 404)', async () => {
    const { id, path } = await artifact('shared', ['# Shared words\n'])
    const page = await ownerPage()
    await page.goto(`${web.url}${path}/settings`)
    expect(await page.textContent('.share-links, .empty')).toContain('No share links yet.')
    await page.selectOption('#role', 'editor')
    await page.selectOption('#expiresIn', '7d')
    const [created] = await Promise.all([page.waitForNavigation(), page.click('text=Create share link')])
    expect(created?.status()).toBe(201)
    expect(created?.headers()['cache-control']).toBe('no-store')
    // The answer is the POST's own page: the secret is in no URL.
    expect(page.url()).toBe(`${web.url}${path}/settings/share-links`)
    const url = await page.inputValue('#share-url')
    expect(url).toMatch(new RegExp(`^${web.url}/s/qsl_[A-Za-z0-9_-]+$`))
    expect(await page.getAttribute('#share-url', 'readonly')).not.toBeNull()
    const links = (await api('GET', `/api/artifacts/${id}/share-links`)).items as {
      id: string
      role: string
      expiresAt: string
      status: string
    }[]
    expect(links).toHaveLength(1)
    expect(links[0]).toMatchObject({ role: 'editor', status: 'active' })
    const days = (Date.parse(links[0]?.expiresAt ?? '') - Date.now()) / 86_400_000
    expect(days).toBeGreaterThan(6.9)
    expect(days).toBeLessThan(7.1)
    // Shown once: the settings page lists the link, never its secret.
    await page.goto(`${web.url}${path}/settings`)
    const secret = url.split('/s/')[1] ?? ''
    expect(await page.content()).not.toContain(secret)
    expect(await page.textContent('.share-links')).toContain('Editor')
    expect(await page.textContent('.share-links')).toContain('Active')
    // The URL opens the private artifact in a browser that never signed in.
    const fresh = await sessions.fresh()
    const reader = await fresh.newPage()
    expect((await reader.goto(url))?.status()).toBe(200)
    expect(await reader.textContent('h1')).toContain('Title of shared')
    // Revoked: the list says so and the link opens nothing.
    expect(await submit(page, '.share-link form button')).toBe(200)
    expect(page.url()).toBe(`${web.url}${path}/settings?notice=link-revoked`)
    expect(await page.textContent('.share-links')).toContain('Revoked')
    expect(await page.locator('.share-link form').count()).toBe(0)
    expect(((await api('GET', `/api/artifacts/${id}/share-links`)).items as { status: string }[])[0]?.status).toBe('revoked')
    expect((await reader.goto(url))?.status()).toBe(404)
    await page.close()
  })
})

describe(`who sees the owner's controls, and who is refused (${testEngine})`, { timeout: browserTimeout() }, () => {
  it('shows them to the owner on the latest page and history only, never on a pinned page', async () => {
    const { path } = await artifact('controls', ['one\n', 'two\n'])
    const page = await ownerPage()
    await page.goto(`${web.url}${path}`)
    expect(await page.locator('.artifact-actions a').allTextContents()).toEqual([
      'Raw',
      'History',
      'Edit',
      'Settings & sharing',
      'Audit trail',
      'Delete',
    ])
    await page.goto(`${web.url}${path}?version=1`)
    expect(await page.locator('.artifact-actions a').allTextContents()).toEqual(['Raw', 'History'])
    const history = await page.goto(`${web.url}${path}/history`)
    expect(await page.locator('.artifact-actions a').allTextContents()).toEqual(['Edit', 'Settings & sharing', 'Audit trail', 'Delete'])
    // The page carries the person's CSRF token: never for a shared cache.
    expect(history?.headers()['cache-control']).toBe('private, no-cache')
    await page.close()
  })

  it('gives an allowlisted viewer no controls and refuses their forms and posts with 403, changing nothing', async () => {
    const { id, path } = await artifact('viewed', ['read only\n'], { viewerEmails: [VIEWER_EMAIL] })
    const context = await sessions.signedIn(VIEWER_EMAIL)
    const page = await context.newPage()
    expect((await page.goto(`${web.url}${path}`))?.status()).toBe(200)
    expect(await page.locator('.artifact-actions a').allTextContents()).toEqual(['Raw', 'History'])
    await page.goto(`${web.url}${path}/history`)
    expect(await page.locator('.artifact-actions, details.restore').count()).toBe(0)
    for (const form of ['edit', 'delete', 'settings']) expect((await page.goto(`${web.url}${path}/${form}`))?.status(), form).toBe(403)
    const csrf = await csrfTokenOf(context)
    const posts: [string, Record<string, string>][] = [
      ['edit', { content: 'hijacked\n', expectedLatestVersion: '1' }],
      ['restore', { version: '1', expectedLatestVersion: '1' }],
      ['delete', { confirm: 'viewed' }],
      ['settings/access', { publicView: 'on', viewerEmails: '' }],
      ['settings/share-links', { role: 'editor', expiresIn: 'never' }],
    ]
    for (const [form, fields] of posts) {
      const response = await context.request.post(`${web.url}${path}/${form}`, {
        form: { _csrf: csrf, ...fields },
        headers: { accept: 'text/html' },
      })
      expect(response.status(), form).toBe(403)
    }
    expect(await latest(id)).toMatchObject({ number: 1, content: 'read only\n' })
    expect(await api('GET', `/api/artifacts/${id}/access`)).toMatchObject({ publicView: false })
    expect((await api('GET', `/api/artifacts/${id}/share-links`)).items).toEqual([])
  })

  it('answers a stranger 404 everywhere, a public artifact’s forms 403, and changes nothing', async () => {
    const hidden = await artifact('hidden', ['secret\n'])
    const open = await artifact('open', ['public\n'], { publicView: true })
    const context = await sessions.signedIn(STRANGER_EMAIL)
    const page = await context.newPage()
    const csrf = await csrfTokenOf(context)
    for (const form of ['', '/edit', '/delete', '/settings']) {
      const response = await page.goto(`${web.url}${hidden.path}${form}`)
      expect(response?.status(), form).toBe(404)
      expect(await page.content(), form).not.toContain('Title of hidden')
    }
    for (const [form, fields] of [
      ['edit', { content: 'x\n', expectedLatestVersion: '1' }],
      ['delete', { confirm: 'hidden' }],
    ] as const) {
      expect((await context.request.post(`${web.url}${hidden.path}/${form}`, { form: { _csrf: csrf, ...fields } })).status(), form).toBe(
        404,
      )
      expect((await context.request.post(`${web.url}${open.path}/${form}`, { form: { _csrf: csrf, ...fields } })).status(), form).toBe(403)
    }
    await page.goto(`${web.url}${open.path}`)
    expect(await page.locator('.artifact-actions a').allTextContents()).toEqual(['Raw', 'History'])
    expect(await latest(hidden.id)).toMatchObject({ number: 1, content: 'secret\n' })
    expect(await latest(open.id)).toMatchObject({ number: 1, content: 'public\n' })
  })

  it('sends someone signed out to sign in and back, and refuses their posts', async () => {
    const { id, path } = await artifact('signed-out', ['x\n'], { publicView: true })
    for (const form of ['edit', 'delete', 'settings']) {
      const response = await fetch(`${web.url}${path}/${form}`, { redirect: 'manual', headers: { accept: 'text/html' } })
      expect(response.status, form).toBe(303)
      expect(response.headers.get('location'), form).toBe(`/login?return_to=${encodeURIComponent(`${path}/${form}`)}`)
    }
    const post = await fetch(`${web.url}${path}/edit`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
      body: new URLSearchParams({ content: 'anonymous\n', expectedLatestVersion: '1' }),
    })
    expect(post.status).toBe(401)
    // Signing in from the redirect lands on the form.
    const context = await sessions.fresh()
    const page = await context.newPage()
    await page.goto(`${web.url}${path}/edit`)
    await page.fill('#email', OWNER_EMAIL)
    await Promise.all([page.waitForURL(`${web.url}${path}/edit`), page.click('button[value="sign-in"]')])
    expect(await page.inputValue('#content')).toBe('x\n')
    expect((await latest(id)).number).toBe(1)
  })
})

describe(`CSRF (${testEngine})`, { timeout: browserTimeout() }, () => {
  it('refuses a post without the session’s token, or with another one, with 403 and nothing changed', async () => {
    const { id, path } = await artifact('csrf', ['kept\n'])
    for (const token of [undefined, 'not-the-token', await csrfTokenOf(await sessions.signedIn(STRANGER_EMAIL))]) {
      const form: Record<string, string> = { content: 'forged\n', expectedLatestVersion: '1', ...(token ? { _csrf: token } : {}) }
      const edit = await ownerContext.request.post(`${web.url}${path}/edit`, { form })
      expect(edit.status(), String(token)).toBe(403)
      const remove = await ownerContext.request.post(`${web.url}${path}/delete`, {
        form: { confirm: 'csrf', ...(token ? { _csrf: token } : {}) },
      })
      expect(remove.status(), String(token)).toBe(403)
    }
    expect(await latest(id)).toMatchObject({ number: 1, content: 'kept\n' })
    expect(await apiStatus('GET', `/api/artifacts/${id}`)).toBe(200)
  })

  it('a page on another origin that auto-submits a form to ours changes nothing', async () => {
    const { id, path } = await artifact('cross-site', ['stays\n'])
    const port = await freePort()
    const evil: Server = createServer((_request, response) => {
      response.setHeader('content-type', 'text/html; charset=utf-8')
      response.end(`<!doctype html><title>Win a prize</title>
<form method="post" action="${web.url}${path}/delete"><input type="hidden" name="confirm" value="cross-site"></form>
<form method="post" action="${web.url}${path}/edit"><input type="hidden" name="content" value="defaced"><input type="hidden" name="expectedLatestVersion" value="1"></form>
<script>document.forms[Number(location.hash.slice(1))].submit()</script>`)
    })
    await new Promise<void>((done) => evil.listen(port, '127.0.0.1', done))
    try {
      // Another site (localhost is not 127.0.0.1: no cookie goes along) and the same site on another port (the cookie goes, the token does not).
      for (const origin of [`http://localhost:${port}`, `http://127.0.0.1:${port}`]) {
        for (const [index, form] of ['delete', 'edit'].entries()) {
          const page = await ownerPage()
          const answered = page.waitForResponse((r) => r.url() === `${web.url}${path}/${form}` && r.request().method() === 'POST')
          await page.goto(`${origin}/#${index}`)
          const response = await answered
          expect([401, 403, 404], `${origin} ${form}`).toContain(response.status())
          await page.close()
        }
      }
    } finally {
      await new Promise((done) => evil.close(done))
    }
    expect(await latest(id)).toMatchObject({ number: 1, content: 'stays\n' })
    expect(await apiStatus('GET', `/api/artifacts/${id}`)).toBe(200)
  })
})

describe(`labels and accessibility of the forms (${testEngine})`, { timeout: browserTimeout() }, () => {
  it('labels every field and has no serious axe violation on the edit, conflict, delete, settings, created-link and history pages', async () => {
    const { id, path } = await artifact('a11y', ['one\n', 'two\n'])
    // axe is injected as a script, which the pages' CSP forbids: this context bypasses it.
    const context = await sessions.signedIn(OWNER_EMAIL, { bypassCSP: true })
    const page = await context.newPage()
    const check = async (name: string) => {
      expect(await unlabelled(page), name).toEqual([])
      expect(await seriousViolations(page), name).toEqual([])
    }
    await page.goto(`${web.url}${path}/edit`)
    await check('edit')
    await page.fill('#content', 'mine\n')
    await api('POST', `/api/artifacts/${id}/versions`, { content: 'theirs\n', expectedLatestVersion: 2 })
    await submit(page, 'form.owner-form button[type="submit"]')
    await check('conflict')
    await page.goto(`${web.url}${path}/delete`)
    await page.fill('#confirm', 'wrong')
    await submit(page, 'form.owner-form button.danger')
    await check('delete with an error')
    await page.goto(`${web.url}${path}/settings`)
    await check('settings')
    await page.fill('#viewerEmails', 'nope')
    await submit(page, 'text=Save access settings')
    await check('settings with an error')
    await submit(page, 'text=Create share link')
    await check('created link')
    await page.goto(`${web.url}${path}/history`)
    await page.click('#v1 details.restore summary')
    await check('history with a restore form open')
  })
})
