/**
 * Publishing from the browser, driven in a real Chromium signed in through the development
 * provider: a new project (its slug made from the title and checked as the person goes, a taken
 * one answered with free alternatives), a new artifact by paste and by upload (type, slug and
 * title from the file), a preview that renders the dry run and writes nothing, a file over the
 * limit or not text refused with the form kept, and access on create offered only where the
 * person may set it (and refused when posted anyway). Every outcome is checked over REST; the
 * forms work without JavaScript, are refused cross-site or without the CSRF token, and pass axe.
 */
import { testEngine } from '@quire/testing/test-database'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BrowserSessions, seriousViolations, submit, unlabelled } from './browser-forms.ts'
import { browserTimeout, launchChromium, startTestWeb, type TestWeb } from './helper.ts'
import { restCall, userWithKey } from './mcp-helper.ts'

const OWNER_EMAIL = 'publish.owner@example.com'
const MEMBER_EMAIL = 'publish.member@example.com'

let web: TestWeb
let owner: Awaited<ReturnType<typeof userWithKey>>
let member: Awaited<ReturnType<typeof userWithKey>>
let browser: Browser
let ownerContext: BrowserContext
let sessions: BrowserSessions

beforeAll(async () => {
  web = await startTestWeb({ api: true })
  owner = await userWithKey(web, OWNER_EMAIL)
  member = await userWithKey(web, MEMBER_EMAIL)
  await restCall(web, owner.token, 'POST', '/api/projects', { ownerUsername: owner.username, slug: 'guides', title: 'Guides', icon: 'G' })
  // A team workspace where the member may write but not change access.
  const team = await restCall(web, owner.token, 'POST', '/api/workspaces', { slug: 'publish-team', name: 'Publish team' })
  await restCall(web, owner.token, 'POST', '/api/projects', {
    ownerUsername: 'publish-team',
    slug: 'handbook',
    title: 'Handbook',
    icon: 'H',
  })
  const invitation = await restCall(web, owner.token, 'POST', `/api/workspaces/${team.id}/invitations`, {
    email: MEMBER_EMAIL,
    role: 'member',
  })
  await restCall(web, member.token, 'POST', `/api/workspace-invitations/${invitation.id}/accept`)
  browser = await launchChromium()
  sessions = new BrowserSessions(browser, web)
  ownerContext = await sessions.signedIn(OWNER_EMAIL)
}, browserTimeout())
afterAll(async () => {
  await sessions?.close()
  await browser?.close()
  await web?.close()
})

const publish = 'button[name="intent"][value="publish"]'
const preview = 'button[name="intent"][value="preview"]'
const check = 'button[name="intent"][value="check"]'

/** The slugs of a project's artifacts, over REST as the owner. */
async function artifactSlugs(project: string): Promise<string[]> {
  const page = await restCall(web, owner.token, 'GET', `/api/projects/${project}/artifacts?limit=100`)
  return (page.items as { slug: string }[]).map((a) => a.slug)
}

/** An artifact by path over REST: its metadata and latest content. */
async function artifactAt(path: string) {
  const meta = await restCall(web, owner.token, 'GET', `/api/by-path${path}`)
  const content = await restCall(web, owner.token, 'GET', `/api/artifacts/${meta.id}/content`)
  return { ...meta, content: content.content } as unknown as Record<string, unknown> & { access: { publicView: boolean } }
}

/** Serious and critical axe violations, and fields without a label. */
async function problems(page: Page): Promise<string[]> {
  return [...(await seriousViolations(page)), ...(await unlabelled(page)).map((field) => `unlabelled ${field}`)]
}

describe(`a new project from the browser (${testEngine})`, { timeout: browserTimeout() }, () => {
  it('is reached from the owner page, proposes the slug from the title, checks it, and opens the new project', async () => {
    const page = await ownerContext.newPage()
    await page.goto(`${web.url}/${owner.username}`)
    await Promise.all([page.waitForNavigation(), page.click('a:has-text("New project")')])
    expect(new URL(page.url()).pathname).toBe('/new/project')
    expect(await page.inputValue('#owner')).toBe(owner.username)
    await page.fill('#title', 'Status Reports')
    expect(await submit(page, check)).toBe(200)
    expect(await page.inputValue('#slug')).toBe('status-reports')
    expect(await page.textContent('.slug-result.free')).toContain(`/${owner.username}/status-reports`)
    await page.fill('#icon', '📊')
    await page.fill('#description', 'Weekly status, one artifact a week.')
    expect(await submit(page, 'button[name="intent"][value="create"]')).toBe(200)
    expect(page.url()).toBe(`${web.url}/${owner.username}/status-reports?notice=project-created`)
    expect(await page.textContent('.notice.success')).toContain('Project created.')
    const project = await restCall(web, owner.token, 'GET', `/api/by-path/${owner.username}/status-reports`)
    expect(project).toMatchObject({ title: 'Status Reports', icon: '📊', description: 'Weekly status, one artifact a week.' })
    await page.close()
  })

  it('answers a taken slug with free alternatives, takes one with a click, and keeps everything typed', async () => {
    const page = await ownerContext.newPage()
    await page.goto(`${web.url}/new/project`)
    await page.fill('#title', 'Guides for agents')
    await page.fill('#slug', 'guides')
    await page.fill('#description', 'Kept across the refusal.')
    // Creating with a taken slug: refused, nothing written, the form as typed with the alternatives.
    expect(await submit(page, 'button[name="intent"][value="create"]')).toBe(409)
    expect(await page.textContent('#slug-error')).toContain('already exists')
    expect(await page.textContent('.slug-result.refused')).toContain('guides is taken')
    const alternatives = await page
      .locator('.slug-alternatives button')
      .evaluateAll((buttons) => buttons.map((b) => (b as HTMLButtonElement).value))
    expect(alternatives.length).toBeGreaterThan(0)
    expect(alternatives[0]).toBe('guides-for-agents')
    expect(await page.inputValue('#title')).toBe('Guides for agents')
    expect(await page.inputValue('#description')).toBe('Kept across the refusal.')
    // One click takes the alternative and checks it.
    expect(await submit(page, `.slug-alternatives button[value="${alternatives[0]}"]`)).toBe(200)
    expect(await page.inputValue('#slug')).toBe(alternatives[0])
    expect(await page.textContent('.slug-result.free')).toContain(`${alternatives[0]}`)
    expect(await submit(page, 'button[name="intent"][value="create"]')).toBe(200)
    expect(new URL(page.url()).pathname).toBe(`/${owner.username}/${alternatives[0]}`)
    await page.close()
  })
})

describe(`a new artifact from the browser (${testEngine})`, { timeout: browserTimeout() }, () => {
  it('by paste: from the project page, previewed rendered without writing, then published and shared', async () => {
    const page = await ownerContext.newPage()
    await page.goto(`${web.url}/${owner.username}/guides`)
    await Promise.all([page.waitForNavigation(), page.click('a:has-text("New artifact")')])
    expect(await page.inputValue('#project')).toBe(`${owner.username}/guides`)
    await page.fill('#title', 'Deploy checklist')
    await page.fill('#content', '# Deploy checklist\n\n- [ ] Tag the release\n- [ ] Run **migrations**\n')
    await page.fill('#changelog', 'First draft')
    expect(await submit(page, preview)).toBe(200)
    // The rendered document, and nothing written.
    expect(await page.textContent('.preview h1')).toContain('Deploy checklist')
    expect(await page.textContent('.preview strong')).toBe('migrations')
    expect(await artifactSlugs(`${owner.username}/guides`)).not.toContain('deploy-checklist')
    // Everything typed is still there.
    expect(await page.inputValue('#title')).toBe('Deploy checklist')
    expect(await page.inputValue('#slug')).toBe('deploy-checklist')
    expect(await page.inputValue('#changelog')).toBe('First draft')
    expect(await page.inputValue('#content')).toContain('Run **migrations**')
    // Shared as it is published: public, and one viewer by email.
    await page.check('#publicView')
    await page.fill('#viewerEmails', 'reader@example.com')
    expect(await submit(page, publish)).toBe(200)
    expect(page.url()).toBe(`${web.url}/${owner.username}/guides/deploy-checklist?notice=published`)
    expect(await page.textContent('.notice.success')).toContain('Published')
    const created = await artifactAt(`/${owner.username}/guides/deploy-checklist`)
    expect(created).toMatchObject({ title: 'Deploy checklist', type: 'md', latestVersion: 1, access: { publicView: true } })
    expect(created.content).toBe('# Deploy checklist\n\n- [ ] Tag the release\n- [ ] Run **migrations**\n')
    const access = await restCall(web, owner.token, 'GET', `/api/artifacts/${created.id}/access`)
    expect(access.viewerEmails).toEqual(['reader@example.com'])
    // Publicly readable, signed out.
    expect((await fetch(`${web.url}/${owner.username}/guides/deploy-checklist`)).status).toBe(200)
    await page.close()
  })

  it('by upload, without JavaScript: the type, slug and title come from the file', async () => {
    const context = await sessions.signedIn(OWNER_EMAIL, { javaScriptEnabled: false })
    const page = await context.newPage()
    await page.goto(`${web.url}/new?project=${owner.username}/guides`)
    await page.setInputFiles('#file', {
      name: 'Release notes.md',
      mimeType: 'text/markdown',
      buffer: Buffer.from('\uFEFF# Release 2.0\n\nFaster sync.\n'),
    })
    expect(await submit(page, preview)).toBe(200)
    // The file's text is now in the box, with what was made from it.
    expect(await page.inputValue('#content')).toBe('# Release 2.0\n\nFaster sync.\n')
    expect(await page.inputValue('#type')).toBe('md')
    expect(await page.inputValue('#slug')).toBe('release-notes')
    expect(await page.inputValue('#title')).toBe('Release 2.0')
    expect(await page.textContent('#content-hint')).toContain('Release notes.md')
    expect(await page.textContent('.preview h1')).toContain('Release 2.0')
    expect(await submit(page, publish)).toBe(200)
    expect(new URL(page.url()).pathname).toBe(`/${owner.username}/guides/release-notes`)
    expect(await artifactAt(`/${owner.username}/guides/release-notes`)).toMatchObject({
      type: 'md',
      title: 'Release 2.0',
      content: '# Release 2.0\n\nFaster sync.\n',
    })
    // A CSV straight to Publish: its type from the extension.
    await page.goto(`${web.url}/new?project=${owner.username}/guides`)
    await page.setInputFiles('#file', { name: 'prices.csv', mimeType: 'text/csv', buffer: Buffer.from('item,price\ntea,3\n') })
    expect(await submit(page, publish)).toBe(200)
    expect(await artifactAt(`/${owner.username}/guides/prices`)).toMatchObject({ type: 'csv', title: 'prices.csv' })
    await page.close()
  })

  it('refuses a file over the limit, or not text, naming it, with the form kept and nothing written', async () => {
    const page = await ownerContext.newPage()
    await page.goto(`${web.url}/new?project=${owner.username}/guides`)
    const limit = web.runtime.deps.config.limits.contentBytes
    await page.fill('#title', 'Too big')
    await page.fill('#description', 'Typed before choosing the file.')
    await page.fill('#content', 'typed text stays\n')
    await page.setInputFiles('#file', { name: 'huge.md', mimeType: 'text/markdown', buffer: Buffer.alloc(limit + 10, 'a') })
    expect(await submit(page, publish)).toBe(413)
    expect(await page.textContent('#file-error')).toContain(`huge.md is larger than ${limit.toLocaleString('en')} bytes`)
    expect(await page.textContent('.error-summary')).toContain('Nothing was published')
    expect(await page.inputValue('#title')).toBe('Too big')
    expect(await page.inputValue('#description')).toBe('Typed before choosing the file.')
    expect(await page.inputValue('#content')).toBe('typed text stays\n')
    await page.setInputFiles('#file', {
      name: 'photo.md',
      mimeType: 'image/png',
      buffer: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff]),
    })
    expect(await submit(page, publish)).toBe(400)
    expect(await page.textContent('#file-error')).toContain('photo.md is not UTF-8 text')
    expect(await artifactSlugs(`${owner.username}/guides`)).not.toContain('too-big')
    // Typed text over the limit: refused on the content, the text kept to be cut down.
    await page.fill('#content', 'b'.repeat(limit + 1))
    expect(await submit(page, preview)).toBe(413)
    expect(await page.textContent('#content-error')).toContain(`the limit is ${limit} bytes`)
    expect((await page.inputValue('#content')).length).toBe(limit + 1)
    await page.close()
  })

  it('a taken slug is answered with free alternatives', async () => {
    const page = await ownerContext.newPage()
    await page.goto(`${web.url}/new?project=${owner.username}/guides`)
    await page.fill('#title', 'Deploy checklist v2')
    await page.fill('#slug', 'deploy-checklist')
    await page.fill('#content', 'second\n')
    expect(await submit(page, publish)).toBe(409)
    expect(await page.textContent('.slug-result.refused')).toContain('deploy-checklist is taken')
    const first = await page.locator('.slug-alternatives button').first().getAttribute('value')
    expect(first).toBe('deploy-checklist-v2')
    expect(await page.inputValue('#content')).toBe('second\n')
    expect(await submit(page, '.slug-alternatives button >> nth=0')).toBe(200)
    expect(await page.inputValue('#slug')).toBe('deploy-checklist-v2')
    expect(await page.locator('.slug-result.free').count()).toBe(1)
  })

  it('a member who may not set access is not offered the fields, and is refused when posting them anyway', async () => {
    const context = await sessions.signedIn(MEMBER_EMAIL)
    const page = await context.newPage()
    await page.goto(`${web.url}/publish-team/handbook`)
    await Promise.all([page.waitForNavigation(), page.click('a:has-text("New artifact")')])
    expect(await page.inputValue('#project')).toBe('publish-team/handbook')
    expect(await page.locator('#publicView, #publicEdit, #viewerEmails').count()).toBe(0)
    expect(await page.textContent('.access-note')).toContain('starts private')
    await page.fill('#title', 'Onboarding')
    await page.fill('#content', '# Onboarding\n')
    // Posted anyway (a crafted form): refused as the API refuses it, nothing written.
    await page.evaluate(() => {
      const field = document.createElement('input')
      field.type = 'hidden'
      field.name = 'publicView'
      field.value = 'on'
      document.querySelector('form.owner-form')?.append(field)
    })
    expect(await submit(page, publish)).toBe(403)
    expect(await page.textContent('#access-error')).toContain('right to change access')
    expect(await page.inputValue('#title')).toBe('Onboarding')
    expect(await artifactSlugs('publish-team/handbook')).toEqual([])
    // Without it, the member publishes (private).
    await page.evaluate(() => document.querySelector('input[name="publicView"]')?.remove())
    expect(await submit(page, publish)).toBe(200)
    expect(await artifactAt('/publish-team/handbook/onboarding')).toMatchObject({ access: { publicView: false }, title: 'Onboarding' })
    await page.close()
  })

  it('without a session token or from another site, a post publishes nothing', async () => {
    const multipart = { project: `${owner.username}/guides`, title: 'Forged', content: 'forged\n', intent: 'publish' }
    const missing = await ownerContext.request.post(`${web.url}/new`, { multipart })
    expect(missing.status()).toBe(403)
    const body = await ownerContext.request.get(`${web.url}/new`)
    const token = /name="_csrf" value="([^"]+)"/.exec(await body.text())?.[1] ?? ''
    expect(token).not.toBe('')
    const crossSite = await ownerContext.request.post(`${web.url}/new`, {
      multipart: { ...multipart, _csrf: token },
      headers: { 'sec-fetch-site': 'cross-site' },
    })
    expect(crossSite.status()).toBe(403)
    expect(await crossSite.text()).toContain('sent from another site')
    const project = await ownerContext.request.post(`${web.url}/new/project`, {
      form: { owner: owner.username, title: 'Forged', slug: 'forged', icon: 'F' },
    })
    expect(project.status()).toBe(403)
    expect(await artifactSlugs(`${owner.username}/guides`)).not.toContain('forged')
    const projects = await restCall(web, owner.token, 'GET', '/api/profile/projects?limit=100')
    expect((projects.items as { slug: string }[]).map((p) => p.slug)).not.toContain('forged')
  })

  it('a signed-out visitor is sent to sign in and brought back', async () => {
    for (const path of ['/new', '/new/project']) {
      const response = await fetch(`${web.url}${path}`, { redirect: 'manual' })
      expect(response.status, path).toBe(303)
      expect(response.headers.get('location'), path).toBe(`/login?return_to=${encodeURIComponent(path)}`)
    }
  })
})

describe(`a first visit (${testEngine})`, { timeout: browserTimeout() }, () => {
  it('a person signed in for the first time publishes a document and shares it, never leaving the browser', async () => {
    const context = await sessions.signedIn('first.visit@example.com')
    const page = await context.newPage()
    await page.goto(`${web.url}/`)
    expect(await page.textContent('#start-heading')).toBe('Start with a project')
    await Promise.all([page.waitForNavigation(), page.click('.home-start a.button:has-text("New project")')])
    await page.fill('#title', 'Notes')
    expect(await submit(page, 'button[name="intent"][value="create"]')).toBe(200)
    await Promise.all([page.waitForNavigation(), page.click('a:has-text("New artifact")')])
    await page.fill('#title', 'Hello')
    await page.fill('#content', '# Hello\n\nFirst words.\n')
    await page.fill('#viewerEmails', 'friend@example.com')
    expect(await submit(page, publish)).toBe(200)
    const path = new URL(page.url()).pathname
    expect(await page.textContent('.document h1')).toContain('Hello')
    // The friend signs in with that address and reads it; a stranger does not.
    const friend = await (await sessions.signedIn('friend@example.com')).newPage()
    expect((await friend.goto(`${web.url}${path}`))?.status()).toBe(200)
    expect(await friend.textContent('.document')).toContain('First words.')
    const stranger = await (await sessions.signedIn('stranger.first@example.com')).newPage()
    expect((await stranger.goto(`${web.url}${path}`))?.status()).toBe(404)
  })
})

describe(`labels and accessibility of the create forms (${testEngine})`, { timeout: browserTimeout() }, () => {
  it('labels every field and has no serious axe violation, fresh, checked, previewed and refused', async () => {
    const context = await sessions.signedIn(OWNER_EMAIL, { bypassCSP: true })
    const page = await context.newPage()
    await page.goto(`${web.url}/new/project`)
    expect(await problems(page), 'new project').toEqual([])
    await page.fill('#title', 'Guides')
    await submit(page, check)
    expect(await problems(page), 'new project, slug taken').toEqual([])
    await page.goto(`${web.url}/new`)
    expect(await problems(page), 'new artifact').toEqual([])
    await page.fill('#title', 'A11y')
    await page.fill('#content', '# Heading\n\nText.\n')
    await submit(page, preview)
    expect(await problems(page), 'new artifact, previewed').toEqual([])
    await page.fill('#title', '')
    await page.fill('#slug', 'Not A Slug')
    await submit(page, publish)
    expect(await problems(page), 'new artifact, refused').toEqual([])
    await page.close()
  })
})
