/**
 * Every page template (test/pages/templates.ts) in headless Chromium: axe-core finds no serious
 * or critical violation at desktop and phone widths, in the light and the dark colour scheme; and
 * the keyboard alone reaches every link, button and field, each showing where the focus is.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { testEngine } from '@quire/testing/test-database'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { agentLayerEnv, browserTimeout, launchChromium, startTestWeb, type TestWeb } from './helper.ts'
import { type Demo, seedDemo } from './pages/demo.ts'
import { type Identity, identityContexts, openTemplate, pageTemplates } from './pages/templates.ts'

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

const variants = [
  { size: 'desktop', viewport: { width: 1280, height: 800 }, scheme: 'light' },
  { size: 'desktop', viewport: { width: 1280, height: 800 }, scheme: 'dark' },
  { size: 'phone', viewport: { width: 390, height: 844 }, scheme: 'light' },
  { size: 'phone', viewport: { width: 390, height: 844 }, scheme: 'dark' },
] as const

interface AxeViolation {
  id: string
  impact: string | null
  help: string
  nodes: { target: unknown[]; failureSummary?: string }[]
}

let web: TestWeb
let demo: Demo
let browser: Browser | undefined
let contexts: Record<Identity, BrowserContext> | undefined

beforeAll(async () => {
  web = await startTestWeb({ api: true, content: true, env: agentLayerEnv() })
  demo = await seedDemo(web)
  browser = await launchChromium()
  // The pages' CSP allows no script at all, so axe (injected as an inline script) runs only in
  // contexts that bypass it. Nothing else the page does depends on that: it has no script of its own.
  contexts = await identityContexts(browser, web, demo, { bypassCSP: true })
}, browserTimeout())
afterAll(async () => {
  await browser?.close()
  await web?.close()
})

/** Runs axe over the page as it is now; the serious and critical violations, one line per element. */
async function seriousViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: axeSource })
  const violations = (await page.evaluate(() =>
    (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: unknown[] }> } }).axe
      .run(document, { resultTypes: ['violations'] })
      .then((result) => result.violations),
  )) as AxeViolation[]
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) =>
      v.nodes.map(
        (node) => `${v.id} (${v.impact}): ${v.help} at ${node.target.join(' ')}: ${(node.failureSummary ?? '').replace(/\s+/g, ' ')}`,
      ),
    )
}

/** The look of an element's focus ring: outline and box shadow as computed. */
const ringStyle = (element: Element) => {
  const style = getComputedStyle(element)
  return { outline: `${style.outlineStyle} ${style.outlineWidth} ${style.outlineColor}`, shadow: style.boxShadow }
}

/**
 * Tabs through the page from its start. Every visible link, button, field and scrolling region
 * must be reached, and each must look different focused (an outline or a shadow appears) from
 * unfocused. The problems found, one per element.
 */
async function keyboardProblems(page: Page): Promise<string[]> {
  const targets = await page.evaluate((ring) => {
    const ringOf = new Function(`return (${ring})`)() as (element: Element) => { outline: string; shadow: string }
    ;(document.activeElement as HTMLElement | null)?.blur()
    const selector =
      'a[href], area[href], button:not([disabled]), input:not([type="hidden"]):not([disabled]), select:not([disabled]), textarea:not([disabled]), summary, [tabindex]:not([tabindex="-1"])'
    return [...document.querySelectorAll(selector)]
      .filter((element) => element.checkVisibility({ visibilityProperty: true }))
      .map((element, index) => {
        element.setAttribute('data-keyboard-check', String(index))
        return { index, name: `<${element.localName}> ${(element.textContent ?? '').trim().slice(0, 40)}`, unfocused: ringOf(element) }
      })
  }, ringStyle.toString())
  // An element can be several stops (a date field: each part, then its picker, which draws its own
  // ring inside the field): each stop's ring is kept, and one that shows is enough.
  const reached = new Map<number, { outline: string; shadow: string }[]>()
  for (let press = 0; press < targets.length * 2 + 5 && reached.size < targets.length; press++) {
    await page.keyboard.press('Tab')
    const focused = await page.evaluate((ring) => {
      const element = document.activeElement
      const index = element?.getAttribute('data-keyboard-check')
      if (!element || index === null || index === undefined) return null
      const ringOf = new Function(`return (${ring})`)() as (element: Element) => { outline: string; shadow: string }
      return { index: Number(index), ring: ringOf(element) }
    }, ringStyle.toString())
    if (focused) reached.set(focused.index, [...(reached.get(focused.index) ?? []), focused.ring])
  }
  const problems: string[] = []
  for (const target of targets) {
    const rings = reached.get(target.index)
    if (!rings) {
      problems.push(`${target.name}: never reached with Tab`)
      continue
    }
    const shows = (ring: { outline: string; shadow: string }) =>
      (!/^none |\s0px /.test(`${ring.outline} `) || ring.shadow !== 'none') &&
      (ring.outline !== target.unfocused.outline || ring.shadow !== target.unfocused.shadow)
    if (!rings.some(shows))
      problems.push(`${target.name}: no visible focus (focused: ${rings.map((ring) => `${ring.outline}; ${ring.shadow}`).join(' / ')})`)
  }
  return problems
}

describe(`every page template in Chromium (${testEngine})`, { timeout: browserTimeout() }, () => {
  for (const template of pageTemplates) {
    it(`${template.name}: no serious or critical axe violation at desktop and phone widths, light and dark; every control reached by Tab with a visible focus`, async () => {
      const page = await (contexts as Record<Identity, BrowserContext>)[template.as].newPage()
      try {
        await page.setViewportSize(variants[0].viewport)
        await page.emulateMedia({ colorScheme: 'light' })
        await openTemplate(page, web, demo, template)

        const found = (await keyboardProblems(page)).map((problem) => `[keyboard] ${problem}`)
        for (const variant of variants) {
          await page.setViewportSize(variant.viewport)
          await page.emulateMedia({ colorScheme: variant.scheme })
          for (const violation of await seriousViolations(page)) found.push(`[${variant.size}, ${variant.scheme}] ${violation}`)
        }
        expect(found, `problems on ${template.name}:\n${found.join('\n')}`).toEqual([])
      } finally {
        await page.close()
      }
    })
  }
})
