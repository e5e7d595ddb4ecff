/**
 * Every page template of the web app, one row each: how to reach it in the demo world
 * (`demo.ts`), who opens it, and the status it answers. The accessibility test, the keyboard
 * test and the screenshot script (`tooling/scripts/screenshots.ts`) all walk this one table, so a
 * new page is covered everywhere by adding its row. Raw content and the unified diff are text,
 * not pages, and have no row.
 */
import { createHash } from 'node:crypto'
import type { Browser, BrowserContext, BrowserContextOptions, Page, Response } from 'playwright-core'
import { browserTimeout, signInWithBrowser, type TestWeb } from '../helper.ts'
import type { Demo } from './demo.ts'

/** Who opens a page: nobody signed in, or the demo's owner through the development sign-in. */
export type Identity = 'anonymous' | 'owner'

export interface PageTemplate {
  /** Names the screenshots (`docs/screenshots/<name>-desktop.png`) and the tests. */
  readonly name: string
  readonly as: Identity
  /** The path to open (after redirects, the page lands where it lands). */
  readonly path: (demo: Demo) => string
  /** The status of the page the browser ends on. */
  readonly status: number
  /** How to reach the page when a plain visit of `path` is not enough; the response of the page shown. */
  readonly open?: (page: Page, url: string, site: TestWeb) => Promise<Response | null>
  /**
   * Uses up this address's sign-in budget for a minute (the sign-in routes are rate-limited per
   * address): it is opened after every other template, once every sign-in is done.
   */
  readonly spendsSignIns?: boolean
}

/** The new-project form after checking a slug its owner already uses: the alternatives offered. */
async function checkTakenProjectSlug(page: Page, url: string): Promise<Response | null> {
  await page.goto(url)
  await page.fill('#title', 'Handbook for agents')
  await page.fill('#slug', 'handbook')
  const [response] = await Promise.all([page.waitForNavigation(), page.click('button[name="intent"][value="check"]')])
  return response
}

/** The new-artifact form with a pasted document, after Preview: the dry run rendered above the form. */
async function previewNewArtifact(page: Page, url: string): Promise<Response | null> {
  await page.goto(url)
  await page.fill('#title', 'Release checklist')
  await page.fill(
    '#content',
    '# Release checklist\n\nBefore tagging **2.0**:\n\n1. Run the migrations on a copy.\n2. Read the diff of the changelog.\n3. Tell the team in #releases.\n',
  )
  await page.fill('#changelog', 'First draft')
  const [response] = await Promise.all([page.waitForNavigation(), page.click('button[name="intent"][value="preview"]')])
  return response
}

/** A fixed PKCE challenge: the consent page only checks its form. */
const challenge = createHash('sha256').update('quire-screenshots-verifier-0123456789abcdef').digest('base64url')

/** Calls the sign-in callback without a sign-in in progress until its limit answers 429 (at most 80 calls), then opens it. */
async function afterSpendingSignIns(page: Page, url: string, site: TestWeb): Promise<Response | null> {
  for (let i = 0; i < 80; i++) {
    const res = await fetch(`${site.url}/auth/callback`, { headers: { accept: 'text/html' } })
    await res.arrayBuffer()
    if (res.status === 429) return page.goto(url)
  }
  throw new Error('the sign-in callback never answered 429')
}

/** Posts a form to `url` from a page of the site, without the session's CSRF token (a form from before a sign-in, say). */
async function postWithoutToken(page: Page, url: string, site: TestWeb): Promise<Response | null> {
  await page.goto(`${site.url}/`)
  const answered = page.waitForResponse((r) => r.url() === url && r.request().method() === 'POST')
  await Promise.all([
    page.waitForURL(url),
    page.evaluate((action) => {
      const form = document.createElement('form')
      form.method = 'post'
      form.action = action
      document.body.append(form)
      form.submit()
    }, url),
  ])
  return answered
}

/**
 * Opens the new-version form, edits the checklist (one line changed, one added) and presses
 * Preview: the form again with the text rendered and the diff, at the preview. Nothing is saved.
 */
async function afterPreview(page: Page, url: string): Promise<Response | null> {
  await page.goto(url)
  const text = await page.inputValue('#content')
  const edited = text
    .replace('release before 15:00', 'release before 14:00')
    .replace('- [ ] Someone from on-call', '- [ ] The status page has a draft announcement\n- [ ] Someone from on-call')
  if (edited === text) throw new Error('artifact-edit-preview: the demo document no longer has the lines this template edits')
  await page.fill('#content', edited)
  const [response] = await Promise.all([page.waitForNavigation(), page.click('button[value="preview"]')])
  return response
}

/**
 * Opens a page that shows documents drawn on the content origin, and waits until they are: every
 * frame loaded (a diagram's SVG drawn, or its error shown), fitted to its document by the page's
 * script, and every image loaded.
 */
async function withDrawnDocuments(page: Page, url: string): Promise<Response | null> {
  const response = await page.goto(url)
  const budget = { timeout: browserTimeout() }
  for (const frame of page.frames()) {
    if (frame === page.mainFrame()) continue
    await frame.waitForLoadState('load', budget)
    if (await frame.$('#diagram-source')) await frame.waitForSelector('#diagram svg, .diagram-error', budget)
  }
  await page.waitForFunction(
    () =>
      [...document.querySelectorAll<HTMLIFrameElement>('iframe.rendered-frame')].every((frame) => frame.style.height !== '') &&
      [...document.querySelectorAll<HTMLImageElement>('img.rendered-image')].every((image) => image.complete && image.naturalWidth > 0),
    undefined,
    budget,
  )
  return response
}

const templates: readonly PageTemplate[] = [
  { name: 'home-signed-out', as: 'anonymous', path: () => '/', status: 200 },
  { name: 'home-signed-in', as: 'owner', path: () => '/', status: 200 },
  { name: 'artifact-markdown', as: 'anonymous', path: (d) => d.document, status: 200 },
  { name: 'artifact-markdown-old-version', as: 'anonymous', path: (d) => `${d.document}?version=1`, status: 200 },
  { name: 'artifact-markdown-private', as: 'owner', path: (d) => d.privateDocument, status: 200 },
  { name: 'artifact-json', as: 'anonymous', path: (d) => d.byType.json, status: 200 },
  { name: 'artifact-yaml', as: 'anonymous', path: (d) => d.byType.yaml, status: 200 },
  { name: 'artifact-text', as: 'anonymous', path: (d) => d.byType.txt, status: 200 },
  { name: 'artifact-csv', as: 'anonymous', path: (d) => d.byType.csv, status: 200 },
  { name: 'artifact-html', as: 'anonymous', path: (d) => d.byType.html, status: 200, open: withDrawnDocuments },
  { name: 'artifact-html-source', as: 'anonymous', path: (d) => `${d.byType.html}?view=source`, status: 200 },
  { name: 'artifact-svg', as: 'anonymous', path: (d) => d.byType.svg, status: 200, open: withDrawnDocuments },
  { name: 'artifact-mermaid', as: 'anonymous', path: (d) => d.byType.mermaid, status: 200, open: withDrawnDocuments },
  { name: 'artifact-markdown-diagram', as: 'anonymous', path: (d) => d.diagramDocument, status: 200, open: withDrawnDocuments },
  { name: 'history', as: 'owner', path: (d) => `${d.document}/history`, status: 200 },
  { name: 'diff', as: 'owner', path: (d) => `${d.document}/diff`, status: 200 },
  { name: 'artifact-edit', as: 'owner', path: (d) => `${d.document}/edit`, status: 200 },
  { name: 'artifact-edit-preview', as: 'owner', path: (d) => `${d.document}/edit`, status: 200, open: afterPreview },
  { name: 'artifact-settings', as: 'owner', path: (d) => `${d.privateDocument}/settings`, status: 200 },
  { name: 'artifact-delete', as: 'owner', path: (d) => `${d.document}/delete`, status: 200 },
  { name: 'artifact-audit', as: 'owner', path: (d) => `${d.document}/audit`, status: 200 },
  { name: 'share-link', as: 'anonymous', path: (d) => d.viewerLink, status: 200 },
  { name: 'share-link-editor', as: 'anonymous', path: (d) => d.editorLink, status: 200 },
  { name: 'owner', as: 'owner', path: (d) => `/${d.owner.username}`, status: 200 },
  { name: 'project', as: 'owner', path: (d) => d.project, status: 200 },
  { name: 'owner-public', as: 'anonymous', path: (d) => `/${d.owner.username}`, status: 200 },
  { name: 'project-public', as: 'anonymous', path: (d) => d.project, status: 200 },
  { name: 'new-project', as: 'owner', path: () => '/new/project', status: 200 },
  { name: 'new-project-slug-taken', as: 'owner', path: () => '/new/project', status: 200, open: checkTakenProjectSlug },
  { name: 'new-artifact', as: 'owner', path: (d) => `/new?project=${d.project.slice(1)}`, status: 200 },
  { name: 'new-artifact-preview', as: 'owner', path: (d) => `/new?project=${d.project.slice(1)}`, status: 200, open: previewNewArtifact },
  { name: 'search', as: 'owner', path: () => '/search', status: 200 },
  { name: 'search-results', as: 'owner', path: () => '/search?q=deploy', status: 200 },
  { name: 'search-no-results', as: 'owner', path: () => '/search?q=kubernetes&type=md', status: 200 },
  { name: 'search-refused', as: 'owner', path: () => '/search?q=-deploy', status: 400 },
  { name: 'account-profile', as: 'owner', path: () => '/settings', status: 200 },
  { name: 'account-keys', as: 'owner', path: () => '/settings/keys', status: 200 },
  { name: 'account-agents', as: 'owner', path: () => '/settings/agents', status: 200 },
  { name: 'agent-claim-enter', as: 'owner', path: () => '/agent/claim', status: 200 },
  { name: 'agent-claim', as: 'owner', path: (d) => `/agent/claim?user_code=${d.agentCode}`, status: 200 },
  { name: 'agent-step-up', as: 'owner', path: (d) => `/agent/claim?user_code=${d.stepUpCode}`, status: 200 },
  // Counts against the owner's wrong-code budget (10 per 15 minutes): once per opening.
  { name: 'agent-claim-wrong-account', as: 'owner', path: (d) => `/agent/claim?user_code=${d.othersAgentCode}`, status: 403 },
  { name: 'account-workspaces', as: 'owner', path: () => '/settings/workspaces', status: 200 },
  { name: 'account-workspace', as: 'owner', path: (d) => `/settings/workspaces/${d.teamWorkspaceId}`, status: 200 },
  { name: 'account-invitations', as: 'owner', path: () => '/settings/invitations', status: 200 },
  { name: 'account-audit', as: 'owner', path: () => '/settings/audit', status: 200 },
  { name: 'workspace-audit', as: 'owner', path: (d) => `/settings/workspaces/${d.teamWorkspaceId}/audit`, status: 200 },
  { name: 'sign-in', as: 'anonymous', path: () => '/login', status: 200 },
  {
    name: 'oauth-consent',
    as: 'owner',
    path: (d) =>
      `/oauth2/authorize?${new URLSearchParams({
        client_id: d.oauthClientId,
        redirect_uri: 'http://127.0.0.1/callback',
        response_type: 'code',
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state: 'demo',
        scope: 'artifacts:read artifacts:create',
      })}`,
    status: 200,
  },
  { name: 'oauth-refused', as: 'owner', path: () => '/oauth2/authorize?client_id=no-such-client', status: 400 },
  { name: 'error-form-refused', as: 'owner', path: () => '/logout', status: 403, open: postWithoutToken },
  { name: 'error-page-not-found', as: 'anonymous', path: () => '/no/such/page/here/at-all', status: 404 },
  { name: 'error-artifact-not-found', as: 'anonymous', path: (d) => d.privateDocument, status: 404 },
  { name: 'error-bad-version', as: 'anonymous', path: (d) => `${d.document}?version=first`, status: 400 },
  { name: 'error-sign-in', as: 'anonymous', path: () => '/auth/callback', status: 400 },
  {
    name: 'error-too-many-requests',
    as: 'anonymous',
    path: () => '/auth/callback',
    status: 429,
    open: afterSpendingSignIns,
    spendsSignIns: true,
  },
]

/** The table in the order to open it: templates that spend the sign-in budget last. */
export const pageTemplates: readonly PageTemplate[] = [
  ...templates.filter((t) => !t.spendsSignIns),
  ...templates.filter((t) => t.spendsSignIns),
]

/** One browser context per identity, made once (the owner's signs in through the development provider). */
export async function identityContexts(
  browser: Browser,
  site: TestWeb,
  demo: Demo,
  options: BrowserContextOptions = {},
): Promise<Record<Identity, BrowserContext>> {
  const anonymous = await browser.newContext(options)
  const owner = await browser.newContext(options)
  const page = await owner.newPage()
  await signInWithBrowser(page, site, demo.owner.email)
  await page.close()
  return { anonymous, owner }
}

/** Opens a template's page in `page` and checks it answered the expected status. */
export async function openTemplate(page: Page, site: TestWeb, demo: Demo, template: PageTemplate): Promise<Response> {
  const url = `${site.url}${template.path(demo)}`
  const response = await (template.open ? template.open(page, url, site) : page.goto(url))
  if (response === null) throw new Error(`${template.name}: no response`)
  if (response.status() !== template.status)
    throw new Error(`${template.name}: ${template.path(demo)} answered ${response.status()}, expected ${template.status}`)
  return response
}
