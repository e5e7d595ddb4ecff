import { spawn } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isQuireApiError } from '@quire/client'
import { preview } from '../run/call-operation.ts'
import { CliError } from '../run/cli-error.ts'
import type { CommandContext, Handler } from '../run/context.ts'

/** Runs the person's editor on the file, on this terminal, and waits for it. */
function runEditor(context: CommandContext, file: string): Promise<number> {
  const editor = context.env.editor ?? 'vi'
  // A shell command line (`code --wait`, `emacsclient -t`), as git and gh read $EDITOR; the file is its last argument.
  return new Promise((done, fail) => {
    const child = spawn('/bin/sh', ['-c', `${editor} "$1"`, 'quire-editor', file], { stdio: 'inherit' })
    child.once('error', fail)
    child.once('close', (code, signal) => done(code ?? (signal ? 128 : 1)))
  })
}

/**
 * `quire artifact edit`: the latest content in $EDITOR, appended as a new version on top of the
 * version opened (`expectedLatestVersion`). If someone appended meanwhile, nothing is written: the
 * changes missed are shown, and the edited text is kept in its file.
 */
export const edit: Handler = async (context, args) => {
  const reference = args.artifactId as string | undefined
  if (reference === undefined)
    throw new CliError('usage', 'Name the artifact to edit.', { hint: 'e.g. quire artifact edit ada/notes/plan' })
  if (!context.interactive)
    throw new CliError('usage', 'quire artifact edit needs a terminal (it opens $EDITOR), and --no-input forbids it.', {
      hint: 'Without a terminal: quire artifact update ARTIFACT --content-file FILE --expected-latest-version N',
    })
  const artifact = await context.artifact(reference)
  const artifactId = artifact.id
  const client = await context.client()
  const opened = await client.call('getContent', { params: { artifactId }, query: { version: artifact.latestVersion } })
  const where = `${artifact.ownerUsername}/${artifact.projectSlug}/${artifact.slug}`
  const directory = await mkdtemp(join(tmpdir(), 'quire-edit-'))
  const file = join(directory, `${artifact.slug}.${artifact.type === 'mermaid' ? 'mmd' : artifact.type}`)
  await writeFile(file, opened.content, { mode: 0o600 })

  const status = await runEditor(context, file)
  if (status !== 0)
    throw new CliError('error', `The editor exited with status ${status}; nothing was written.`, {
      code: 'editor_failed',
      hint: `Your text is kept in ${file}.`,
    })
  const content = await readFile(file, 'utf8')
  if (content === opened.content) {
    await rm(directory, { recursive: true, force: true })
    context.progress(`No changes; ${where} stays at version ${opened.versionNumber}.`)
    return { kind: 'value', value: { action: 'unchanged', version: opened.versionNumber, url: artifact.url } }
  }
  const input = {
    params: { artifactId },
    body: {
      content,
      changelog: (args.changelog as string | undefined) ?? 'Edited with quire',
      expectedLatestVersion: opened.versionNumber,
    },
  }
  if (context.globals.dryRun)
    try {
      return await preview(context, 'appendVersion', input, reference)
    } finally {
      // Nothing is written on a dry run, and the edited text goes with it.
      await rm(directory, { recursive: true, force: true })
    }
  try {
    const version = await client.call('appendVersion', input)
    await rm(directory, { recursive: true, force: true })
    return { kind: 'value', value: { action: 'appended', version: version.versionNumber, url: artifact.url } }
  } catch (error) {
    if (!isQuireApiError(error, 'version_conflict')) throw error
    const latest = Number((error.problem as { latestVersion?: unknown }).latestVersion)
    const missed = await client.call('diffVersions', { params: { artifactId }, query: { from: opened.versionNumber, to: latest } })
    if (context.globals.format !== 'json')
      context.io.stderr(`What changed since you opened version ${opened.versionNumber}:\n${missed.diff}\n`)
    throw new CliError(
      'conflict',
      `${where} moved on to version ${latest} while you edited version ${opened.versionNumber}; nothing was written.`,
      {
        code: 'version_conflict',
        hint: `Your text is kept in ${file}. Merge the changes above into it, then: quire artifact update ${where} --content-file ${file} --expected-latest-version ${latest}`,
        details: { latestVersion: latest, expectedLatestVersion: opened.versionNumber, kept: file, diff: missed.diff },
      },
    )
  }
}
