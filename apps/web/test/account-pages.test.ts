/**
 * The account pages, signed in through the development provider in a real Chromium: the profile
 * and username (`/settings`), API keys (the secret shown once, on the answer to the form, and never
 * again), the agents the person claimed (revoking one stops its token at once), workspaces with members, projects and invitations (an invitee accepts in a browser of
 * their own), the invitations addressed to the person, and the audit trails of the account, a
 * workspace and an artifact (filter by action, older pages by the operation's cursor). Every page
 * needs sign-in; every form needs the session's CSRF token; a stranger gets the operations'
 * refusals (404 for what they may not know exists, 403 for what they see but may not audit).
 * The tests run in order: the audit trails list what the earlier ones did. Each drives the browser,
 * and has a browser test's time limit (packages/testing/src/chromium.ts).
 */

import { claimedAgent } from '@quire/testing/claimed-agent'
import { testEngine } from '@quire/testing/test-database'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { agentLayerEnv, browserTimeout, launchChromium, signInWithBrowser, startTestWeb, type TestWeb } from './helper.ts'
import { restCall, userWithKey } from './mcp-helper.ts'

const OWNER_EMAIL = 'account.owner@example.com'
const INVITEE_EMAIL = 'account.invitee@example.com'
const STRANGER_EMAIL = 'account.stranger@example.com'
const READER_EMAIL = 'account.reader@example.com'

let web: TestWeb
let owner: Awaited<ReturnType<typeof userWithKey>>
let browser: Browser | undefined
const contexts = new Map<string, BrowserContext>()

/** What the tests build on each other: the team workspace and the key made through the pages. */
const made = { workspaceId: '', keySecret: '', keyName: 'CI publishing' }

beforeAll(async () => {
  // Agent registration on: the agents page tells how an agent connects.
  web = await startTestWeb({ api: true, env: agentLayerEnv() })
  owner = await userWithKey(web, OWNER_EMAIL)
  await api('POST', '/api/projects', { ownerUsername: owner.username, slug: 'notes', title: 'Notes', icon: 'N' })
})
afterAll(async () => {
  for (const context of contexts.values()) await context.close()
  await browser?.close()
  await web?.close()
})

/** A REST call as the owner's operator key. */
const api = (method: string, path: string, body?: unknown) => restCall(web, owner.token, method, path, body)

/** A fetch without cookies (signed out), redirects not followed. */
const fetchPage = (path: string, init: RequestInit = {}) =>
  fetch(`${web.url}${path}`, { redirect: 'manual', ...init, headers: { accept: 'text/html', ...(init.headers ?? {}) } })

/** A browser context signed in as `email` (one per email for the file; the browser is launched on first need). */
async function signedIn(email: string): Promise<BrowserContext> {
  const known = contexts.get(email)
  if (known) return known
  browser ??= await launchChromium()
  const context = await browser.newContext()
  const tab = await context.newPage()
  await signInWithBrowser(tab, web, email)
  await tab.close()
  contexts.set(email, context)
  return context
}

/** A fresh tab of `email`'s signed-in browser. */
async function tabOf(email: string): Promise<Page> {
  return (await signedIn(email)).newPage()
}

/** Opens `path` in a tab and waits for it; the navigation's response. */
async function open(tab: Page, path: string) {
  const response = await tab.goto(`${web.url}${path}`)
  if (!response) throw new Error(`no response for ${path}`)
  return response
}

/** Clicks a submit button and waits for the page the form's answer (or its redirect) shows. */
async function submit(tab: Page, button: string) {
  const [response] = await Promise.all([tab.waitForNavigation(), tab.click(button)])
  if (!response) throw new Error(`no response after clicking ${button}`)
  return response
}

/** Every form control that no label names (hidden inputs aside). */
function unlabelled(tab: Page): Promise<string[]> {
  return tab.evaluate(() =>
    [...document.querySelectorAll('input, select, textarea')]
      .filter((el) => !(el instanceof HTMLInputElement && el.type === 'hidden'))
      .filter((el) => {
        const labels = (el as HTMLInputElement).labels
        return (labels === null || labels.length === 0) && !el.getAttribute('aria-label') && !el.getAttribute('aria-labelledby')
      })
      .map((el) => el.outerHTML),
  )
}

/** The audit table's rows as `action|actor|via|target` (the cells' text as shown, spaces squeezed). */
async function auditRows(tab: Page): Promise<string[]> {
  return tab.$$eval('.audit-table tbody tr', (rows) =>
    rows.map((row) =>
      ['Action', 'Actor', 'Via', 'Target']
        .map((label) => (row.querySelector(`td[data-label="${label}"]`)?.textContent ?? '').replace(/\s+/g, ' ').trim())
        .join('|'),
    ),
  )
}

/** The `href` of the "Older →" link, as a path with its query; null on the oldest page. */
async function olderLink(tab: Page): Promise<string | null> {
  const link = await tab.$('a[rel="next"]')
  return link ? link.getAttribute('href') : null
}

describe(`signed out (${testEngine})`, { timeout: browserTimeout() }, () => {
  it('every account page sends the visitor to sign in and back (303 with return_to)', async () => {
    for (const path of [
      '/settings',
      '/settings/keys',
      '/settings/agents',
      '/settings/workspaces',
      '/settings/workspaces/ws_01jc0000000000000000000000',
      '/settings/workspaces/ws_01jc0000000000000000000000/audit',
      '/settings/invitations',
      '/settings/audit?action=api_key.created',
      `/${owner.username}/notes/anything/audit`,
    ]) {
      const res = await fetchPage(path)
      expect(res.status, path).toBe(303)
      expect(res.headers.get('location'), path).toBe(`/login?return_to=${encodeURIComponent(path)}`)
    }
    // A form posted without a session goes to sign in too, and nothing is created.
    const post = await fetchPage('/settings/keys', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'name=x&scopes=artifacts%3Aread',
    })
    expect(post.status).toBe(303)
    expect(post.headers.get('location')).toBe('/login?return_to=%2Fsettings%2Fkeys')
  })

  it('signing in from there lands on the page asked for', async () => {
    browser ??= await launchChromium()
    const context = await browser.newContext()
    try {
      const tab = await context.newPage()
      await signInWithBrowser(tab, web, OWNER_EMAIL, '/settings/keys')
      expect(new URL(tab.url()).pathname).toBe('/settings/keys')
      expect(await tab.textContent('h1')).toBe('API keys')
    } finally {
      await context.close()
    }
  })
})

describe(`every account page renders (${testEngine})`, { timeout: browserTimeout() }, () => {
  it('with the settings navigation, the header link to /settings, a sign-out form, labelled fields, never cached', async () => {
    const tab = await tabOf(OWNER_EMAIL)
    const pages = [
      { path: '/settings', h1: 'Profile', current: 'Profile' },
      { path: '/settings/keys', h1: 'API keys', current: 'API keys' },
      { path: '/settings/agents', h1: 'Agents', current: 'Agents' },
      { path: '/settings/workspaces', h1: 'Workspaces', current: 'Workspaces' },
      { path: '/settings/invitations', h1: 'Invitations', current: 'Invitations' },
      { path: '/settings/audit', h1: 'Audit trail', current: 'Audit' },
    ]
    for (const { path, h1, current } of pages) {
      const res = await open(tab, path)
      expect(res.status(), path).toBe(200)
      expect(res.headers()['cache-control'], path).toBe('no-store')
      expect(await tab.textContent('h1'), path).toBe(h1)
      const nav = tab.locator('nav.account-nav a')
      expect(await nav.allTextContents(), path).toEqual(['Profile', 'API keys', 'Agents', 'Workspaces', 'Invitations', 'Audit'])
      expect(await tab.textContent('nav.account-nav a[aria-current="page"]'), path).toBe(current)
      expect(await tab.locator('header.site a[href="/settings"]').textContent(), path).toBe(OWNER_EMAIL)
      expect(await tab.locator('header.site form[action="/logout"] input[name="_csrf"]').count(), path).toBe(1)
      expect(await unlabelled(tab), path).toEqual([])
    }
    // The profile shows who the person is.
    await open(tab, '/settings')
    const facts = await tab.textContent('dl.facts')
    expect(facts).toContain(OWNER_EMAIL)
    expect(facts).toContain(owner.username)
    expect(facts).toContain(owner.userId)
    expect(facts).toContain('free')
    expect(await tab.locator('dl.facts .badge').first().textContent()).toBe('verified')
    // What the home used to show beside them: the API documentation, and the MCP server to connect.
    const tools = tab.locator('.account-tools')
    expect(await tools.locator(`a[href="${web.apiUrl}/docs"]`).textContent()).toBe('API documentation')
    expect(await tools.locator('dd code').first().textContent()).toBe(`${web.url}/mcp`)
    // The header link leads here from any page with a signed-in header.
    await open(tab, '/')
    await Promise.all([tab.waitForURL(`${web.url}/settings`), tab.click('header.site a[href="/settings"]')])
    expect(await tab.textContent('h1')).toBe('Profile')
    // The header's sign-out form works from a settings page (in a context of its own, to keep the owner's).
    const spare = await browser?.newContext()
    if (!spare) throw new Error('no browser')
    try {
      const other = await spare.newPage()
      await signInWithBrowser(other, web, OWNER_EMAIL, '/settings')
      await Promise.all([other.waitForURL(`${web.url}/`), other.click('header.site form[action="/logout"] button')])
      expect(await other.locator('header.site a[href="/login"]').count()).toBe(1)
      const after = await other.request.get(`${web.url}/settings`, { maxRedirects: 0 })
      expect(after.status()).toBe(303)
    } finally {
      await spare.close()
    }
  })

  it('shows a notice only for the keys it knows, never text from the URL', async () => {
    const tab = await tabOf(OWNER_EMAIL)
    await open(tab, '/settings?notice=key-revoked')
    expect(await tab.textContent('[role="status"]')).toContain('The API key is revoked')
    for (const notice of ['%3Cscript%3Ealert(1)%3C%2Fscript%3E', 'constructor', 'toString', '__proto__']) {
      await open(tab, `/settings?notice=${notice}`)
      expect(await tab.locator('[role="status"]').count(), notice).toBe(0)
      expect(await tab.content(), notice).not.toContain('<script>alert(1)')
    }
  })
})

describe(`the username (${testEngine})`, { timeout: browserTimeout() }, () => {
  const RENAMER = 'account.renamer@example.com'

  it('changes through the form, and the profile and the API say the new name', async () => {
    const tab = await tabOf(RENAMER)
    await open(tab, '/settings')
    await tab.fill('#username', 'renamed-person')
    const res = await submit(tab, 'text=Save username')
    expect(res.status()).toBe(200)
    expect(new URL(tab.url()).pathname + new URL(tab.url()).search).toBe('/settings?notice=username-changed')
    expect(await tab.textContent('[role="status"]')).toContain('Your username is changed')
    expect(await tab.inputValue('#username')).toBe('renamed-person')
    expect(await tab.textContent('dl.facts')).toContain('renamed-person')
    // Through the same operation as REST: the workspace was renamed too.
    const workspaces = await tab.request.get(`${web.url}/renamed-person`)
    expect(workspaces.status()).toBe(200)
  })

  it('a taken, reserved or malformed name shows the error next to the field and keeps what was typed', async () => {
    const taken = await userWithKey(web, 'account.taken@example.com')
    const tab = await tabOf(RENAMER)
    const cases = [
      { typed: taken.username, status: 409, error: 'is taken' },
      { typed: 'settings', status: 400, error: 'is reserved' },
      { typed: 'Not A Slug!', status: 400, error: 'lowercase letters, digits and inner hyphens' },
      { typed: '', status: 400, error: 'lowercase letters, digits and inner hyphens' },
    ]
    for (const { typed, status, error } of cases) {
      await open(tab, '/settings')
      await tab.fill('#username', typed)
      const res = await submit(tab, 'text=Save username')
      expect(res.status(), typed).toBe(status)
      expect(await tab.inputValue('#username'), typed).toBe(typed.trim())
      expect(await tab.getAttribute('#username', 'aria-invalid'), typed).toBe('true')
      expect(await tab.getAttribute('#username', 'aria-describedby'), typed).toContain('username-error')
      expect(await tab.textContent('#username-error'), typed).toContain(error)
      expect(await unlabelled(tab)).toEqual([])
    }
    // Nothing changed.
    await open(tab, '/settings')
    expect(await tab.textContent('dl.facts')).toContain('renamed-person')
  })
})

describe(`API keys (${testEngine})`, { timeout: browserTimeout() }, () => {
  it('creating one shows its secret once, on the answer, not cached; the key works on the REST API', async () => {
    const tab = await tabOf(OWNER_EMAIL)
    await open(tab, '/settings/keys')
    await tab.fill('#key-name', made.keyName)
    expect(await tab.isChecked('#scope-artifacts-read')).toBe(true)
    await tab.check('#scope-artifacts-create')
    const nextYear = `${new Date().getUTCFullYear() + 1}-06-30`
    await tab.fill('#key-expires', nextYear)
    const res = await submit(tab, 'text=Create key')
    expect(res.status()).toBe(201)
    expect(res.request().method()).toBe('POST')
    expect(res.headers()['cache-control']).toBe('no-store')
    expect(new URL(tab.url()).pathname).toBe('/settings/keys')
    expect(await tab.textContent('[role="alert"]')).toContain('you will not see it again')
    const secret = await tab.inputValue('#new-key-secret')
    expect(secret).toMatch(/^qk_/)
    expect(await tab.getAttribute('#new-key-secret', 'readonly')).not.toBeNull()
    expect(await tab.textContent('label[for="new-key-secret"]')).toContain(made.keyName)
    expect(await tab.textContent('dl.facts')).toContain('artifacts:read, artifacts:create')
    expect(await tab.textContent('dl.facts')).toContain(`${nextYear} 23:59 UTC`)
    made.keySecret = secret

    // The key acts for the owner, with its scopes.
    expect(await restCall(web, secret, 'GET', '/api/profile/me')).toMatchObject({ username: owner.username })
    await expect(restCall(web, secret, 'DELETE', `/api/api-keys/${'key_01jc0000000000000000000000'}`)).rejects.toThrow(/403/)

    // The list shows it by name and prefix, never the secret again.
    await open(tab, '/settings/keys')
    const html = await tab.content()
    expect(html).not.toContain(secret)
    const item = tab.locator('li.key', { hasText: made.keyName })
    expect(await item.count()).toBe(1)
    const prefix = (await item.locator('code').first().textContent())?.replace(/…$/, '') ?? ''
    expect(prefix).toMatch(/^qk_.{4,}/)
    expect(secret.startsWith(prefix)).toBe(true)
    expect(await item.textContent()).toContain('Last used')
    expect(await item.textContent()).toContain(`Expires ${nextYear}`)
  })

  it('submitting the same form again (a reload of the answer) replays: the same key, no secret, no second key', async () => {
    const tab = await tabOf(OWNER_EMAIL)
    await open(tab, '/settings/keys')
    await tab.fill('#key-name', 'Twice sent')
    const form = {
      _csrf: (await tab.inputValue('form[action="/settings/keys"] input[name="_csrf"]')) ?? '',
      idempotency_key: await tab.inputValue('form[action="/settings/keys"] input[name="idempotency_key"]'),
    }
    const first = await submit(tab, 'text=Create key')
    expect(first.status()).toBe(201)
    const secret = await tab.inputValue('#new-key-secret')
    // The browser's resubmission of the same form: same fields, same key.
    const again = await tab.request.post(`${web.url}/settings/keys`, {
      form: { ...form, name: 'Twice sent', scopes: 'artifacts:read', expires: '' },
      maxRedirects: 0,
    })
    expect(again.status()).toBe(201)
    expect(again.headers()['cache-control']).toBe('no-store')
    const body = await again.text()
    expect(body).not.toContain(secret)
    expect(body).not.toContain('id="new-key-secret"')
    expect(body).toContain('It cannot be shown again')
    const listed = (await api('GET', '/api/api-keys')).items as { name: string }[]
    expect(listed.filter((k) => k.name === 'Twice sent')).toHaveLength(1)
  })

  it('a refused form shows the errors next to the fields and keeps what was typed; nothing is created', async () => {
    const tab = await tabOf(OWNER_EMAIL)
    const before = ((await api('GET', '/api/api-keys')).items as unknown[]).length
    await open(tab, '/settings/keys')
    await tab.uncheck('#scope-artifacts-read')
    const res = await submit(tab, 'text=Create key')
    expect(res.status()).toBe(400)
    expect(await tab.textContent('#key-name-error')).toContain('Give the key a name')
    expect(await tab.textContent('#scopes-error')).toContain('Choose at least one scope')
    // A date in the past, with a name and a scope: the name and the ticks are kept.
    await tab.fill('#key-name', 'Old news')
    await tab.check('#scope-agents-manage')
    await tab.fill('#key-expires', '2001-01-01')
    const past = await submit(tab, 'text=Create key')
    expect(past.status()).toBe(400)
    expect(await tab.textContent('#key-expires-error')).toContain('must be in the future')
    expect(await tab.inputValue('#key-name')).toBe('Old news')
    expect(await tab.inputValue('#key-expires')).toBe('2001-01-01')
    expect(await tab.isChecked('#scope-agents-manage')).toBe(true)
    expect(await tab.isChecked('#scope-artifacts-read')).toBe(false)
    expect(await unlabelled(tab)).toEqual([])
    // A scope that does not exist, posted by hand.
    const csrf = await tab.inputValue('form[action="/settings/keys"] input[name="_csrf"]')
    const forged = await tab.request.post(`${web.url}/settings/keys`, {
      form: { _csrf: csrf, name: 'forged', scopes: 'root:all' },
      maxRedirects: 0,
    })
    expect(forged.status()).toBe(400)
    expect(((await api('GET', '/api/api-keys')).items as unknown[]).length).toBe(before)
  })

  it('revoking a key (a clearly labelled button) stops it at once', async () => {
    const tab = await tabOf(OWNER_EMAIL)
    await open(tab, '/settings/keys')
    const button = tab.locator('li.key', { hasText: made.keyName }).locator('button')
    expect(await button.textContent()).toBe(`Revoke key ${made.keyName}`)
    const res = await submit(tab, `li.key:has-text("${made.keyName}") button`)
    expect(res.status()).toBe(200)
    expect(new URL(tab.url()).search).toBe('?notice=key-revoked')
    expect(await tab.textContent('[role="status"]')).toContain('revoked')
    expect(await tab.locator('li.key', { hasText: made.keyName }).count()).toBe(0)
    await expect(restCall(web, made.keySecret, 'GET', '/api/profile/me')).rejects.toThrow(/401/)
    // Someone else's key, or one that does not exist: the operation's 404.
    const csrf = await tab.inputValue('header.site input[name="_csrf"]')
    const missing = await tab.request.post(`${web.url}/settings/keys/key_01jc0000000000000000000000/revoke`, {
      form: { _csrf: csrf },
      maxRedirects: 0,
    })
    expect(missing.status()).toBe(404)
  })
})

describe(`agents (${testEngine})`, { timeout: browserTimeout() }, () => {
  const agent = { id: '', token: '' }

  it('none yet: the page says how an agent gets connected', async () => {
    const tab = await tabOf(OWNER_EMAIL)
    const res = await open(tab, '/settings/agents')
    expect(res.status()).toBe(200)
    expect(res.headers()['cache-control']).toBe('no-store')
    expect(await tab.locator('li.agent').count()).toBe(0)
    const empty = (await tab.textContent('.agents-empty'))?.replace(/\s+/g, ' ') ?? ''
    expect(empty).toContain('You have no agents yet.')
    expect(empty).toContain(`${web.url}/auth.md`)
    expect(empty).toContain(`${web.url}/agent/claim`)
    expect(await tab.locator(`.agents-empty a[href="${web.url}/auth.md"]`).count()).toBe(1)
    expect(await unlabelled(tab)).toEqual([])
  })

  it('a claimed agent is listed with its type, scopes, dates and status; its token acts for the person', async () => {
    Object.assign(
      agent,
      await claimedAgent(web.runtime.deps, { email: OWNER_EMAIL, userId: owner.userId }, ['artifacts:read', 'artifacts:create']),
    )
    expect(await restCall(web, agent.token, 'GET', '/api/profile/me')).toMatchObject({ username: owner.username })
    const tab = await tabOf(OWNER_EMAIL)
    await open(tab, '/settings/agents')
    expect(await tab.locator('.agents-empty').count()).toBe(0)
    const item = tab.locator('li.agent', { hasText: agent.id })
    expect(await item.count()).toBe(1)
    const text = (await item.textContent())?.replace(/\s+/g, ' ') ?? ''
    for (const shown of ['service_auth', 'artifacts:read', 'artifacts:create', 'Created', 'Claimed', 'Last used', 'active'])
      expect(text, shown).toContain(shown)
    // The agent by its name (generated, as none was given) and its id.
    const listed = (await api('GET', '/api/agents')).items as { id: string; name: string; revokedAt: string | null }[]
    expect(listed).toEqual([
      expect.objectContaining({ id: agent.id, name: expect.stringMatching(/^Agent \w{4}$/), type: 'service_auth', revokedAt: null }),
    ])
    const name = listed[0]?.name ?? ''
    expect(text).toContain(name)
    expect(await item.locator('button').textContent()).toBe(`Revoke agent ${name} (${agent.id})`)
  })

  it("someone else's agent, or one that does not exist: the operation's 404, nothing revoked", async () => {
    const tab = await tabOf(STRANGER_EMAIL)
    await open(tab, '/settings/agents')
    expect(await tab.locator('li.agent').count()).toBe(0)
    const csrf = await tab.inputValue('header.site input[name="_csrf"]')
    for (const id of [agent.id, 'agt_01jc0000000000000000000000', 'not-an-agent']) {
      const res = await tab.request.post(`${web.url}/settings/agents/${id}/revoke`, { form: { _csrf: csrf }, maxRedirects: 0 })
      expect(res.status(), id).toBe(404)
    }
    expect(await restCall(web, agent.token, 'GET', '/api/profile/me')).toMatchObject({ username: owner.username })
  })

  it('revoking through its labelled button stops its token at once; it stays listed as revoked; the trail says who', async () => {
    const tab = await tabOf(OWNER_EMAIL)
    await open(tab, '/settings/agents')
    const res = await submit(tab, `li.agent:has-text("${agent.id}") button`)
    expect(res.status()).toBe(200)
    expect(new URL(tab.url()).search).toBe('?notice=agent-revoked')
    expect(await tab.textContent('[role="status"]')).toContain('The agent is revoked')
    const item = tab.locator('li.agent', { hasText: agent.id })
    expect(await item.textContent()).toContain('revoked')
    expect(await item.locator('button').count()).toBe(0)
    await expect(restCall(web, agent.token, 'GET', '/api/profile/me')).rejects.toThrow(/401/)
    // Revoking it again changes nothing and is not an error.
    const listed = (await api('GET', '/api/agents')).items as { id: string; revokedAt: string | null }[]
    const revokedAt = listed[0]?.revokedAt
    expect(revokedAt).toEqual(expect.any(String))
    expect(await api('POST', `/api/agents/${agent.id}/revoke`)).toMatchObject({ id: agent.id, revokedAt })
    // The person's trail: revoked once, by them, through the browser session.
    await open(tab, '/settings/audit?action=agent.revoked')
    const rows = await auditRows(tab)
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatch(
      new RegExp(`^agent\\.revoked\\|${owner.username} \\(person\\)\\|browser session · web ses_[0-9a-z]{26}\\|agent ${agent.id}$`),
    )
  })
})

describe(`workspaces and invitations (${testEngine})`, { timeout: browserTimeout() }, () => {
  it('creates a team workspace through the form; a taken slug is refused next to the field', async () => {
    const tab = await tabOf(OWNER_EMAIL)
    await open(tab, '/settings/workspaces')
    expect(await tab.locator('ul.listing a.listing-title[href^="/settings/workspaces/ws_"]').count()).toBe(1)
    await tab.fill('#workspace-name', 'Design team')
    await tab.fill('#workspace-slug', owner.username)
    const taken = await submit(tab, 'text=Create workspace')
    expect(taken.status()).toBe(409)
    expect(await tab.textContent('#workspace-slug-error')).toContain('taken')
    expect(await tab.inputValue('#workspace-name')).toBe('Design team')
    expect(await tab.inputValue('#workspace-slug')).toBe(owner.username)
    await tab.fill('#workspace-slug', 'design-team')
    const res = await submit(tab, 'text=Create workspace')
    expect(res.status()).toBe(200)
    const url = new URL(tab.url())
    expect(url.pathname).toMatch(/^\/settings\/workspaces\/ws_[0-9a-z]{26}$/)
    expect(url.search).toBe('?notice=workspace-created')
    made.workspaceId = url.pathname.split('/').pop() ?? ''
    expect(await tab.textContent('h1')).toBe('Design team')
    expect(await tab.textContent('[role="status"]')).toContain('you are its owner')
    const members = await tab.locator('#members-heading + .table-scroll tbody tr').allTextContents()
    expect(members).toHaveLength(1)
    expect(members[0]).toContain(owner.username)
    expect(members[0]).toContain('owner')
    expect(await unlabelled(tab)).toEqual([])
    // Its projects are listed.
    await api('POST', '/api/projects', { ownerUsername: 'design-team', slug: 'specs', title: 'Specs', icon: 'S' })
    await open(tab, `/settings/workspaces/${made.workspaceId}`)
    expect(await tab.locator('a[href="/design-team/specs"]').textContent()).toBe('Specs')
  })

  it('an invitation made on the page is accepted by the invitee in their own browser, who then appears in members', async () => {
    const tab = await tabOf(OWNER_EMAIL)
    await open(tab, `/settings/workspaces/${made.workspaceId}`)
    await tab.fill('#invite-email', INVITEE_EMAIL)
    await tab.selectOption('#invite-role', 'admin')
    const res = await submit(tab, 'button:text-is("Invite")')
    expect(res.status()).toBe(200)
    expect(new URL(tab.url()).search).toBe('?notice=invitation-created')
    const invitation = tab.locator('ul.listing li', { hasText: INVITEE_EMAIL })
    expect(await invitation.textContent()).toContain('pending')
    expect(await invitation.textContent()).toContain('admin')
    // Inviting the same email again while it is pending: refused next to the field.
    await tab.fill('#invite-email', INVITEE_EMAIL)
    const twice = await submit(tab, 'button:text-is("Invite")')
    expect(twice.status()).toBe(409)
    expect(await tab.textContent('#invite-email-error')).toBeTruthy()
    expect(await tab.inputValue('#invite-email')).toBe(INVITEE_EMAIL)
    // An address that is not one.
    await tab.fill('#invite-email', 'not an email')
    const bad = await submit(tab, 'button:text-is("Invite")')
    expect(bad.status()).toBe(400)
    expect(await tab.textContent('#invite-email-error')).toContain('Enter an email address')

    // The invitee, signed in with that email, sees it and accepts.
    const invitee = await tabOf(INVITEE_EMAIL)
    await open(invitee, '/settings/invitations')
    const mine = invitee.locator('ul.listing li', { hasText: 'design-team' })
    expect(await mine.count()).toBe(1)
    expect(await mine.textContent()).toContain('admin')
    expect(await unlabelled(invitee)).toEqual([])
    const accepted = await submit(invitee, 'button:has-text("Accept")')
    expect(accepted.status()).toBe(200)
    expect(new URL(invitee.url()).pathname).toBe(`/settings/workspaces/${made.workspaceId}`)
    expect(await invitee.textContent('[role="status"]')).toContain('You joined the workspace')
    expect(await invitee.locator('#members-heading + .table-scroll').textContent()).toContain(INVITEE_EMAIL)
    // Nothing pending any more.
    await open(invitee, '/settings/invitations')
    expect(await invitee.locator('ul.listing li').count()).toBe(0)
    // The owner sees the new member and the invitation accepted.
    await open(tab, `/settings/workspaces/${made.workspaceId}`)
    expect(await tab.locator('#members-heading + .table-scroll').textContent()).toContain(INVITEE_EMAIL)
    expect(await tab.locator('ul.listing li', { hasText: INVITEE_EMAIL }).textContent()).toContain('accepted')
    // Inviting a member: refused next to the field.
    await tab.fill('#invite-email', INVITEE_EMAIL)
    const member = await submit(tab, 'button:text-is("Invite")')
    expect(member.status()).toBe(409)
    expect(await tab.textContent('#invite-email-error')).toBeTruthy()
  })

  it('a pending invitation is revoked with its labelled button, and can no longer be accepted', async () => {
    const tab = await tabOf(OWNER_EMAIL)
    await open(tab, `/settings/workspaces/${made.workspaceId}`)
    await tab.fill('#invite-email', 'account.late@example.com')
    await submit(tab, 'button:text-is("Invite")')
    const revoke = tab.locator('ul.listing li', { hasText: 'account.late@example.com' }).locator('button')
    expect(await revoke.textContent()).toBe('Revoke the invitation of account.late@example.com')
    await submit(tab, 'li:has-text("account.late@example.com") button')
    expect(new URL(tab.url()).search).toBe('?notice=invitation-revoked')
    expect(await tab.locator('ul.listing li', { hasText: 'account.late@example.com' }).textContent()).toContain('revoked')
    const late = await tabOf('account.late@example.com')
    await open(late, '/settings/invitations')
    expect(await late.locator('ul.listing li').count()).toBe(0)
  })

  it('a member sees members and projects, but no invitations to manage', async () => {
    await api('POST', '/api/workspaces', { slug: 'reading-room', name: 'Reading room' })
    const workspaces = (await api('GET', '/api/workspaces')).items as { id: string; slug: string }[]
    const room = workspaces.find((w) => w.slug === 'reading-room')
    await api('POST', `/api/workspaces/${room?.id}/invitations`, { email: READER_EMAIL })
    const reader = await tabOf(READER_EMAIL)
    await open(reader, '/settings/invitations')
    await submit(reader, 'button:has-text("Accept")')
    expect(await reader.textContent('h1')).toBe('Reading room')
    expect(await reader.locator('#invitations-heading').count()).toBe(0)
    expect(await reader.locator('#invite-email').count()).toBe(0)
  })
})

describe(`audit trails (${testEngine})`, { timeout: browserTimeout() }, () => {
  it("the account's trail lists what the pages did, through which credential and surface", async () => {
    const tab = await tabOf(OWNER_EMAIL)
    const res = await open(tab, '/settings/audit')
    expect(res.headers()['cache-control']).toBe('no-store')
    const rows = await auditRows(tab)
    const bySession = `${owner.username} \\(person\\)\\|browser session · web ses_[0-9a-z]{26}`
    const revoked = rows.find((r) => r.startsWith('api_key.revoked|'))
    expect(revoked).toMatch(new RegExp(`^api_key\\.revoked\\|${bySession}\\|key_[0-9a-z]{26}$`))
    const created = rows.find((r) => r.startsWith('api_key.created|') && r.includes(made.keyName))
    expect(created).toMatch(new RegExp(`^api_key\\.created\\|${bySession}\\|key “${made.keyName}”$`))
    expect(rows.some((r) => r.startsWith('workspace.created') && r.includes('workspace design-team'))).toBe(true)
    expect(rows.some((r) => r.startsWith('session.started'))).toBe(true)
    expect(rows.some((r) => r.startsWith('project.created') && r.includes('API key · api'))).toBe(true)
    // Every action of the contract is a choice in the filter.
    const options = await tab.locator('#audit-action option').allTextContents()
    expect(options[0]).toBe('All actions')
    expect(options).toContain('api_key.created')
    expect(options).toContain('artifact.version_created')
    expect(options).toContain('session.started')
    expect(await unlabelled(tab)).toEqual([])
  })

  it('the action filter narrows the trail (a GET form), and the page size and "Older →" reach older events', async () => {
    const tab = await tabOf(OWNER_EMAIL)
    await open(tab, '/settings/audit')
    await tab.selectOption('#audit-action', 'api_key.created')
    await submit(tab, 'text=Filter')
    expect(new URL(tab.url()).search).toBe('?action=api_key.created')
    const filtered = await auditRows(tab)
    expect(filtered.length).toBeGreaterThanOrEqual(2)
    expect(filtered.every((r) => r.startsWith('api_key.created|'))).toBe(true)
    expect(await tab.locator('#audit-action').inputValue()).toBe('api_key.created')

    // Unfiltered, two a page: every page older than the last, none repeated, down to the first event.
    await open(tab, '/settings/audit?limit=2')
    const seen: string[] = []
    let pages = 0
    for (;;) {
      const ids = await tab.$$eval('.audit-table tbody tr', (rows) => rows.map((r) => r.innerHTML))
      expect(ids.length).toBeLessThanOrEqual(2)
      seen.push(...ids)
      pages++
      const older = await olderLink(tab)
      if (older === null) break
      expect(older).toContain('limit=2')
      expect(older).toContain('cursor=')
      await open(tab, older)
      expect(await tab.locator('a:text("← Newest")').getAttribute('href')).toBe('/settings/audit?limit=2')
    }
    expect(pages).toBeGreaterThan(3)
    expect(new Set(seen).size).toBe(seen.length)
    expect(seen.at(-1)).toContain('user.created')

    // Filtered, one a page: "Older →" carries the filter, and reaches the older key.
    await open(tab, '/settings/audit?action=api_key.created&limit=1')
    const newest = await auditRows(tab)
    expect(newest).toHaveLength(1)
    const older = await olderLink(tab)
    expect(older).toMatch(/^\/settings\/audit\?action=api_key\.created&limit=1&cursor=/)
    await open(tab, older ?? '')
    const next = await auditRows(tab)
    expect(next).toHaveLength(1)
    expect(next[0]).toMatch(/^api_key\.created\|/)
    expect(next[0]).not.toBe(newest[0])

    // A rare action far down the trail: the operation filters, so the first page holds it, alone.
    await open(tab, '/settings/audit?action=user.created&limit=1')
    const found = await auditRows(tab)
    expect(await olderLink(tab)).toBeNull()
    expect(found).toHaveLength(1)
    expect(found[0]).toMatch(/^user\.created\|operator \(operator\)\|no credential · operator\|account\.owner@example\.com$/)
    // An action that is not one, a page size that is not one, a cursor not issued: 400, nothing shown back.
    for (const query of ['?action=<b>nope</b>', '?limit=0', '?limit=abc', '?limit=500', '?cursor=forged']) {
      const res = await open(tab, `/settings/audit${query}`)
      expect(res.status(), query).toBe(400)
      expect(await tab.content(), query).not.toContain('<b>nope</b>')
    }
  })

  it("a workspace's trail: its events for every member, filtered and paginated", async () => {
    for (const email of [OWNER_EMAIL, INVITEE_EMAIL]) {
      const tab = await tabOf(email)
      await open(tab, `/settings/workspaces/${made.workspaceId}`)
      await Promise.all([tab.waitForURL(/\/audit$/), tab.click('a:text("Audit trail")')])
      expect(await tab.textContent('h1')).toBe('Audit trail of Design team')
      const rows = await auditRows(tab)
      expect(rows.some((r) => r.startsWith('workspace.created|'))).toBe(true)
      expect(rows.some((r) => r.startsWith('project.created|') && r.includes('project specs'))).toBe(true)
      expect(rows.some((r) => r.startsWith(`workspace.invitation_created|${owner.username} (person)|browser session · web`))).toBe(true)
      expect(rows.some((r) => r.startsWith('workspace.member_joined|') && r.includes('as admin'))).toBe(true)
      expect(rows.some((r) => r.startsWith('workspace.invitation_revoked|') && r.includes('account.late@example.com'))).toBe(true)
      // Account events stay on the account.
      expect(rows.some((r) => r.startsWith('api_key.') || r.startsWith('session.'))).toBe(false)
      const options = await tab.locator('#audit-action option').allTextContents()
      expect(options).not.toContain('session.started')
      expect(await unlabelled(tab)).toEqual([])
      await tab.close()
    }
    const tab = await tabOf(OWNER_EMAIL)
    const base = `/settings/workspaces/${made.workspaceId}/audit`
    await open(tab, `${base}?action=workspace.invitation_created`)
    const invites = await auditRows(tab)
    expect(invites.length).toBeGreaterThanOrEqual(2)
    expect(invites.every((r) => r.startsWith('workspace.invitation_created|'))).toBe(true)
    await open(tab, `${base}?limit=1`)
    const first = await auditRows(tab)
    const older = await olderLink(tab)
    expect(older).toContain(`${base}?limit=1&cursor=`)
    await open(tab, older ?? '')
    const second = await auditRows(tab)
    expect(second).toHaveLength(1)
    expect(second[0]).not.toBe(first[0])
  })

  it("an artifact's trail: resolved by its path, filtered by action, older versions behind the cursor", async () => {
    const created = await api('POST', '/api/artifacts', {
      ownerUsername: owner.username,
      projectSlug: 'notes',
      slug: 'audited',
      type: 'md',
      title: 'Audited <i>doc</i>',
      content: 'one\n',
      changelog: 'first',
      access: { publicView: true, publicEdit: false },
    })
    const id = created.id as string
    for (let n = 1; n <= 3; n++)
      await api('POST', `/api/artifacts/${id}/versions`, { content: `v${n + 1}\n`, changelog: `v${n + 1}`, expectedLatestVersion: n })
    await api('POST', `/api/artifacts/${id}/share-links`, { role: 'viewer' })
    const path = `/${owner.username}/notes/audited/audit`
    const tab = await tabOf(OWNER_EMAIL)
    const res = await open(tab, path)
    expect(res.status()).toBe(200)
    expect(await tab.textContent('h1')).toBe('Audit trail of Audited <i>doc</i>')
    expect(await tab.locator(`.crumbs a[href="/${owner.username}/notes/audited"]`).count()).toBe(1)
    const rows = await auditRows(tab)
    expect(rows.map((r) => r.split('|')[0])).toEqual([
      'share_link.created',
      'artifact.version_created',
      'artifact.version_created',
      'artifact.version_created',
      'artifact.created',
    ])
    expect(rows[1]).toMatch(
      new RegExp(`^artifact\\.version_created\\|${owner.username} \\(person\\)\\|API key · api key_[0-9a-z]{26}\\|version 4$`),
    )
    expect(await unlabelled(tab)).toEqual([])
    const options = await tab.locator('#audit-action option').allTextContents()
    expect(options).toContain('share_link.revoked')
    expect(options).not.toContain('api_key.created')
    // Filter and walk: versions 4, 3, 2, one a page.
    await open(tab, `${path}?action=artifact.version_created&limit=1`)
    const versions: string[] = []
    for (let page = 0; page < 5; page++) {
      versions.push(...(await auditRows(tab)).map((r) => r.split('|')[3] ?? ''))
      const older = await olderLink(tab)
      if (older === null) break
      expect(older).toContain('action=artifact.version_created')
      await open(tab, older)
    }
    expect(versions).toEqual(['version 4', 'version 3', 'version 2'])
    // A member of the workspace reads it too; the artifact page's own reader may not know it exists.
    expect((await open(tab, `/${owner.username}/notes/missing/audit`)).status()).toBe(404)
  })
})

describe(`strangers and forged requests (${testEngine})`, { timeout: browserTimeout() }, () => {
  it("a stranger cannot open another's workspace pages or an artifact's audit they may not see", async () => {
    await api('POST', '/api/artifacts', {
      ownerUsername: owner.username,
      projectSlug: 'notes',
      slug: 'private-plan',
      type: 'md',
      title: 'Private plan',
      content: 'secret\n',
      changelog: 'first',
      access: { publicView: false, publicEdit: false },
    })
    const tab = await tabOf(STRANGER_EMAIL)
    for (const path of [`/settings/workspaces/${made.workspaceId}`, `/settings/workspaces/${made.workspaceId}/audit`]) {
      const res = await open(tab, path)
      expect(res.status(), path).toBe(404)
      const text = await tab.textContent('main')
      expect(text, path).not.toContain('Design team')
      expect(text, path).not.toContain(owner.username)
    }
    // A private artifact is the 404 a missing one is; a public one is visible, but its trail is for members (403).
    const hidden = await open(tab, `/${owner.username}/notes/private-plan/audit`)
    expect(hidden.status()).toBe(404)
    expect(await tab.textContent('main')).not.toContain('Private plan')
    const forbidden = await open(tab, `/${owner.username}/notes/audited/audit`)
    expect(forbidden.status()).toBe(403)
    expect(await tab.locator('.audit-table').count()).toBe(0)
    // The same refusals as problem+json for a script.
    const json = await tab.request.get(`${web.url}/settings/workspaces/${made.workspaceId}/audit`, {
      headers: { accept: 'application/json' },
    })
    expect(json.status()).toBe(404)
    expect(await json.json()).toMatchObject({ code: 'not_found' })
    // Forms against someone else's workspace: the operation's refusal, nothing written.
    const csrf = await (async () => {
      await open(tab, '/settings')
      return tab.inputValue('header.site input[name="_csrf"]')
    })()
    const invite = await tab.request.post(`${web.url}/settings/workspaces/${made.workspaceId}/invitations`, {
      form: { _csrf: csrf, email: 'friend@example.com', role: 'member' },
      maxRedirects: 0,
    })
    expect(invite.status()).toBe(404)
    const invitations = (await api('GET', `/api/workspaces/${made.workspaceId}/invitations`)).items as { email: string }[]
    expect(invitations.map((i) => i.email)).not.toContain('friend@example.com')
  })

  it('a form posted without the CSRF token is refused (403) and changes nothing', async () => {
    const tab = await tabOf(OWNER_EMAIL)
    const keysBefore = ((await api('GET', '/api/api-keys')).items as unknown[]).length
    const workspacesBefore = ((await api('GET', '/api/workspaces')).items as unknown[]).length
    const posts: [string, Record<string, string>][] = [
      ['/settings/keys', { name: 'no token', scopes: 'artifacts:read' }],
      ['/settings/agents/agt_01jc0000000000000000000000/revoke', {}],
      ['/settings/profile', { username: 'hijacked-name' }],
      ['/settings/workspaces', { name: 'Sneaky', slug: 'sneaky' }],
      [`/settings/workspaces/${made.workspaceId}/invitations`, { email: 'sneaky@example.com' }],
    ]
    for (const [path, form] of posts) {
      for (const token of [undefined, 'not-the-token']) {
        const res = await tab.request.post(`${web.url}${path}`, {
          form: token === undefined ? form : { ...form, _csrf: token },
          maxRedirects: 0,
        })
        expect(res.status(), `${path} ${token}`).toBe(403)
      }
    }
    expect(((await api('GET', '/api/api-keys')).items as unknown[]).length).toBe(keysBefore)
    expect(((await api('GET', '/api/workspaces')).items as unknown[]).length).toBe(workspacesBefore)
    expect(await api('GET', '/api/profile/me')).toMatchObject({ username: owner.username })
    const invitations = (await api('GET', `/api/workspaces/${made.workspaceId}/invitations`)).items as { email: string }[]
    expect(invitations.map((i) => i.email)).not.toContain('sneaky@example.com')
  })
})
