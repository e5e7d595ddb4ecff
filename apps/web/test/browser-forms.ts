import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core'
import { signInWithBrowser, type TestWeb } from './helper.ts'

/** Driving the web app's forms in Chromium: who is signed in, submit and land, and what a page lacks for its readers. */

/** The browser contexts a test file opens, signed in or not; `close()` closes every one (in `afterAll`). */
export class BrowserSessions {
  readonly #opened: BrowserContext[] = []
  readonly #browser: Browser
  readonly #web: TestWeb

  constructor(browser: Browser, web: TestWeb) {
    this.#browser = browser
    this.#web = web
  }

  /** A fresh context, signed out. */
  async fresh(options: BrowserContextOptions = {}): Promise<BrowserContext> {
    const context = await this.#browser.newContext(options)
    this.#opened.push(context)
    return context
  }

  /** A fresh context signed in as `email` (through the development provider). */
  async signedIn(email: string, options: BrowserContextOptions = {}): Promise<BrowserContext> {
    const context = await this.fresh(options)
    const page = await context.newPage()
    await signInWithBrowser(page, this.#web, email)
    await page.close()
    return context
  }

  async close(): Promise<void> {
    for (const context of this.#opened) await context.close().catch(() => {})
  }
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

/** Clicks the submit button `button` and waits for the page the form lands on; that page's status. */
export async function submit(page: Page, button: string): Promise<number | undefined> {
  const [response] = await Promise.all([page.waitForNavigation(), page.click(button)])
  return response?.status()
}

/** Fields without a label: every visible input, textarea and select must have one. */
export async function unlabelled(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>('input, textarea, select')]
      .filter((field) => field.type !== 'hidden' && (field.labels?.length ?? 0) === 0)
      .map((field) => field.outerHTML.slice(0, 80)),
  )
}

/** Serious and critical axe violations of the page as it is (axe needs a context that bypasses the CSP). */
export async function seriousViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: axeSource })
  const violations = (await page.evaluate(() =>
    (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: unknown[] }> } }).axe
      .run(document, { resultTypes: ['violations'] })
      .then((result) => result.violations),
  )) as { id: string; impact: string; nodes: { target: string[] }[] }[]
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((node) => `${v.id} at ${node.target.join(' ')}`))
}
