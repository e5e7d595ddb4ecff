import { openBrowser } from '../credentials/open-browser.ts'
import { CliError } from '../run/cli-error.ts'
import type { Handler } from '../run/context.ts'

/** `quire artifact open`: the artifact's page in the browser; its URL on standard output either way. */
export const open: Handler = async (context, args) => {
  const reference = args.artifactId as string | undefined
  if (reference === undefined)
    throw new CliError('usage', 'Name the artifact to open.', { hint: 'e.g. quire artifact open ada/notes/plan' })
  const artifact = await context.artifact(reference)
  if (!context.globals.input) return { kind: 'value', value: { url: artifact.url, opened: false } }
  const launch = await openBrowser(context.env, artifact.url)
  if (launch.opened) context.progress(`Opening ${artifact.url} in your browser.`)
  else context.progress(`Not opening a browser (${launch.reason}); the URL:`)
  return { kind: 'value', value: { url: artifact.url, opened: launch.opened } }
}
