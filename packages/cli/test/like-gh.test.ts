/**
 * `quire` as a `gh` user expects it, against a real running Quire: artifacts named by path or
 * URL, body fields as flags, field selection and jq, short human output, errors that say what to
 * do next, and the terminal paths (colour, relative times, prompts, $EDITOR) on a
 * pseudo-terminal. Each call is the CLI as a child process (the built bundle in the test line).
 */
import { chmod, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { timeoutFor, until } from '@quire/testing/waits'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ansi, plain, runOnTerminal } from './pty.ts'
import { cliEntry, commandsTimeout, type Finished, type Quire, startQuire } from './quire-process.ts'

let quire: Quire
let ada = ''
let as: (args: readonly string[], options?: { stdin?: string; env?: Record<string, string> }) => Promise<Finished>
let artifactId = ''
let url = ''

beforeAll(async () => {
  quire = await startQuire()
  ada = await quire.token('ada@example.com')
  as = (args, options = {}) => quire.cli(args, { ...options, env: { AGENT_SERVICE_TOKEN: ada, ...options.env } })
  const created = await as(['project', 'create', '--owner-username', 'ada', '--slug', 'notes', '--title', 'Notes', '--icon', 'N'])
  expect(created.stdout).toBe(`Created project ada/notes: ${quire.webUrl}/ada/notes\n`)
  await writeFile(join(quire.home, 'plan.md'), '# Plan\n\nFirst.\n')
  // Waits: the start, a token, a command.
}, timeoutFor(3))
afterAll(async () => {
  await quire?.stop()
}, timeoutFor(1))

/** The one JSON document a command printed (JSON mode), after checking it succeeded. */
async function json<T = Record<string, unknown>>(args: readonly string[], stdin?: string): Promise<T> {
  const done = await as(['--format', 'json', ...args], stdin === undefined ? {} : { stdin })
  expect(done.code, `quire ${args.join(' ')}: ${done.stderr}`).toBe(0)
  return JSON.parse(done.stdout) as T
}

/** The environment `quire` gets on the pseudo-terminal. */
const terminalEnv = (extra: Record<string, string> = {}) => quire.cliEnv({ AGENT_SERVICE_TOKEN: ada, ...extra })

describe('artifacts by path, body fields as flags, output like gh', { timeout: commandsTimeout }, () => {
  it('push prints one line with the URL and the version; its changelog does not carry the local path', async () => {
    const file = join(quire.home, 'plan.md')
    const done = await as(['push', '--owner', 'ada', '--project-slug', 'notes', '--file', file])
    expect(done.code).toBe(0)
    expect(done.stdout).toBe(`Created ${quire.webUrl}/ada/notes/plan version 1\n`)
    const versions = await json<{ items: { changelog: string }[] }>(['artifact', 'versions', 'ada/notes/plan'])
    expect(versions.items[0]?.changelog).toBe('Pushed plan.md')
    const artifact = await json<{ id: string; url: string }>(['artifact', 'get', 'ada/notes/plan'])
    artifactId = artifact.id
    url = artifact.url
    expect(url).toBe(`${quire.webUrl}/ada/notes/plan`)
  })

  it('every body field is a flag: --content-file (a file or -), --changelog, --expected-latest-version', async () => {
    await writeFile(join(quire.home, 'v2.md'), '# Plan\n\nFirst.\nSecond.\n')
    const done = await as([
      'artifact',
      'update',
      'ada/notes/plan',
      '--content-file',
      join(quire.home, 'v2.md'),
      '--changelog',
      'Second line',
      '--expected-latest-version',
      '1',
    ])
    expect(done.stdout).toBe('Appended version 2 to ada/notes/plan.\n')
    const piped = await as(['artifact', 'update', url, '--content-file', '-', '--expected-latest-version', '2'], {
      stdin: '# Plan\n\nFirst.\nSecond.\nThird.\n',
    })
    expect(piped.stdout).toBe(`Appended version 3 to ${url}.\n`)
    expect(await json(['artifact', 'content', artifactId, '--version', '3'])).toMatchObject({
      content: '# Plan\n\nFirst.\nSecond.\nThird.\n',
    })
  })

  it('--json takes @FILE and -, and a field flag wins over the same field in --json', async () => {
    const body = join(quire.home, 'v4.json')
    await writeFile(body, JSON.stringify({ content: 'four\n', changelog: 'from the file', expectedLatestVersion: 3 }))
    expect(await json(['artifact', 'update', 'ada/notes/plan', '--json', `@${body}`, '--changelog', 'from the flag'])).toMatchObject({
      versionNumber: 4,
      changelog: 'from the flag',
    })
    const fromStdin = await json(
      ['artifact', 'update', 'ada/notes/plan', '--json', '-'],
      JSON.stringify({ content: 'five\n', expectedLatestVersion: 4 }),
    )
    expect(fromStdin).toMatchObject({ versionNumber: 5 })
  })

  it('an artifact is named by OWNER/PROJECT/SLUG, by its URL or by its id, wherever --artifact-id is taken', async () => {
    const byPath = await as(['artifact', 'content', 'ada/notes/plan', '--version', '1'])
    const byUrl = await as(['artifact', 'content', `${url}?v=1`, '--version', '1'])
    const byId = await as(['artifact', 'content', '--artifact-id', artifactId, '--version', '1'])
    expect(byPath.stdout).toBe('# Plan\n\nFirst.\n')
    expect(byUrl.stdout).toBe(byPath.stdout)
    expect(byId.stdout).toBe(byPath.stdout)
    const diff = await as(['artifact', 'diff', 'ada/notes/plan', '--from', '1', '--to', '2'])
    expect(diff.stdout).toContain('+Second.')
    expect(diff.stdout).not.toMatch(ansi)
    const twice = await as(['artifact', 'get', 'ada/notes/plan', '--artifact-id', artifactId])
    expect(twice.code).toBe(2)
    expect(twice.stderr).toContain('given twice')
  })

  it('--format json --fields picks fields (nested too); --jq filters; an unknown field lists the known ones', async () => {
    const page = await json<{ items: Record<string, unknown>[] }>(['artifact', 'list', '--fields', 'url,latestVersion,access.publicView'])
    expect(page.items).toEqual([{ url, latestVersion: 5, access: { publicView: false } }])
    const jq = await as(['artifact', 'list', '--jq', '.items[] | "\\(.slug) v\\(.latestVersion)"'])
    expect(jq.stdout).toBe('plan v5\n')
    const unknown = await as(['artifact', 'get', 'ada/notes/plan', '--fields', 'url,colour'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain('Unknown field for --fields: colour.')
    expect(unknown.stderr).toContain('Available: id, ownerUsername')
    const badJq = await as(['artifact', 'list', '--jq', '.items['])
    expect(badJq.code).toBe(2)
    expect(badJq.stderr).toMatch(/--jq: jq: error/)
  })

  it('human output: tables with readable headers, no empty fields, ISO times off a terminal', async () => {
    const table = await as(['artifact', 'list'])
    const [header, row] = table.stdout.split('\n')
    expect(header).toMatch(/^OWNER\s+PROJECT\s+SLUG\s+VERSION\s+TITLE\s+UPDATED$/)
    expect(row).toMatch(/^ada\s+notes\s+plan\s+5\s+Plan\s+\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
    const audit = await as(['audit', 'list', 'ada/notes/plan'])
    expect(audit.stdout.split('\n')[0]).toMatch(/^WHEN\s+ACTION\s+ACTOR\s+VIA\s+ARTIFACT$/)
    const details = await as(['artifact', 'get', 'ada/notes/plan'])
    expect(details.stdout).toMatch(/^URL:\s+http/m)
    expect(details.stdout).toMatch(/^Latest version:\s+5$/m)
    // The description was never set: no line for it, and no line ends empty.
    expect(details.stdout).not.toContain('Description')
    expect(details.stdout).not.toMatch(/:\s*$/m)
    // As `gh auth status` reads: who, from where.
    const status = await as(['auth', 'status'])
    expect(status.stdout.split('\n')[0]).toBe(
      `Signed in to ${quire.apiUrl} as ada (ada@example.com), with a token from AGENT_SERVICE_TOKEN.`,
    )
    const signedOut = await quire.cli(['auth', 'status'])
    expect(signedOut.stdout).toContain(`Not signed in to ${quire.apiUrl}: no credential.`)
    expect(signedOut.stdout).toContain('run quire login')
    // --fields narrows the details too.
    expect((await as(['artifact', 'get', 'ada/notes/plan', '--fields', 'url,latestVersion'])).stdout).toMatch(
      /^URL:\s+\S+\nLatest version:\s+5\n$/,
    )
  })
})

describe('errors that say what to do next', { timeout: commandsTimeout }, () => {
  it('bare quire prints help (exit 0): commands, examples, and what each exit code means', async () => {
    const done = await quire.cli([])
    expect(done.code).toBe(0)
    expect(done.stdout).toContain('Usage: quire <command> [flags]')
    expect(done.stdout).toContain('$ quire push --owner ada')
    expect(done.stdout).toMatch(/^\s+6\s+Conflict: the artifact moved on/m)
  })

  it("a command's help shows its own flags before the global ones, and examples", async () => {
    const help = (await quire.cli(['artifact', 'update', '--help'])).stdout
    expect(help.indexOf('--content-file')).toBeLessThan(help.indexOf('Global flags:'))
    expect(help.indexOf('--base-url')).toBeGreaterThan(help.indexOf('Global flags:'))
    expect(help).toContain('$ quire artifact update ada/notes/plan --content-file plan.md --expected-latest-version 3')
    expect(help).toContain('ARTIFACT  The artifact: OWNER/PROJECT/SLUG, its URL, or its id')
  })

  it('a bad flag value names the flag and shows an example, before anything is sent', async () => {
    const when = await as(['share', 'create', 'ada/notes/plan', '--expires-at', 'tomorrow'])
    expect(when).toMatchObject({ code: 2 })
    expect(when.stderr).toBe(
      'error: --expires-at takes an ISO 8601 time with a zone, not "tomorrow".\nhint: e.g. --expires-at 2026-12-31T23:59:59Z\n',
    )
    const role = await as(['share', 'create', 'ada/notes/plan', '--role', 'owner'])
    expect(role.stderr).toContain('--role must be one of viewer, editor, not "owner".')
    // A command with a handler of its own is checked the same way (push reads no file for it).
    const type = await as(['push', '--owner', 'ada', '--project-slug', 'notes', '--file', 'missing.md', '--type', 'docx'])
    expect(type.code).toBe(2)
    expect(type.stderr).toContain('error: --type must be one of md, txt, html, json, yaml, csv, mermaid, svg, not "docx".')
    const number = await as(['artifact', 'diff', 'ada/notes/plan', '--from', 'one', '--to', '2'])
    expect(number.stderr).toBe('error: --from takes a whole number, not "one".\nhint: e.g. --from 2\n')
    const missing = await as(['artifact', 'update', 'ada/notes/plan', '--expected-latest-version', '5'])
    expect(missing.stderr).toContain('Missing --content-file or a field of --json')
    // What only the server can tell is reported against the flag too.
    const far = await as(['share', 'create', 'ada/notes/plan', '--expires-at', '2099-01-01T00:00:00Z'])
    expect(far.code).toBe(2)
    expect(far.stderr).toContain('error: Invalid input: --expires-at is more than a year ahead.')
  })

  it('a taken project slug suggests free ones: in the hint, in JSON mode, and in the availability answer', async () => {
    const again = await as(['project', 'create', '--owner-username', 'ada', '--slug', 'notes', '--title', 'Notes', '--icon', 'N'])
    expect(again.code).not.toBe(0)
    expect(again.stderr).toContain('error: A project `notes` already exists under `ada`.')
    expect(again.stderr).toContain('hint: Free instead: notes-2, notes-3, notes-4.')
    const inJson = await as([
      '--format',
      'json',
      'project',
      'create',
      '--owner-username',
      'ada',
      '--slug',
      'notes',
      '--title',
      'Team notes',
      '--icon',
      'N',
    ])
    expect(JSON.parse(inJson.stdout || inJson.stderr)).toMatchObject({
      error: { code: 'slug_taken', suggestions: ['team-notes', 'notes-team', 'notes-2'] },
    })
    const availability = await json(['project', 'slug-availability', '--owner', 'ada', '--slug', 'notes'])
    expect(availability).toEqual({
      ownerUsername: 'ada',
      slug: 'notes',
      available: false,
      reason: 'taken',
      suggestions: ['notes-2', 'notes-3', 'notes-4'],
    })
    // A project is not a username: `status` is free for a project.
    expect(await json(['project', 'slug-availability', '--owner', 'ada', '--slug', 'status'])).toMatchObject({ available: true })
  })

  it('not found suggests where to look; a version that does not exist suggests the versions', async () => {
    const path = await as(['artifact', 'get', 'ada/notes/nope'])
    expect(path.code).toBe(3)
    expect(path.stderr).toContain('error: No artifact at ada/notes/nope that this credential can see.')
    expect(path.stderr).toContain('hint: quire artifact list shows the artifacts you can see.')
    const version = await as(['artifact', 'content', 'ada/notes/plan', '--version', '99'])
    expect(version.code).toBe(3)
    expect(version.stderr).toContain('hint: quire artifact versions ARTIFACT lists its versions.')
    const share = await as(['share', 'revoke', 'shl_00000000000000000000000000', '--yes'])
    expect(share.code).toBe(3)
    expect(share.stderr).toContain('hint: quire share list shows what you can see.')
  })

  it("redaction replaces the secret only, never the server's words", async () => {
    const bogus = 'qk_thisIsNotAValidKeyButLooksLikeOne123'
    const done = await quire.cli(['whoami'], { env: { AGENT_SERVICE_TOKEN: bogus } })
    expect(done.code).toBe(4)
    expect(done.stderr).toContain('error: The bearer credential is not valid: it is unknown, expired or revoked.')
    expect(done.stderr).not.toContain(bogus)
    const none = await quire.cli(['whoami'])
    expect(none.stderr).toContain('error: Sign in or send `Authorization: Bearer <token>`.\n')
    const debug = await quire.cli(['--debug', 'whoami'], { env: { AGENT_SERVICE_TOKEN: bogus } })
    expect(debug.stderr).toContain('"authorization":"Bearer [redacted]"')
    expect(debug.stderr).not.toContain(bogus)
  })
})

describe('the owner keeps the audit trail of a deleted artifact', { timeout: commandsTimeout }, () => {
  it('after delete, the trail is readable by id and marked deleted', async () => {
    await writeFile(join(quire.home, 'gone.md'), '# Gone\n')
    await as(['push', '--owner', 'ada', '--project-slug', 'notes', '--file', join(quire.home, 'gone.md')])
    const { id } = await json<{ id: string }>(['artifact', 'get', 'ada/notes/gone'])
    expect((await as(['artifact', 'delete', 'ada/notes/gone', '--yes'])).stdout).toBe(
      'Deleted ada/notes/gone; its owner can still read its audit trail.\n',
    )
    const trail = await json<{ items: { action: string }[]; deletedArtifact: { id: string } }>(['audit', 'list', id])
    expect(trail.items.map((e) => e.action)).toEqual(['artifact.deleted', 'artifact.created'])
    expect(trail.deletedArtifact.id).toBe(id)
    const text = await as(['audit', 'list', id])
    expect(text.code).toBe(0)
    expect(text.stdout).toMatch(/artifact\.deleted/)
    expect(text.stderr).toMatch(/^This artifact was deleted \d{4}-.*; its trail stays readable by its owners\.$/m)
    // By path it is gone, and the hint says how to name it.
    const byPath = await as(['audit', 'list', 'ada/notes/gone'])
    expect(byPath.code).toBe(3)
    expect(byPath.stderr).toContain('name it by its id')
  })
})

describe('on a terminal', { timeout: commandsTimeout }, () => {
  it('tables show relative times; diffs are coloured; NO_COLOR and --no-color turn colour off', async () => {
    const list = await runOnTerminal(['artifact', 'list'], { env: terminalEnv() })
    expect(plain(list.stdout)).toMatch(/^ada\s+notes\s+plan\s+5\s+Plan\s+(just now|\d+ seconds? ago|\d+ minutes? ago)\s*$/m)
    const diff = await runOnTerminal(['artifact', 'diff', 'ada/notes/plan', '--from', '1', '--to', '2'], { env: terminalEnv() })
    expect(diff.stdout).toMatch(new RegExp(`${String.fromCharCode(27)}\\[32m\\+Second\\.`))
    const quiet = await runOnTerminal(['artifact', 'diff', 'ada/notes/plan', '--from', '1', '--to', '2', '--no-color'], {
      env: terminalEnv(),
    })
    expect(quiet.stdout).toContain('+Second.')
    expect(quiet.stdout).not.toMatch(ansi)
    const noColor = await runOnTerminal(['artifact', 'diff', 'ada/notes/plan', '--from', '1', '--to', '2'], {
      env: terminalEnv({ NO_COLOR: '1' }),
    })
    expect(noColor.stdout).not.toMatch(ansi)
  })

  it('a destructive command asks in words, and goes ahead only on yes', async () => {
    await writeFile(join(quire.home, 'doomed.md'), '# Doomed\n')
    await as(['push', '--owner', 'ada', '--project-slug', 'notes', '--file', join(quire.home, 'doomed.md')])
    const declined = await runOnTerminal(['artifact', 'delete', 'ada/notes/doomed'], { env: terminalEnv(), input: 'n\n' })
    expect(declined.code).toBe(130)
    expect(plain(declined.stdout)).toContain('Delete artifact ada/notes/doomed? [y/N]')
    expect(plain(declined.stdout)).toContain('Cancelled; nothing was changed.')
    expect((await as(['artifact', 'get', 'ada/notes/doomed'])).code).toBe(0)
    const confirmed = await runOnTerminal(['artifact', 'delete', 'ada/notes/doomed'], { env: terminalEnv(), input: 'y\n' })
    expect(confirmed.code).toBe(0)
    expect(plain(confirmed.stdout)).toContain('Deleted ada/notes/doomed')
    expect((await as(['artifact', 'get', 'ada/notes/doomed'])).code).toBe(3)
  })

  it('artifact edit opens $EDITOR on the latest content and appends what was saved, on top of the version opened', async () => {
    const editor = join(quire.home, 'editor.sh')
    // An editor that appends a line to the file it is given, and notes which file it was.
    await writeFile(editor, `#!/bin/sh\nprintf 'Edited.\\n' >> "$1"\nprintf '%s' "$1" > "${join(quire.home, 'edited-path')}"\n`)
    await chmod(editor, 0o755)
    const done = await runOnTerminal(['artifact', 'edit', 'ada/notes/plan', '--changelog', 'Edited'], {
      env: terminalEnv({ EDITOR: editor }),
    })
    expect(done.code, done.stdout).toBe(0)
    expect(plain(done.stdout)).toContain(`Updated ${url} version 6`)
    expect(await json(['artifact', 'content', 'ada/notes/plan'])).toMatchObject({ versionNumber: 6, content: 'five\nEdited.\n' })
    // Not on a terminal (or with --no-input), edit refuses and names the command that works without one.
    const headless = await as(['artifact', 'edit', 'ada/notes/plan'], { env: { EDITOR: editor } })
    expect(headless.code).toBe(2)
    expect(headless.stderr).toContain('quire artifact update ARTIFACT --content-file FILE --expected-latest-version N')
  })

  it('artifact edit refused on a conflict: shows the diff it missed, writes nothing, and keeps the edited text', async () => {
    const editor = join(quire.home, 'racing-editor.sh')
    // While "editing", someone else appends version 7; then the edit is saved.
    const cli = `"${process.execPath}" --conditions=source "${cliEntry}"`
    await writeFile(
      editor,
      `#!/bin/sh\nprintf 'theirs\\n' | ${cli} artifact update ada/notes/plan --content-file - --expected-latest-version 6 >/dev/null\nprintf 'Mine.\\n' >> "$1"\n`,
    )
    await chmod(editor, 0o755)
    const done = await runOnTerminal(['artifact', 'edit', 'ada/notes/plan'], { env: terminalEnv({ EDITOR: editor }) })
    const shown = plain(done.stdout)
    expect(done.code, shown).toBe(6)
    expect(shown).toContain('What changed since you opened version 6:')
    expect(shown).toContain('+theirs')
    expect(shown).toContain('ada/notes/plan moved on to version 7 while you edited version 6; nothing was written.')
    const kept = /Your text is kept in (\S+)\./.exec(shown)?.[1] ?? ''
    expect(await readFile(kept, 'utf8')).toBe('five\nEdited.\nMine.\n')
    expect(await json(['artifact', 'content', 'ada/notes/plan'])).toMatchObject({ versionNumber: 7, content: 'theirs\n' })
  })

  it('artifact open opens the page with $BROWSER and prints its URL', async () => {
    const browser = join(quire.home, 'browser.sh')
    const opened = join(quire.home, 'opened-url')
    await writeFile(browser, `#!/bin/sh\nprintf '%s' "$1" > "${opened}"\n`)
    await chmod(browser, 0o755)
    const done = await as(['artifact', 'open', 'ada/notes/plan'], { env: { BROWSER: browser } })
    expect(done.code).toBe(0)
    expect(done.stdout).toBe(`${url}\n`)
    // The browser is started detached: wait for it to have written.
    const written = async () => (await readFile(opened, 'utf8').catch(() => '')) || undefined
    expect(await until(`$BROWSER to write ${opened}`, written)).toBe(url)
  })
})
