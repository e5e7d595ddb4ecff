/**
 * Search from the browser, in a real Chromium signed in through the development provider, against
 * the real `searchArtifacts` on this test's engine. A person publishes over REST, searches from
 * the header's box (reached with the keyboard), sees the right document first with its matches
 * marked, and follows the link; an older version is found with "older versions too" and linked as
 * that version; more results are a plain link. A stranger's search lists none of it, even what is
 * public. A query with nothing to find is answered with what to try, a refused one beside the box
 * (400, the form kept); signed out, the page asks to sign in first. Every state passes axe, every
 * field is labelled, and the header keeps to a phone's width.
 */
import { testEngine } from '@quire/testing/test-database'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BrowserSessions, seriousViolations, submit, unlabelled } from './browser-forms.ts'
import { browserTimeout, launchChromium, startTestWeb, type TestWeb } from './helper.ts'
import { restCall, userWithKey } from './mcp-helper.ts'

const OWNER_EMAIL = 'search.owner@example.com'
const STRANGER_EMAIL = 'search.stranger@example.com'
/** More than one page of the search page's results (20). */
const MANY = 23

let web: TestWeb
let owner: Awaited<ReturnType<typeof userWithKey>>
let browser: Browser
let ownerContext: BrowserContext
let strangerContext: BrowserContext
let sessions: BrowserSessions

/** Publishes a Markdown document in the owner's `runbooks` project over REST. */
async function publish(slug: string, title: string, content: string, publicView = false): Promise<{ id: string }> {
  return (await restCall(web, owner.token, 'POST', '/api/artifacts', {
    ownerUsername: owner.username,
    projectSlug: 'runbooks',
    slug,
    type: 'md',
    title,
    content,
    changelog: 'first',
    access: { publicView, publicEdit: false },
  })) as { id: string }
}

beforeAll(async () => {
  web = await startTestWeb({ api: true })
  owner = await userWithKey(web, OWNER_EMAIL)
  await userWithKey(web, STRANGER_EMAIL)
  await restCall(web, owner.token, 'POST', '/api/projects', {
    ownerUsername: owner.username,
    slug: 'runbooks',
    title: 'Runbooks',
    icon: 'R',
  })
  // The one to find: both words in its title. Public, so that a stranger's search shows only-public is not listed.
  await publish(
    'deploy-checklist',
    'Deploy checklist',
    '# Deploy checklist\n\nRun the migrations on a copy first.\n\nThen deploy the API, then the web app.\n\n- [ ] Tell the team <script>alert(1)</script>\n',
    true,
  )
  // Both words too, but only once, in passing.
  await publish(
    'weekly-notes',
    'Weekly notes',
    '# Weekly notes\n\nLunch on Friday. Someone should write a checklist before we deploy again.\n',
  )
  // Its first version spoke of a zeppelin; the latest no longer does.
  const airship = await publish('airship', 'Airship', '# Airship\n\nThe zeppelin leaves at noon.\n')
  await restCall(web, owner.token, 'POST', `/api/artifacts/${airship.id}/versions`, {
    content: '# Airship\n\nThe balloon leaves at noon.\n',
    expectedLatestVersion: 1,
  })
  for (let i = 1; i <= MANY; i++) await publish(`gazette-${i}`, `Gazette ${i}`, `# Gazette ${i}\n\nThe quokka report, issue ${i}.\n`)
  browser = await launchChromium()
  sessions = new BrowserSessions(browser, web)
  // Without the pages' CSP: axe runs in the page, and markup in a passage must stay text by escaping alone.
  ownerContext = await sessions.signedIn(OWNER_EMAIL, { bypassCSP: true })
  strangerContext = await sessions.signedIn(STRANGER_EMAIL, { bypassCSP: true })
}, browserTimeout())
afterAll(async () => {
  await sessions?.close()
  await browser?.close()
  await web?.close()
})

/** Serious and critical axe violations, and fields without a label. */
async function problems(page: Page): Promise<string[]> {
  return [...(await seriousViolations(page)), ...(await unlabelled(page)).map((field) => `unlabelled ${field}`)]
}

/** The hits on the page, in order: each title's text, its link, and the text of its marks. */
async function hitsOn(page: Page): Promise<{ title: string; href: string; marks: string[] }[]> {
  return page.locator('.search-hits > li').evaluateAll((items) =>
    items.map((item) => {
      const link = item.querySelector('a.listing-title') as HTMLAnchorElement
      return {
        title: link.textContent ?? '',
        href: link.getAttribute('href') ?? '',
        marks: [...item.querySelectorAll('mark')].map((m) => m.textContent ?? ''),
      }
    }),
  )
}

/** Opens `/search` with `query` as the browser's address bar would. */
async function searchFor(page: Page, query: Record<string, string>): Promise<number | undefined> {
  const response = await page.goto(`${web.url}/search?${new URLSearchParams(query)}`)
  return response?.status()
}

describe(`search from the header (${testEngine})`, { timeout: browserTimeout() }, () => {
  it('is reached with the keyboard, lists the right document first with its matches marked, and opens it', async () => {
    const page = await ownerContext.newPage()
    await page.goto(`${web.url}/`)
    expect(await problems(page)).toEqual([])
    // Right after the brand in the tab order, by its label.
    await page.focus('header.site a.brand')
    await page.keyboard.press('Tab')
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('site-search')
    expect(await page.getByLabel('Search your documents').count()).toBe(1)
    await page.keyboard.type('deploy checklist')
    const [response] = await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')])
    expect(response?.status()).toBe(200)
    const url = new URL(page.url())
    expect(url.pathname).toBe('/search')
    expect(url.searchParams.get('q')).toBe('deploy checklist')
    // The box on the page holds the query, to refine it.
    expect(await page.inputValue('#q')).toBe('deploy checklist')

    const hits = await hitsOn(page)
    expect(hits.map((h) => h.title)).toEqual(['Deploy checklist', 'Weekly notes'])
    expect(hits[0]?.href).toBe(`/${owner.username}/runbooks/deploy-checklist`)
    expect(hits[0]?.marks.map((m) => m.toLowerCase())).toEqual(expect.arrayContaining(['deploy', 'checklist']))
    expect(hits[1]?.marks.map((m) => m.toLowerCase())).toEqual(expect.arrayContaining(['deploy', 'checklist']))
    // The title's matches are marked in the link itself; a passage of the content says its line.
    expect(await page.locator('.search-hits > li').first().locator('a.listing-title mark').count()).toBe(2)
    expect(await page.locator('.search-hits > li').nth(1).locator('.search-snippet-where').first().textContent()).toMatch(/^Line \d+$/)
    const first = page.locator('.search-hits > li').first()
    expect(await first.locator('.listing-meta').textContent()).toContain(`${owner.username} / runbooks / deploy-checklist`)
    expect(await first.locator('.badge').first().textContent()).toBe('Public')
    expect(await page.locator('.search-hits > li').nth(1).locator('.badge').first().textContent()).toBe('Private')
    expect(await problems(page)).toEqual([])

    await Promise.all([page.waitForNavigation(), first.locator('a.listing-title').click()])
    expect(new URL(page.url()).pathname).toBe(`/${owner.username}/runbooks/deploy-checklist`)
    expect(await page.textContent('h1')).toBe('Deploy checklist')
    await page.close()
  })

  it('shows what a document holds as text: markup in a passage is never run, even without the CSP', async () => {
    const page = await ownerContext.newPage()
    const dialogs: string[] = []
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message())
      void dialog.dismiss()
    })
    expect(await searchFor(page, { q: 'tell the team' })).toBe(200)
    const passage = page.locator('.search-hits > li').first().locator('.search-snippet-text', { hasText: 'alert' })
    expect(await passage.textContent()).toContain('<script>alert(1)</script>')
    expect(await page.locator('.search-hits script').count()).toBe(0)
    expect(dialogs).toEqual([])
    await page.close()
  })

  it('finds an older version with "older versions too", and links that version', async () => {
    const page = await ownerContext.newPage()
    expect(await searchFor(page, { q: 'zeppelin' })).toBe(200)
    expect(await hitsOn(page)).toEqual([])
    expect(await page.textContent('.search-empty')).toContain('No documents you can read match “zeppelin”.')
    await page.check('input[name="versions"]')
    expect(await submit(page, '.search-form button[type="submit"]')).toBe(200)
    expect(new URL(page.url()).searchParams.get('versions')).toBe('all')
    expect(await page.isChecked('input[name="versions"]')).toBe(true)
    const hits = await hitsOn(page)
    expect(hits.map((h) => h.href)).toEqual([`/${owner.username}/runbooks/airship?version=1`])
    expect(await page.textContent('.search-hits .search-version')).toBe('Version 1 of 2')
    await Promise.all([page.waitForNavigation(), page.click('.search-hits a.listing-title')])
    expect(await page.textContent('main')).toContain('zeppelin')
    await page.close()
  })

  it('pages with a More results link that keeps the query, and no hit twice', async () => {
    const page = await ownerContext.newPage()
    expect(await searchFor(page, { q: 'quokka', project: `${owner.username}/runbooks` })).toBe(200)
    const firstPage = await hitsOn(page)
    expect(firstPage).toHaveLength(20)
    await Promise.all([page.waitForNavigation(), page.click('a:has-text("More results")')])
    const next = new URL(page.url())
    expect(next.searchParams.get('q')).toBe('quokka')
    expect(next.searchParams.get('project')).toBe(`${owner.username}/runbooks`)
    expect(next.searchParams.get('cursor')).toBeTruthy()
    const secondPage = await hitsOn(page)
    expect(secondPage).toHaveLength(MANY - 20)
    expect(await page.locator('a:has-text("More results")').count()).toBe(0)
    const all = [...firstPage, ...secondPage].map((h) => h.href)
    expect(new Set(all).size).toBe(MANY)
    await page.close()
  })
})

describe(`what a search may not show (${testEngine})`, { timeout: browserTimeout() }, () => {
  it("lists none of another person's documents to a stranger, not even a public one", async () => {
    const page = await strangerContext.newPage()
    await page.goto(`${web.url}/`)
    await page.fill('#site-search', 'deploy checklist')
    const [response] = await Promise.all([page.waitForNavigation(), page.press('#site-search', 'Enter')])
    expect(response?.status()).toBe(200)
    expect(await hitsOn(page)).toEqual([])
    expect(await page.textContent('main')).toContain('No documents you can read match “deploy checklist”.')
    expect(await page.textContent('main')).not.toContain('Deploy checklist')
    expect(await problems(page)).toEqual([])
    // Nor when the stranger names the project.
    expect(await searchFor(page, { q: 'deploy', project: `${owner.username}/runbooks` })).toBe(200)
    expect(await hitsOn(page)).toEqual([])
    await page.close()
  })

  it('sends a visitor to sign in first, and back to the search', async () => {
    const context = await sessions.fresh()
    const page = await context.newPage()
    await page.goto(`${web.url}/search?q=deploy`)
    await page.waitForURL(/\/dev-oidc\/interaction\//)
    await page.fill('#email', OWNER_EMAIL)
    await Promise.all([page.waitForURL((url) => url.pathname === '/search'), page.click('button[value="sign-in"]')])
    expect(new URL(page.url()).searchParams.get('q')).toBe('deploy')
    expect((await hitsOn(page)).map((h) => h.title)).toContain('Deploy checklist')
  })
})

describe(`the states of the search page (${testEngine})`, { timeout: browserTimeout() }, () => {
  it('before a search: the form and how to write a query, each example a search', async () => {
    const page = await ownerContext.newPage()
    expect(await searchFor(page, {})).toBe(200)
    expect(await page.textContent('h1')).toBe('Search')
    expect(await page.textContent('.search-help')).toContain('How to search')
    // The page's own form is the box: the header has none.
    expect(await page.locator('#site-search').count()).toBe(0)
    expect(await problems(page)).toEqual([])
    await Promise.all([page.waitForNavigation(), page.click('.search-syntax a:has-text("deploy checklist")')])
    expect((await hitsOn(page))[0]?.title).toBe('Deploy checklist')
    await page.close()
  })

  it('no results: says so, with what to try, each change a link', async () => {
    const page = await ownerContext.newPage()
    expect(await searchFor(page, { q: 'deploy', type: 'csv' })).toBe(200)
    expect(await page.textContent('.search-empty')).toContain('No documents you can read match “deploy”.')
    expect(await page.inputValue('#type')).toBe('csv')
    expect(await problems(page)).toEqual([])
    await Promise.all([page.waitForNavigation(), page.click('a:has-text("Search without the filters")')])
    expect((await hitsOn(page)).length).toBeGreaterThan(0)
    expect(await page.inputValue('#type')).toBe('')
    await page.close()
  })

  it('a refused query: 400, the reason beside the box, what was typed kept', async () => {
    const page = await ownerContext.newPage()
    await page.goto(`${web.url}/search`)
    await page.fill('#q', '-deploy -checklist')
    expect(await submit(page, '.search-form button[type="submit"]')).toBe(400)
    expect(await page.inputValue('#q')).toBe('-deploy -checklist')
    expect(await page.getAttribute('#q', 'aria-invalid')).toBe('true')
    expect(await page.textContent('#q-error')).toContain('at least one word or phrase')
    expect(await page.locator('.search-hits').count()).toBe(0)
    expect(await problems(page)).toEqual([])

    // A malformed filter, beside its field.
    await page.fill('#q', 'deploy')
    await page.fill('#project', 'not a project')
    expect(await submit(page, '.search-form button[type="submit"]')).toBe(400)
    expect(await page.textContent('#project-error')).toContain('owner/project')
    expect(await page.getAttribute('#project', 'aria-invalid')).toBe('true')
    expect(await page.inputValue('#project')).toBe('not a project')
    expect(await problems(page)).toEqual([])

    // A cursor of another search.
    expect(await searchFor(page, { q: 'deploy', cursor: 'forged' })).toBe(400)
    expect(await page.textContent('#search-problem')).toBeTruthy()
    await page.close()
  })

  it('keeps the header and its box within a phone’s width', async () => {
    const context = await sessions.signedIn(OWNER_EMAIL, { viewport: { width: 390, height: 844 }, bypassCSP: true })
    const page = await context.newPage()
    for (const path of ['/', `/search?q=deploy`]) {
      await page.goto(`${web.url}${path}`)
      expect(await page.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(390)
    }
    await page.goto(`${web.url}/`)
    const box = await page.locator('#site-search').boundingBox()
    expect(box?.width).toBeGreaterThan(150)
    expect(await problems(page)).toEqual([])
  })
})
