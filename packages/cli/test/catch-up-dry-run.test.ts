/**
 * `quire artifact changes --since N` (catch-up) and `--dry-run` on the writes the server can
 * dry-run (create and push, update, restore, access set), against a real running Quire: the table
 * then the diff, the server's own answer to a dry run, and nothing written.
 */
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { timeoutFor } from '@quire/testing/waits'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ansi, plain, runOnTerminal } from './pty.ts'
import { commandsTimeout, type Finished, type Quire, startQuire } from './quire-process.ts'

let quire: Quire
let ada = ''
let owner = ''
let artifactId = ''
let named = ''
let asAda: (args: readonly string[], options?: { stdin?: string }) => Promise<Finished>

/** JSON mode; expects success and returns the one JSON document printed. */
async function json<T = Record<string, unknown>>(args: readonly string[], stdin?: string): Promise<T> {
  const done = await asAda(['--format', 'json', ...args], stdin === undefined ? {} : { stdin })
  if (done.code !== 0) throw new Error(`quire ${args.join(' ')} exited ${done.code}: ${done.stderr}`)
  return JSON.parse(done.stdout) as T
}

beforeAll(async () => {
  quire = await startQuire()
  ada = await quire.token('ada@example.com')
  asAda = (args, options = {}) => quire.cli(args, { ...options, env: { AGENT_SERVICE_TOKEN: ada } })
  owner = (await json<{ username: string }>(['whoami'])).username
  await json(['project', 'create', '--owner-username', owner, '--slug', 'notes', '--title', 'Notes', '--icon', 'N'])
  const file = join(quire.home, 'plan.md')
  await writeFile(file, '# Plan\n\nOne.\n')
  const created = await json<{ artifact: { id: string; slug: string } }>([
    'push',
    '--owner',
    owner,
    '--project-slug',
    'notes',
    '--file',
    file,
  ])
  artifactId = created.artifact.id
  named = `${owner}/notes/${created.artifact.slug}`
  for (const [n, text] of [
    [1, '# Plan\n\nTwo.\n'],
    [2, '# Plan\n\nTwo.\n\nThree.\n'],
  ] as const) {
    await json(
      ['artifact', 'update', named, '--content-file', '-', '--expected-latest-version', String(n), '--changelog', `to ${n + 1}`],
      text,
    )
  }
  // Waits: the start, a token, five commands.
}, timeoutFor(7))
afterAll(async () => {
  await quire?.stop()
}, timeoutFor(1))

describe('quire artifact changes --since', { timeout: commandsTimeout }, () => {
  it('JSON: the server answer (versions after N, diff from N to the head)', async () => {
    const changes = await json<{ versions: { items: { versionNumber: number }[] }; diff: string; latestVersion: number }>([
      'artifact',
      'changes',
      named,
      '--since',
      '1',
    ])
    expect(changes.latestVersion).toBe(3)
    expect(changes.versions.items.map((v) => v.versionNumber)).toEqual([3, 2])
    expect(changes.diff).toContain('-One.')
    expect(changes.diff).toContain('+Three.')
  })

  it('text: the versions table, then the diff; coloured on a terminal', async () => {
    const done = await asAda(['artifact', 'changes', named, '--since', '2'])
    expect(done.code).toBe(0)
    const lines = done.stdout.split('\n')
    expect(lines[0]).toMatch(/^VERSION\s+CREATED\s+BY\s+SIZE\s+CHANGELOG$/)
    expect(lines[1]).toMatch(/^3\s+.*to 3$/)
    expect(done.stdout).toContain('--- v2\n+++ v3\n')
    expect(done.stdout).toContain('+Three.')
    expect(done.stdout).not.toMatch(ansi)
    const onTerminal = await runOnTerminal(['artifact', 'changes', named, '--since', '2'], {
      env: quire.cliEnv({ AGENT_SERVICE_TOKEN: ada }),
    })
    expect(onTerminal.stdout).toMatch(ansi)
    expect(plain(onTerminal.stdout)).toContain('+Three.')
  })

  it('since the latest: nothing, said on standard error; past the latest: not found (exit 3); no --since: usage', async () => {
    const same = await asAda(['artifact', 'changes', named, '--since', '3'])
    expect(same.code).toBe(0)
    expect(same.stdout).toBe('')
    expect(same.stderr).toContain('Nothing changed since version 3')
    const past = await asAda(['artifact', 'changes', named, '--since', '9'])
    expect(past.code).toBe(3)
    expect(past.stderr).toContain('Version 9 does not exist (latest is 3)')
    const missing = await asAda(['artifact', 'changes', named])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('--since')
  })
})

describe('--dry-run asks the server where it can', { timeout: commandsTimeout }, () => {
  it('artifact update --dry-run: "Would append version N to OWNER/PROJECT/SLUG" and the diff; nothing written', async () => {
    const args = ['artifact', 'update', named, '--content-file', '-', '--expected-latest-version', '3', '--dry-run']
    const four = '# Plan\n\nFour.\n'
    const text = await asAda(args, { stdin: four })
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout.split('\n')[0]).toBe(`Would append version 4 to ${named}; nothing was written.`)
    expect(text.stdout).toContain('--- v3\n+++ v4\n')
    expect(text.stdout).toContain('+Four.')
    const answer = await json<{ dryRun: boolean; wouldCreate: { versionNumber: number }; diff: string }>(args, four)
    expect(answer).toMatchObject({ dryRun: true, artifactId, wouldCreate: { versionNumber: 4 }, fromVersion: 3 })
    expect(await json(['artifact', 'get', named])).toMatchObject({ latestVersion: 3 })
    // The server checked it: a stale expectation is the write's own conflict (exit 6).
    const stale = await asAda(['artifact', 'update', named, '--content-file', '-', '--expected-latest-version', '1', '--dry-run'], {
      stdin: 'x',
    })
    expect(stale.code).toBe(6)
    expect(stale.stderr).toContain('version 3')
    // The way to catch up is named, with the version the caller had.
    expect(stale.stderr).toContain(`quire artifact changes ${named} --since 1`)
  })

  it('artifact restore --dry-run and access set --dry-run (no --yes needed) show the server answer and change nothing', async () => {
    const restore = await asAda(['artifact', 'restore', named, '--version', '1', '--dry-run'])
    expect(restore.code, restore.stderr).toBe(0)
    expect(restore.stdout.split('\n')[0]).toBe(`Would restore version 1 of ${named} as version 4; nothing was written.`)
    expect(restore.stdout).toContain('+One.')
    const access = await asAda(['artifact', 'access', 'set', named, '--public-view', '--dry-run'])
    expect(access.code, access.stderr).toBe(0)
    expect(access.stdout.trim()).toBe(`Would change public view of ${named}: access would be public. Nothing was written.`)
    const answer = await json(['artifact', 'access', 'set', named, '--public-view', '--dry-run'])
    expect(answer).toMatchObject({ dryRun: true, changed: ['publicView'], wouldBe: { publicView: true } })
    expect(await json(['artifact', 'access', 'get', named])).toMatchObject({ publicView: false })
    expect(await json(['artifact', 'get', named])).toMatchObject({ latestVersion: 3 })
  })

  it('a key that may write but not read (no artifacts:read) gets no diff: the dry run and the conflict say why', async () => {
    const writer = await quire.token('ada@example.com', ['artifacts:update'])
    const asWriter = (args: readonly string[], stdin: string) => quire.cli(args, { stdin, env: { AGENT_SERVICE_TOKEN: writer } })
    const why = "No diff: The diff shows the artifact's content, which this credential may not read: it needs artifacts:read."
    const dry = await asWriter(['artifact', 'update', artifactId, '--content-file', '-', '--expected-latest-version', '3', '--dry-run'], '')
    expect(dry.code, dry.stderr).toBe(0)
    expect(dry.stdout.trim()).toBe(`Would append version 4 to ${artifactId}; nothing was written.`)
    expect(dry.stderr).toContain(why)
    const stale = await asWriter(['artifact', 'update', artifactId, '--content-file', '-', '--expected-latest-version', '1'], '')
    expect(stale.code).toBe(6)
    expect(stale.stderr).toContain('it needs artifacts:read. Merge what you know of the changes, and send --expected-latest-version 3.')
    for (const done of [dry, stale]) for (const line of ['One.', 'Two.', 'Three.']) expect(done.stdout + done.stderr).not.toContain(line)
    expect(await json(['artifact', 'get', named])).toMatchObject({ latestVersion: 3 })
  })

  it('push --dry-run of a new file: "Would create OWNER/PROJECT/SLUG version 1" from the server; nothing created', async () => {
    const file = join(quire.home, 'draft.txt')
    await writeFile(file, 'draft\n')
    const args = ['push', '--owner', owner, '--project-slug', 'notes', '--file', file, '--dry-run']
    const text = await asAda(args)
    expect(text.code, text.stderr).toBe(0)
    const url = `${quire.webUrl}/${owner}/notes/draft`
    expect(text.stdout.trim()).toBe(`Would create ${owner}/notes/draft version 1 (6 bytes, private): ${url}; nothing was written.`)
    const answer = await json<{ dryRun: boolean; wouldCreate: Record<string, unknown> }>(args)
    expect(answer).toMatchObject({
      dryRun: true,
      wouldCreate: { ownerUsername: owner, projectSlug: 'notes', slug: 'draft', url, type: 'txt', versionNumber: 1, size: 6 },
    })
    const missing = await asAda(['path', 'artifact', '--owner', owner, '--project-slug', 'notes', '--slug', 'draft'])
    expect(missing.code).toBe(3)
  })

  it('push --dry-run of a changed file that exists: "Would append version N"; nothing written', async () => {
    const file = join(quire.home, 'plan.md')
    await writeFile(file, '# Plan\n\nTwo.\n\nThree.\n\nFour.\n')
    const done = await asAda(['push', '--owner', owner, '--project-slug', 'notes', '--file', file, '--dry-run'])
    expect(done.code, done.stderr).toBe(0)
    expect(done.stdout).toContain(`Would append version 4 to ${named}; nothing was written.`)
    expect(done.stdout).toContain('+Four.')
    expect((await json<{ latestVersion: number }>(['artifact', 'get', named])).latestVersion).toBe(3)
  })

  it("artifact create --dry-run of a taken slug: the create's conflict (exit 6), naming free slugs; nothing created", async () => {
    const create = (slug: string) =>
      asAda(
        ['artifact', 'create', '--owner-username', owner, '--project-slug', 'notes', '--slug', slug, '--type', 'md'].concat([
          '--title',
          'Launch plan',
          '--content-file',
          '-',
          '--changelog',
          'c',
          '--dry-run',
        ]),
        { stdin: 'x\n' },
      )
    const taken = await create('plan')
    expect(taken.code).toBe(6)
    expect(taken.stderr).toContain(`An artifact \`plan\` already exists in \`${owner}/notes\`.`)
    expect(taken.stderr).toContain('Free instead: launch-plan, plan-launch, plan-2.')
    const free = await create('launch-plan')
    expect(free.code, free.stderr).toBe(0)
    expect(free.stdout).toContain(`Would create ${owner}/notes/launch-plan version 1 (2 bytes, private)`)
    expect((await json<{ items: { slug: string }[] }>(['artifact', 'list'])).items.map((a) => a.slug)).not.toContain('launch-plan')
  })

  it('other writes still print the planned request and send nothing; help says which is which', async () => {
    const planned = await json<{ dryRun: boolean; method: string; url: string }>(['share', 'create', named, '--dry-run'])
    expect(planned).toMatchObject({ dryRun: true, method: 'POST', url: `${quire.apiUrl}/api/artifacts/${artifactId}/share-links` })
    expect((await json<{ items: unknown[] }>(['share', 'list', named])).items).toEqual([])
    const help = await asAda(['artifact', 'update', '--help'])
    expect(help.stdout).toContain('With --dry-run, the server checks everything')
    expect(help.stdout).not.toMatch(/^\s+--dry-run\s.*\n[\s\S]*^\s+--dry-run\s/m)
    expect((await asAda(['push', '--help'])).stdout).toContain('With --dry-run, the server checks everything')
    const shareHelp = await asAda(['share', 'create', '--help'])
    expect(shareHelp.stdout).toContain('With --dry-run, prints the request and sends nothing.')
  })
})
