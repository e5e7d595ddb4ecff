import { spawn } from 'node:child_process'
import type { CliEnvironment } from '../config.ts'

export type BrowserLaunch = { readonly opened: true; readonly command: string } | { readonly opened: false; readonly reason: string }

/** The command that opens a URL on this system, or why there is none. */
function opener(env: CliEnvironment, url: string): { command: string; args: string[] } | { reason: string } {
  if (env.browser !== undefined) {
    if (env.browser === '' || env.browser.toLowerCase() === 'none') return { reason: 'BROWSER=none' }
    // `BROWSER="firefox --new-window"` works, and `%s` marks where the URL goes (as xdg-open reads it).
    const [command = '', ...args] = env.browser.split(/\s+/)
    return args.includes('%s') ? { command, args: args.map((a) => (a === '%s' ? url : a)) } : { command, args: [...args, url] }
  }
  switch (process.platform) {
    case 'darwin':
      return { command: 'open', args: [url] }
    case 'win32':
      // Not `start`: cmd would split the URL at its `&`s.
      return { command: 'rundll32', args: ['url.dll,FileProtocolHandler', url] }
    default:
      if (!env.hasDisplay) return { reason: 'no graphical session (DISPLAY and WAYLAND_DISPLAY are unset)' }
      return { command: 'xdg-open', args: [url] }
  }
}

/**
 * Tries to open the URL in the person's browser, detached, its output discarded. A failure to
 * start the opener is not an error: the URL is always printed as well.
 */
export async function openBrowser(env: CliEnvironment, url: string): Promise<BrowserLaunch> {
  const chosen = opener(env, url)
  if ('reason' in chosen) return { opened: false, reason: chosen.reason }
  return new Promise((done) => {
    try {
      const child = spawn(chosen.command, chosen.args, { detached: true, stdio: 'ignore' })
      child.once('error', (error) => done({ opened: false, reason: `${chosen.command}: ${error.message}` }))
      child.once('spawn', () => {
        child.unref()
        done({ opened: true, command: chosen.command })
      })
    } catch (error) {
      done({ opened: false, reason: error instanceof Error ? error.message : String(error) })
    }
  })
}
