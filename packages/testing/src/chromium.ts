import { randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { type Browser, chromium } from 'playwright-core'
import { groupLeadingChildren, trackGroup } from './processes.ts'
import { timeoutFor, waitBudgetMs } from './waits.ts'

const chromiumPath = '/usr/bin/chromium'

/**
 * Headless Chromium from the system (Debian's package; tooling/scripts/test-prerequisites.sh, which
 * the README's test line runs, installs it), with the flags this machine needs. Never a downloaded
 * build. Shared by every browser test. Playwright starts it as the leader of a process group of its
 * own (`detached`), in this worker's environment, which names the run (packages/testing/src/processes.ts);
 * that group is tracked like every process a test starts, so a browser a test fails to close
 * cannot outlive it.
 *
 * Every step of the browser may take as long as a wait for a process (packages/testing/src/waits.ts): its
 * start, and each navigation and action in its contexts (their default timeouts, not Playwright's
 * 30 s). A step that gives up says what it awaited: Playwright's error names the step, the time it
 * waited and its call log (the URL and the load state, the locator and what it was waiting for).
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
    timeout: waitBudgetMs,
  })
  browser.on('context', (context) => {
    context.setDefaultTimeout(waitBudgetMs)
    context.setDefaultNavigationTimeout(waitBudgetMs)
  })
  // Playwright does not tell its pid: it is the child of this process that leads its own group, with the tag.
  const leader = groupLeadingChildren().find((child) => child.command.includes(tag))
  if (leader)
    trackGroup(leader.pid, `${chromiumPath} (playwright, headless) ${tag}`, new Promise((done) => browser.once('disconnected', done)))
  return browser
}

/** A page load on a loaded 2-core machine, on average over many (about 0.2 s at load 16). */
const pageLoadMs = 1_000

/**
 * The timeout of a test or hook that drives the browser, and waits for `waits` processes besides: a
 * browser step that gives up does so, naming what it awaited, before the test's timeout, even after a
 * wait's budget of steps that did not (a loaded machine's sign-ins and page loads), and, for a test
 * that loads `pageLoads` pages, after those. The browser's start is a browser step.
 */
export function browserTimeout(waits = 0, pageLoads = 0): number {
  return timeoutFor(waits + 2) + pageLoads * pageLoadMs
}
