import { existsSync } from 'node:fs'
import { type Browser, chromium } from 'playwright-core'

const chromiumPath = '/usr/bin/chromium'

/**
 * Headless Chromium from the system (Debian's package; .ci/run installs it), with the flags this
 * machine needs. Never a downloaded build. Shared by every browser test.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(chromiumPath))
    throw new Error(`No Chromium at ${chromiumPath}: install it with \`apt-get install -y chromium\` (.ci/run does).`)
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
}
