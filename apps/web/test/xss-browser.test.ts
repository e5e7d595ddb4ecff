/**
 * The XSS corpus (packages/render/test/xss-corpus.ts) in a real browser. Every payload goes everywhere a person
 * can put text: an artifact's content (Markdown and the other types), its title, description and
 * both changelogs, a project's title and description, a team workspace's name. Usernames cannot
 * carry one: they are slugs, and the API refuses anything else (checked below). Each page that
 * shows them is opened in Chromium twice: with the pages' own CSP, and with CSP bypassed, so that
 * the sanitiser and the escaping are tested on their own, not only the CSP behind them.
 *
 * Execution is detected in the page, not assumed absent: every `alert(1)` of the corpus becomes a
 * call to `__xss(<payload number>)`, a binding the browser exposes to every frame; dialogs, a
 * blocked script (a CSP `script-src` violation), a popup or the page navigating away all count
 * too. Each page is then poked: every element in `main` gets the events inline handlers listen
 * for, and every link is clicked, links to web pages held back and script URLs let through.
 */

import { testEngine } from '@quire/testing/test-database'
import { contentSecurityPolicy } from '@quire/web-http'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type XssPayload, xssCorpus } from '../../../packages/render/test/xss-corpus.ts'
import { browserTimeout, launchChromium, signInWithBrowser, startTestWeb, type TestWeb } from './helper.ts'
import { restCall, userWithKey } from './mcp-helper.ts'

const OWNER_EMAIL = 'xss.owner@example.com'
/** Tabs open at once in each pass. */
const TABS = 4
/** The most pages a payload is shown on (`plant`). */
const PAGES_PER_PAYLOAD = 12
/** The most pages a pass loads, for its time limit: the payloads', the 4 lists', the detection control. */
const pageLoads = xssCorpus.length * PAGES_PER_PAYLOAD + 4 + 1

/** What the corpus runs (`alert(1)`, `msgbox(1)`), made to report which payload ran, also inside base64 `data:` URLs. */
function armed(text: string, id: number): string {
  const hook = `__xss(${id})`
  return text
    .replace(/base64,([A-Za-z0-9+/=]+)/g, (_match, encoded: string) => {
      const decoded = Buffer.from(encoded, 'base64').toString('utf8')
      return `base64,${Buffer.from(decoded.replaceAll('alert(1)', hook)).toString('base64')}`
    })
    .replaceAll('alert(1)', hook)
    .replaceAll('msgbox(1)', hook)
}

/** One page to open: where, which payload it carries, and a text its title must show (the payload reached the page). */
interface Target {
  readonly path: string
  readonly payload: string
  readonly titleHas: string
}

/** Something that ran, or tried to: what, on which page. */
interface Execution {
  readonly what: string
  readonly page: string
}

let web: TestWeb
let owner: Awaited<ReturnType<typeof userWithKey>>
let browser: Browser | undefined
const targets: Target[] = []

const api = (method: string, path: string, body?: unknown) => restCall(web, owner.token, method, path, body)

/** Whitespace as `document.title` has it: collapsed and trimmed. */
const collapsed = (text: string) => text.replace(/[\t\n\f\r ]+/g, ' ').trim()

/** Writes one payload everywhere it can go, and names the pages that show it. */
async function plant(payload: XssPayload, id: number): Promise<void> {
  const text = armed(payload.content, id)
  const project = `x${id}`
  const title = text.slice(0, 200)
  await api('POST', '/api/projects', { ownerUsername: owner.username, slug: project, title, description: text, icon: 'X' })
  const created = await api('POST', '/api/artifacts', {
    ownerUsername: owner.username,
    projectSlug: project,
    slug: 'p',
    type: payload.type,
    title,
    description: text,
    content: text,
    changelog: text,
    // Public: the payload also goes into the description, canonical and preview tags.
    access: { publicView: true, publicEdit: false },
  })
  const artifactId = created.id as string
  await api('POST', `/api/artifacts/${artifactId}/versions`, {
    content: `${text}\n\nA second version.\n`,
    changelog: text,
    expectedLatestVersion: 1,
  })
  const link = await api('POST', `/api/artifacts/${artifactId}/share-links`, { role: 'viewer' })
  const path = `/${owner.username}/${project}/p`
  const on = (pagePath: string) =>
    targets.push({ path: pagePath, payload: `${payload.name} (${payload.type})`, titleHas: collapsed(title) })
  on(path)
  on(`${path}?version=1`)
  on(`${path}/history`)
  on(`${path}/diff?from=1&to=2`)
  on(`/s/${encodeURIComponent(link.secret as string)}`)
  on(`/${owner.username}/${project}`)
  // The owner's forms: a new version, access and share links, deleting, the audit trail.
  for (const form of ['edit', 'settings', 'delete', 'audit']) on(`${path}/${form}`)
  // A workspace's name holds at most 100 characters: the payloads that fit, on its namespace and settings pages.
  if (text.length <= 100) {
    const workspace = await api('POST', '/api/workspaces', { slug: `xw${id}`, name: text })
    on(`/xw${id}`)
    on(`/settings/workspaces/${workspace.id as string}`)
  }
}

beforeAll(async () => {
  web = await startTestWeb({ api: true })
  owner = await userWithKey(web, OWNER_EMAIL)
  for (const [id, payload] of xssCorpus.entries()) await plant(payload, id)
  // The pages that list many payloads at once: the owner's namespace (two pages of projects) and the home.
  targets.push({ path: `/${owner.username}`, payload: 'the first page of project titles and descriptions', titleHas: owner.username })
  targets.push({ path: '/', payload: 'recent artifacts, projects and workspaces', titleHas: 'Home' })
  targets.push({ path: '/settings/workspaces', payload: 'every workspace name', titleHas: 'Workspaces' })
  targets.push({ path: '/settings/audit', payload: 'the account audit trail', titleHas: 'Audit trail' })
  browser = await launchChromium()
}, browserTimeout())
afterAll(async () => {
  await browser?.close()
  await web?.close()
})

/**
 * A signed-in browser context (CSP as served, or bypassed) in which every frame can report an
 * execution, and every blocked script reports itself too.
 */
async function watchedContext(bypassCSP: boolean, executions: Execution[]): Promise<BrowserContext> {
  const context = await (browser as Browser).newContext({ bypassCSP })
  await context.exposeBinding('__xss', (source, id: unknown) => {
    const what = typeof id === 'number' ? `payload ${id} (${xssCorpus[id]?.name}) ran` : String(id)
    executions.push({ what, page: source.page?.url() ?? source.frame.url() })
  })
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      if (event.effectiveDirective.startsWith('script-src'))
        (window as unknown as { __xss(what: string): void }).__xss(`blocked by CSP (${event.effectiveDirective}: ${event.sample})`)
    })
  })
  const signIn = await context.newPage()
  await signInWithBrowser(signIn, web, OWNER_EMAIL)
  await signIn.close()
  return context
}

/**
 * Every element in `main` gets the events inline handlers wait for; every link is clicked (links
 * to web pages held back); then a frame passes, for what the clicks queued.
 */
async function poke(): Promise<void> {
  // A link whose click is let through (a scheme that is not http, https or mailto) runs, if it
  // runs at all, as a navigation task after the click: the page is kept a while for it to report.
  let followed = false
  document.addEventListener(
    'click',
    (event) => {
      const link = (event.target as Element | null)?.closest?.('a')
      if (!link) return
      const raw = link.getAttribute('href') ?? link.getAttributeNS('http://www.w3.org/1999/xlink', 'href') ?? ''
      let scheme = ''
      try {
        scheme = new URL(raw, location.href).protocol
      } catch {}
      if (raw === '' || scheme === 'http:' || scheme === 'https:' || scheme === 'mailto:') event.preventDefault()
      else followed = true
    },
    true,
  )
  const types = [
    'mouseover',
    'mouseenter',
    'mousemove',
    'pointerover',
    'focus',
    'focusin',
    'blur',
    'toggle',
    'load',
    'error',
    'begin',
    'animationstart',
  ]
  for (const element of document.querySelectorAll('main *')) {
    for (const type of types) element.dispatchEvent(new Event(type))
    if (element.localName === 'a') element.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true }))
  }
  await new Promise(requestAnimationFrame)
  if (followed) await new Promise((settled) => setTimeout(settled, 500))
}

/** Opens `targets` in `context`, a few tabs at a time; what ran goes to `executions`, what did not load is returned. */
async function visitAll(context: BrowserContext, targets: readonly Target[], executions: Execution[]): Promise<string[]> {
  const problems: string[] = []
  const queue = [...targets]
  const tab = async () => {
    const page: Page = await context.newPage()
    let expected = ''
    page.on('dialog', (dialog) => {
      executions.push({ what: `a ${dialog.type()} dialog (${dialog.message()})`, page: page.url() })
      void dialog.dismiss().catch(() => {})
    })
    page.on('popup', (popup) => executions.push({ what: `a popup to ${popup.url()}`, page: expected }))
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame() && expected !== '' && frame.url().split('#')[0] !== expected)
        executions.push({ what: `navigated away to ${frame.url()}`, page: expected })
    })
    for (let target = queue.shift(); target; target = queue.shift()) {
      expected = ''
      const response = await page.goto(`${web.url}${target.path}`)
      expected = page.url().split('#')[0] ?? ''
      if (response?.status() !== 200) problems.push(`${target.path} (${target.payload}): status ${response?.status()}`)
      else if (!collapsed(await page.title()).includes(target.titleHas))
        problems.push(`${target.path} (${target.payload}): the title does not show "${target.titleHas}"`)
      await page.evaluate(poke)
      expected = ''
    }
    await page.close()
  }
  await Promise.all(Array.from({ length: TABS }, tab))
  return problems
}

/**
 * A page of the app's origin, served with the app's own CSP, that holds what a sanitiser's miss
 * would let through: the detection must see each of them (as executions without the CSP, as
 * blocked scripts with it), or a pass of the corpus would prove nothing.
 */
const control = {
  path: '/xss-detection-control',
  body: `<!doctype html><title>control</title><main>
<img src="/no-such-image" onerror="__xss('control: an event handler')">
<div onmouseover="__xss('control: a handler that needs a pointer')">hover</div>
<a href="javascript:__xss('control: a script link')">click</a>
<script>alert('control: a dialog')</script>
</main>`,
}

/** Opens the control page in `context`; what it reports is taken out of `executions` and returned. */
async function detectionControl(context: BrowserContext, executions: Execution[]): Promise<Execution[]> {
  await context.route(`${web.url}${control.path}`, (route) =>
    route.fulfill({
      status: 200,
      contentType: 'text/html',
      headers: { 'content-security-policy': contentSecurityPolicy() },
      body: control.body,
    }),
  )
  const before = executions.length
  expect(await visitAll(context, [{ path: control.path, payload: 'control', titleHas: 'control' }], executions)).toEqual([])
  await context.unroute(`${web.url}${control.path}`)
  return executions.splice(before)
}

describe(`the XSS corpus in Chromium (${testEngine})`, { timeout: browserTimeout() }, () => {
  it('cannot become a username: usernames are slugs, and the API refuses anything else', async () => {
    let refused = 0
    for (const [id, payload] of xssCorpus.entries()) {
      const response = await fetch(`${web.apiUrl}/api/profile/me`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ username: armed(payload.content, id) }),
      })
      if (response.status === 400) refused++
    }
    expect(refused).toBe(xssCorpus.length)
  })

  for (const bypassCSP of [false, true]) {
    const name = `runs none of it on any page ${bypassCSP ? 'with the CSP bypassed (the sanitiser and escaping alone)' : 'under the pages’ CSP'}`
    it(name, { timeout: browserTimeout(0, pageLoads) }, async () => {
      const executions: Execution[] = []
      const context = await watchedContext(bypassCSP, executions)
      try {
        // The handler of a broken image runs twice without the CSP (loaded, then poked): count kinds, not runs.
        const caught = [...new Set((await detectionControl(context, executions)).map((e) => e.what))].sort()
        expect(caught).toEqual(
          bypassCSP
            ? [
                'a alert dialog (control: a dialog)',
                'control: a handler that needs a pointer',
                'control: a script link',
                'control: an event handler',
              ]
            : ['blocked by CSP (script-src-attr: )', 'blocked by CSP (script-src-elem: )'],
        )
        expect(targets.length + 1).toBeLessThanOrEqual(pageLoads)
        const problems = await visitAll(context, targets, executions)
        console.log(
          `XSS ${bypassCSP ? 'without CSP' : 'with CSP'} (${testEngine}): ${xssCorpus.length} payloads on ${targets.length} page loads ` +
            `(latest, pinned, history, diff, share link, project, edit, settings, delete and audit pages for each; ` +
            `namespace and settings pages of a workspace named by ${targets.filter((t) => t.path.startsWith('/xw')).length}; ` +
            `the owner page, the home, the workspace list and the account audit trail): ${executions.length} executions`,
        )
        expect(problems).toEqual([])
        expect(executions.map((e) => `${e.what} on ${e.page}`)).toEqual([])
      } finally {
        await context.close()
      }
    })
  }
})
