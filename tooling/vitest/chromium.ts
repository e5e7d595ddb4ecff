import { randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { type Browser, chromium } from 'playwright-core'
import { groupLeadingChildren, trackGroup } from './processes.ts'

const chromiumPath = '/usr/bin/chromium'

/**
 * Headless Chromium from the system (Debian's package; tooling/scripts/test-prerequisites.sh, which
 * the README's test line runs, installs it), with the flags this machine needs. Never a downloaded
 * build. Shared by every browser test. Playwright starts it as the leader of a process group of its
 * own (`detached`), in this worker's environment, which names the run (tooling/vitest/processes.ts);
 * that group is tracked like every process a test starts, so a browser a test fails to close
 * cannot outlive it.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(chromiumPath))
    throw new Error(
      `No Chromium at ${chromiumPath}: install it with \`apt-get install -y chromium\` (tooling/scripts/test-prerequisites.sh, which the README's test line runs, does).`,
    )
  // A switch Chromium ignores, to tell this browser's process among this worker's children.
  const tag = `--quire-test-browser=${randomUUID()}`
  const browser = await chromium.launch({
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
      tag,
    ],
  })
  // Playwright does not tell its pid: it is the child of this process that leads its own group, with the tag.
  const leader = groupLeadingChildren().find((child) => child.command.includes(tag))
  if (leader)
    trackGroup(leader.pid, `${chromiumPath} (playwright, headless) ${tag}`, new Promise((done) => browser.once('disconnected', done)))
  return browser
}
