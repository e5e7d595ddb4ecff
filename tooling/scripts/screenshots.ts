import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { registerHooks } from 'node:module'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { sourceAliases } from '@quire/testing/source-aliases'
import type { Browser } from 'playwright-core'

/**
 * `pnpm screenshots`: starts the web app and the API on a fresh embedded database (a temporary
 * directory, removed however the script ends), fills it with the demo world, and writes
 * `docs/screenshots/<template>-desktop.png` (1280×800) and `-phone.png` (390×844) of every page
 * template in apps/web/test/pages/templates.ts, the table the accessibility tests walk. Light
 * colour scheme, the viewport only: what a reader sees first.
 */
const root = resolve(import.meta.dirname, '../..')
const target = join(root, 'docs/screenshots')

// Workspace packages resolve to their TypeScript sources, as in the tests (no build needed);
// everything else as published (`--conditions=source` would reach into dependencies' own sources).
const sources = new Map(sourceAliases(root).map((alias) => [alias.find, pathToFileURL(alias.replacement).href]))
registerHooks({
  resolve: (specifier, context, next) => {
    const url = sources.get(specifier)
    return url ? { url, shortCircuit: true } : next(specifier, context)
  },
})
const { seedDemo } = await import('../../apps/web/test/pages/demo.ts')
const { startLocalSite } = await import('../../apps/web/test/pages/site.ts')
const { identityContexts, openTemplate, pageTemplates } = await import('../../apps/web/test/pages/templates.ts')
const { launchChromium } = await import('@quire/testing/chromium')

const sizes = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
} as const

const dataDir = mkdtempSync(join(tmpdir(), 'quire-screenshots-'))
let browser: Browser | undefined
let stop: (() => Promise<void>) | undefined

async function cleanUp(): Promise<void> {
  await browser?.close().catch(() => {})
  await stop?.().catch(() => {})
  rmSync(dataDir, { recursive: true, force: true })
}

for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    void cleanUp().finally(() => process.exit(130))
  })

try {
  const site = await startLocalSite(dataDir)
  stop = () => site.close()
  const demo = await seedDemo(site)
  browser = await launchChromium()
  const contexts = await identityContexts(browser, site, demo, { viewport: sizes.desktop, colorScheme: 'light' })
  mkdirSync(target, { recursive: true })
  const written = new Set<string>()
  for (const template of pageTemplates) {
    const page = await contexts[template.as].newPage()
    try {
      await page.setViewportSize(sizes.desktop)
      await openTemplate(page, site, demo, template)
      for (const [size, viewport] of Object.entries(sizes)) {
        await page.setViewportSize(viewport)
        // A drawn document's frame is fitted to it again at the new width (a message from the frame).
        if (await page.$('iframe.rendered-frame')) await page.waitForTimeout(500)
        const file = `${template.name}-${size}.png`
        await page.screenshot({ path: join(target, file), animations: 'disabled', caret: 'hide' })
        written.add(file)
      }
    } finally {
      await page.close()
    }
    process.stdout.write(`${template.name}\n`)
  }
  // A template that left the table leaves no stale picture behind.
  for (const file of readdirSync(target)) if (file.endsWith('.png') && !written.has(file)) rmSync(join(target, file))
  process.stdout.write(`wrote ${written.size} screenshots to ${target}\n`)
} finally {
  await cleanUp()
}
