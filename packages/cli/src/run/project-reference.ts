import { CliError } from './cli-error.ts'

/**
 * How a person names a project on the command line: `OWNER/PROJECT` (as `gh` takes `OWNER/REPO`),
 * or its web URL (`https://quire.example/OWNER/PROJECT`, as the project's `url` reads): the
 * operation's `params.owner` and `params.projectSlug`.
 */
export function parseProjectReference(flag: string, text: string): { owner: string; projectSlug: string } {
  const segments = pathSegments(text, 2)
  const [owner, projectSlug] = segments ?? []
  if (segments?.length !== 2 || !owner || !projectSlug) throw invalid(flag, text)
  return { owner, projectSlug }
}

/**
 * The segments a reference names: of `OWNER/…` as written, or of a web URL the last `count` (the
 * web app may live under a path prefix), decoded; null when it is no URL after all.
 */
export function pathSegments(text: string, count: number): string[] | null {
  const value = text.trim()
  if (!/^https?:\/\//i.test(value)) return value.split('/')
  try {
    return new URL(value).pathname.split('/').filter(Boolean).slice(-count).map(decodeURIComponent)
  } catch {
    return null
  }
}

function invalid(flag: string, text: string): CliError {
  return new CliError('usage', `--${flag} "${text}" does not name a project.`, {
    hint: `Give OWNER/PROJECT (e.g. --${flag} ada/notes) or the project's URL.`,
  })
}
