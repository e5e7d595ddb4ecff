import { CliError } from './cli-error.ts'

/**
 * How a person names a project on the command line: `OWNER/PROJECT` (as `gh` takes `OWNER/REPO`),
 * or its web URL (`https://quire.example/OWNER/PROJECT`, as the project's `url` reads): the
 * operation's `params.owner` and `params.projectSlug`.
 */
export function parseProjectReference(flag: string, text: string): { owner: string; projectSlug: string } {
  const value = text.trim()
  let segments: string[]
  if (/^https?:\/\//i.test(value)) {
    let url: URL
    try {
      url = new URL(value)
    } catch {
      throw invalid(flag, text)
    }
    // The web app may live under a path prefix: the project is the last two segments.
    segments = url.pathname.split('/').filter(Boolean).slice(-2).map(decodeURIComponent)
  } else {
    segments = value.split('/')
  }
  const [owner, projectSlug] = segments
  if (segments.length !== 2 || !owner || !projectSlug) throw invalid(flag, text)
  return { owner, projectSlug }
}

function invalid(flag: string, text: string): CliError {
  return new CliError('usage', `--${flag} "${text}" does not name a project.`, {
    hint: `Give OWNER/PROJECT (e.g. --${flag} ada/notes) or the project's URL.`,
  })
}
