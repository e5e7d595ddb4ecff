/**
 * Preview before saving, on the new-version form, in a real Chromium signed in through the
 * development provider. Preview runs `appendVersion` as a dry run: the text comes back rendered as
 * its artifact page renders it, with the diff from the latest version, in a frame that says
 * nothing is saved; the form keeps everything typed. Nothing is written (no version, no audit
 * event, not a byte of the database), and whatever the save would refuse (a conflict, a limit,
 * a person who may not write, a post without the CSRF token) the preview refuses the same way.
 */
import { testEngine } from '@quire/testing/test-database'
import type { Browser, BrowserContext } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BrowserSessions, submit } from './browser-forms.ts'
import { browserTimeout, databaseDump, launchChromium, startTestWeb, type TestWeb } from './helper.ts'
import { restCall, userWithKey } from './mcp-helper.ts'

const OWNER_EMAIL = 'preview.owner@example.com'
const VIEWER_EMAIL = 'preview.viewer@example.com'
const STRANGER_EMAIL = 'preview.stranger@example.com'

let web: TestWeb
let owner: Awaited<ReturnType<typeof userWithKey>>
let browser: Browser
let sessions: BrowserSessions
let ownerContext: BrowserContext

beforeAll(async () => {
  web = await startTestWeb({ api: true })
  owner = await userWithKey(web, OWNER_EMAIL)
  await api('POST', '/api/projects', { ownerUsername: owner.username, slug: 'drafts', title: 'Drafts', icon: 'D' })
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

/** A private Markdown artifact (readable by `viewers`, or public) with these versions in order. */
async function artifact(slug: string, versions: readonly string[], access: { viewerEmails?: string[]; publicView?: boolean } = {}) {
  const [first, ...rest] = versions
  const created = await api('POST', '/api/artifacts', {
    ownerUsername: owner.username,
    projectSlug: 'drafts',
    slug,
    type: 'md',
    title: `Title of ${slug}`,
    content: first,
    changelog: 'first',
    access: { publicView: access.publicView ?? false, publicEdit: false, viewerEmails: access.viewerEmails ?? [] },
  })
  const id = created.id as string
  for (const [i, content] of rest.entries()) await api('POST', `/api/artifacts/${id}/versions`, { content, expectedLatestVersion: i + 1 })
  return { id, path: `/${owner.username}/drafts/${slug}` }
}

/** What a write would change, read over REST: the versions (number, content) and the artifact's audit trail. */
async function stored(id: string) {
  const versions = (await api('GET', `/api/artifacts/${id}/versions`)).items as { versionNumber: number }[]
  const content = (await api('GET', `/api/artifacts/${id}/content`)).content as string
  const audit = (await api('GET', `/api/audit-events?artifactId=${id}`)).items as { action: string }[]
  return { versions: versions.map((v) => v.versionNumber), content, audit: audit.map((e) => e.action) }
}

/** The CSRF token of a signed-in context's session, as its pages carry it. */
async function csrfTokenOf(context: BrowserContext): Promise<string> {
  const body = await (await context.request.get(`${web.url}/`)).text()
  const token = /name="_csrf" value="([^"]+)"/.exec(body)?.[1]
  if (!token) throw new Error('no CSRF token on the home page')
  return token
}

const PREVIEW = 'form.owner-form button[value="preview"]'
const SAVE = 'form.owner-form button:not([value="preview"])'

describe(`preview on the new-version form (${testEngine})`, { timeout: browserTimeout() }, () => {
  it('renders the Markdown and the diff from the latest, keeps every field, and writes nothing', async () => {
    const { id, path } = await artifact('render', ['# Old title\n\nKept line.\n'])
    const before = await stored(id)
    const page = await ownerContext.newPage()
    await page.goto(`${web.url}${path}/edit`)
    expect(await page.locator('.preview').count()).toBe(0)
    await page.fill('#content', '# New title\n\nKept line.\n\n- **bold** item\n- [link](https://example.com/)\n')
    await page.fill('#changelog', 'Retitle & <list>')
    const dumped = await databaseDump(web)
    expect(await submit(page, PREVIEW)).toBe(200)
    // The answer is the form's own page, opened at the preview.
    expect(new URL(page.url()).pathname).toBe(`${path}/edit`)
    expect(new URL(page.url()).hash).toBe('#preview')
    expect(await page.title()).toBe('Preview of version 2 of Title of render · Quire')
    expect(await page.textContent('.preview-label')).toBe('Preview — not saved')
    expect(await page.textContent('.preview h2#preview-heading')).toBe('Version 2 of Title of render')
    // The Markdown, rendered into real elements in the artifact page's document frame.
    expect(await page.textContent('.preview .document.document-md h1')).toBe('New title')
    expect(await page.textContent('.preview .document li strong')).toBe('bold')
    expect(await page.getAttribute('.preview .document li a', 'href')).toBe('https://example.com/')
    // The diff from version 1, in the diff page's table, with its stat.
    expect(await page.locator('.preview-changes tr.del .code').allTextContents()).toEqual(['− # Old title'])
    expect(await page.locator('.preview-changes tr.add .code').allTextContents()).toEqual([
      '+ # New title',
      '+ ',
      '+ - **bold** item',
      '+ - [link](https://example.com/)',
    ])
    expect(await page.textContent('.preview-changes h3')).toMatch(/Changes from version 1\s+\+4 lines added\s+−1 line removed/)
    // Everything typed is kept, and the form is still based on version 1.
    expect(await page.inputValue('#content')).toBe('# New title\n\nKept line.\n\n- **bold** item\n- [link](https://example.com/)\n')
    expect(await page.inputValue('#changelog')).toBe('Retitle & <list>')
    expect(await page.inputValue('input[name="expectedLatestVersion"]')).toBe('1')
    expect(await page.inputValue('input[name="newline"]')).toBe('lf')
    expect(await page.textContent(SAVE)).toBe('Save version 2')
    // Nothing written: no version, no audit event, not a byte of the database.
    expect(await databaseDump(web)).toBe(dumped)
    expect(await stored(id)).toEqual(before)
    await page.close()
  })

  it('says “No changes from version N” when the text is the latest, and keeps CRLF newlines', async () => {
    const { id, path } = await artifact('same', ['one\r\ntwo\r\n', 'one\r\ntwo\r\nthree\r\n'])
    const page = await ownerContext.newPage()
    await page.goto(`${web.url}${path}/edit`)
    expect(await submit(page, PREVIEW)).toBe(200)
    expect(await page.textContent('.preview-changes')).toContain('No changes from version 2: the content is the same.')
    expect(await page.locator('.preview-changes table').count()).toBe(0)
    expect(await page.inputValue('input[name="newline"]')).toBe('crlf')
    // The textarea sends CRLF whatever the document uses: the preview compares the document's own text.
    await page.fill('#content', 'one\ntwo\nthree\nfour\n')
    expect(await submit(page, PREVIEW)).toBe(200)
    expect(await page.locator('.preview-changes tr.add .code').allTextContents()).toEqual(['+ four'])
    expect(await page.locator('.preview-changes tr.del').count()).toBe(0)
    expect((await stored(id)).versions).toEqual([2, 1])
    await page.close()
  })

  it('keeps the page’s own ids: a heading “Content” does not take the form’s field, and its anchors still work', async () => {
    const { path } = await artifact('ids', ['x\n'])
    const page = await ownerContext.newPage()
    await page.goto(`${web.url}${path}/edit`)
    await page.fill('#content', '# Content\n\n## Changelog\n\nSee [the changelog](#changelog).\n')
    expect(await submit(page, PREVIEW)).toBe(200)
    expect(await page.evaluate(() => document.getElementById('content')?.tagName)).toBe('TEXTAREA')
    expect(await page.evaluate(() => document.getElementById('changelog')?.tagName)).toBe('INPUT')
    expect(await page.getAttribute('.preview .document h1', 'id')).toBe('preview-doc-content')
    expect(await page.getAttribute('.preview .document p a', 'href')).toBe('#preview-doc-changelog')
    expect(await page.getAttribute('.preview .document h2', 'id')).toBe('preview-doc-changelog')
    // The label still names the textarea.
    await page.click('label[for="content"]')
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('content')
    // The document's own link reaches its heading.
    await page.click('.preview .document p a')
    expect(new URL(page.url()).hash).toBe('#preview-doc-changelog')
    await page.close()
  })

  it('shows the conflict when someone saved meanwhile, keeping the text, and writes nothing', async () => {
    const { id, path } = await artifact('race', ['alpha\nbeta\n'])
    const page = await ownerContext.newPage()
    await page.goto(`${web.url}${path}/edit`)
    await page.fill('#content', 'alpha\nbeta\nmine\n')
    await page.fill('#changelog', 'Mine')
    await api('POST', `/api/artifacts/${id}/versions`, { content: 'alpha\nTHEIRS\n', expectedLatestVersion: 1 })
    const before = await stored(id)
    expect(await submit(page, PREVIEW)).toBe(409)
    expect(await page.locator('.preview').count()).toBe(0)
    expect(await page.textContent('.conflict')).toContain('You started from version 1; the artifact is now at version 2.')
    expect(await page.locator('.conflict tr.add .code').allTextContents()).toEqual(['+ THEIRS'])
    expect(await page.inputValue('#content')).toBe('alpha\nbeta\nmine\n')
    expect(await page.inputValue('#changelog')).toBe('Mine')
    expect(await page.inputValue('input[name="expectedLatestVersion"]')).toBe('2')
    expect(await stored(id)).toEqual(before)
    // Previewing again, now on version 2, goes through and diffs against it.
    expect(await submit(page, PREVIEW)).toBe(200)
    expect(await page.locator('.preview-changes tr.del .code').allTextContents()).toEqual(['− THEIRS'])
    expect(await stored(id)).toEqual(before)
    await page.close()
  })

  it('refuses too large a text or too long a changelog as the save does, beside the field, writing nothing', async () => {
    const { id, path } = await artifact('limits', ['small\n'])
    const before = await stored(id)
    const page = await ownerContext.newPage()
    await page.goto(`${web.url}${path}/edit`)
    const huge = `${'x'.repeat(80)}\n`.repeat(13_500) // about 1.1 MB, over the 1 MiB limit
    await page.$eval(
      '#content',
      (field, text) => {
        ;(field as HTMLTextAreaElement).value = text
      },
      huge,
    )
    expect(await submit(page, PREVIEW)).toBe(413)
    expect(await page.textContent('#content-error')).toContain('the limit is 1048576 bytes')
    expect(await page.locator('.preview').count()).toBe(0)
    expect((await page.inputValue('#content')).length).toBe(huge.length)
    await page.fill('#content', 'kept\n')
    await page.$eval('#changelog', (field) => field.removeAttribute('maxlength'))
    await page.fill('#changelog', 'c'.repeat(2001))
    expect(await submit(page, PREVIEW)).toBe(400)
    expect(await page.textContent('#changelog-error')).toMatch(/2000/)
    expect(await page.inputValue('#content')).toBe('kept\n')
    expect(await stored(id)).toEqual(before)
    await page.close()
  })

  it('renders the preview without touching the documents cache: the artifact page still shows the saved version', async () => {
    const { path } = await artifact('cache', ['# Saved words\n'], { publicView: true })
    const reader = await sessions.fresh()
    const readerPage = await reader.newPage()
    await readerPage.goto(`${web.url}${path}`)
    expect(await readerPage.textContent('.document h1')).toBe('Saved words')
    const page = await ownerContext.newPage()
    await page.goto(`${web.url}${path}/edit`)
    await page.fill('#content', '# Previewed words\n')
    const answer = await Promise.all([page.waitForNavigation(), page.click(PREVIEW)]).then(([response]) => response)
    // The preview may show the https images a document links, as its page does; still no script.
    expect(answer?.headers()['content-security-policy']).toContain("img-src 'self' data: https:")
    expect(answer?.headers()['content-security-policy']).toContain("script-src 'none'")
    expect(answer?.headers()['cache-control']).toBe('no-store')
    await readerPage.reload()
    expect(await readerPage.textContent('.document h1')).toBe('Saved words')
    await page.close()
  })
})

describe(`who may preview (${testEngine})`, { timeout: browserTimeout() }, () => {
  /** Posts the form as `context` would (with its CSRF token unless told otherwise), as Save or as Preview. */
  const post = (context: BrowserContext, path: string, fields: Record<string, string>) =>
    context.request.post(`${web.url}${path}/edit`, { form: fields, headers: { accept: 'text/html' }, maxRedirects: 0 })

  it('refuses a preview without the session’s CSRF token (or with another) with 403, as any post', async () => {
    const { id, path } = await artifact('csrf', ['kept\n'])
    const before = await stored(id)
    const stranger = await csrfTokenOf(await sessions.signedIn(STRANGER_EMAIL))
    for (const token of [undefined, 'not-the-token', stranger]) {
      const fields = { content: '# forged\n', expectedLatestVersion: '1', intent: 'preview', ...(token ? { _csrf: token } : {}) }
      const response = await post(ownerContext, path, fields)
      expect(response.status(), String(token)).toBe(403)
      expect(await response.text(), String(token)).not.toContain('forged')
    }
    expect(await stored(id)).toEqual(before)
  })

  it('gives whoever may not update the same refusal as the save: a viewer 403, a stranger 404, someone signed out 401 (404 where the artifact is private)', async () => {
    const hidden = await artifact('hidden', ['secret\n'], { viewerEmails: [VIEWER_EMAIL] })
    const viewer = await sessions.signedIn(VIEWER_EMAIL)
    const stranger = await sessions.signedIn(STRANGER_EMAIL)
    const before = await stored(hidden.id)
    const cases: [string, BrowserContext, number][] = [
      ['viewer', viewer, 403],
      ['stranger', stranger, 404],
    ]
    for (const [who, context, status] of cases) {
      const csrf = await csrfTokenOf(context)
      const fields = { _csrf: csrf, content: '# mine\n', expectedLatestVersion: '1' }
      const save = await post(context, hidden.path, fields)
      const preview = await post(context, hidden.path, { ...fields, intent: 'preview' })
      expect(save.status(), who).toBe(status)
      expect(preview.status(), who).toBe(status)
      const page = await preview.text()
      expect(page, who).not.toContain('secret')
      expect(page, who).not.toContain('Preview — not saved')
    }
    // Someone signed out: a public artifact's form asks for a sign-in, a private one's is not there.
    const open = await artifact('open', ['public\n'], { publicView: true })
    const anonymous = async (path: string, fields: Record<string, string>) => {
      const response = await fetch(`${web.url}${path}/edit`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
        body: new URLSearchParams({ content: '# mine\n', expectedLatestVersion: '1', ...fields }),
        redirect: 'manual',
      })
      await response.arrayBuffer()
      return response.status
    }
    for (const [target, status] of [
      [open.path, 401],
      [hidden.path, 404],
    ] as const) {
      expect(await anonymous(target, {}), target).toBe(status)
      expect(await anonymous(target, { intent: 'preview' }), target).toBe(status)
    }
    expect((await stored(open.id)).versions).toEqual([1])
    expect(await stored(hidden.id)).toEqual(before)
  })

  it('previews without JavaScript', async () => {
    const { id, path } = await artifact('no-script', ['before\n'])
    const context = await sessions.signedIn(OWNER_EMAIL, { javaScriptEnabled: false })
    const page = await context.newPage()
    await page.goto(`${web.url}${path}/edit`)
    await page.fill('#content', '## Written without script\n')
    expect(await submit(page, PREVIEW)).toBe(200)
    expect(await page.textContent('.preview .document h2')).toBe('Written without script')
    expect((await stored(id)).versions).toEqual([1])
  })
})

describe(`preview, then save (${testEngine})`, { timeout: browserTimeout() }, () => {
  it('fills the textarea, previews the heading and the diff, then saves and lands on the new version', async () => {
    const { id, path } = await artifact('flow', ['# Draft\n\nFirst words.\n'])
    const page = await ownerContext.newPage()
    await page.goto(`${web.url}${path}`)
    await Promise.all([page.waitForURL(/\/edit$/), page.click('.artifact-actions a:text-is("Edit")')])
    await page.fill('#content', '# Final\n\nFirst words.\nMore words.\n')
    await page.fill('#changelog', 'Finish it')
    expect(await submit(page, PREVIEW)).toBe(200)
    await expect.poll(() => page.locator('.preview .document h1').textContent()).toBe('Final')
    expect(await page.locator('.preview .document h1').isVisible()).toBe(true)
    expect(await page.locator('.preview-changes tr.add .code').allTextContents()).toEqual(['+ # Final', '+ More words.'])
    expect(await page.locator('.preview-changes tr.del .code').allTextContents()).toEqual(['− # Draft'])
    expect(await page.textContent('.preview-stat')).toMatch(/^Changes from version 1\s+\+2 lines added\s+−1 line removed$/)
    expect((await stored(id)).versions).toEqual([1])
    expect(await submit(page, SAVE)).toBe(200)
    expect(page.url()).toBe(`${web.url}${path}?notice=saved`)
    expect(await page.textContent('.artifact-head .meta')).toContain('Version 2 of 2')
    expect(await page.textContent('.document h1')).toBe('Final')
    const saved = await stored(id)
    expect(saved.versions).toEqual([2, 1])
    expect(saved.content).toBe('# Final\n\nFirst words.\nMore words.\n')
    expect(saved.audit.filter((action) => action === 'artifact.version_created')).toHaveLength(1)
    await page.close()
  })

  it('saves on Enter in the changelog even after a preview: Save is the form’s first, default button', async () => {
    const { id, path } = await artifact('enter', ['one\n'])
    const page = await ownerContext.newPage()
    await page.goto(`${web.url}${path}/edit`)
    await page.fill('#content', 'one\ntwo\n')
    expect(await submit(page, PREVIEW)).toBe(200)
    await page.focus('#changelog')
    await page.keyboard.type('By Enter')
    const [landed] = await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')])
    expect(landed?.status()).toBe(200)
    expect(page.url()).toBe(`${web.url}${path}?notice=saved`)
    expect(await stored(id)).toMatchObject({ versions: [2, 1], content: 'one\ntwo\n' })
    await page.close()
  })
})
