/**
 * Every command of `quire` against a real running Quire (the `pnpm start` process on a fresh
 * embedded database), each CLI call a child process with an environment built from scratch.
 */
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { timeoutFor } from '@quire/testing/waits'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ansi, runOnTerminal } from './pty.ts'
import { AT_ONCE_MS, commandsTimeout, type Finished, type Quire, startQuire } from './quire-process.ts'

let quire: Quire
let ada = ''
let bob = ''
let asAda: (args: readonly string[], options?: { stdin?: string; env?: Record<string, string> }) => Promise<Finished>

beforeAll(async () => {
  quire = await startQuire()
  ada = await quire.token('ada@example.com')
  bob = await quire.token('bob@example.com')
  asAda = (args, options = {}) => quire.cli(args, { ...options, env: { AGENT_SERVICE_TOKEN: ada, ...options.env } })
  // Waits: the start, two tokens.
}, timeoutFor(3))
afterAll(async () => {
  await quire?.stop()
}, timeoutFor(1))

/** Runs a command in JSON mode, expects success, and returns the one JSON document it printed. */
async function json<T = Record<string, unknown>>(args: readonly string[], options: { stdin?: string; token?: string } = {}): Promise<T> {
  const done = await quire.cli(['--format', 'json', ...args], {
    env: { AGENT_SERVICE_TOKEN: options.token ?? ada },
    ...(options.stdin !== undefined ? { stdin: options.stdin } : {}),
  })
  if (done.code !== 0) throw new Error(`quire ${args.join(' ')} exited ${done.code}: ${done.stderr}`)
  return JSON.parse(done.stdout) as T
}

/** The JSON error line a failed command wrote on standard error (JSON mode). */
function errorOf(done: Finished): { code: string; message: string; exitCode: number; hint?: string } {
  const lines = done.stderr.trim().split('\n')
  expect(lines).toHaveLength(1)
  return JSON.parse(lines[0] ?? '').error
}

describe('quire, every command against a running server', { timeout: commandsTimeout }, () => {
  let projectOwner = ''
  let artifactId = ''

  it('--version prints only the version; health, whoami and profile get answer', async () => {
    const version = await quire.cli(['--version'])
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/)
    expect(version.stderr).toBe('')
    expect(await json(['health'])).toMatchObject({ status: 'ok', database: 'ok' })
    const me = await json<{ email: string; username: string }>(['whoami'])
    expect(me.email).toBe('ada@example.com')
    projectOwner = me.username
    expect(await json(['profile', 'get'])).toMatchObject({ email: 'ada@example.com' })
    const text = await asAda(['whoami'])
    expect(text.stdout).toMatch(/^Email:\s+ada@example\.com$/m)
    expect(text.stdout).not.toMatch(/:\s*$/m) // no empty fields
    expect(text.stdout).not.toMatch(ansi)
  })

  it('projects: create from --json, list, slug availability', async () => {
    const created = await json([
      'project',
      'create',
      '--json',
      JSON.stringify({ ownerUsername: projectOwner, slug: 'notes', title: 'Notes', icon: 'N' }),
    ])
    expect(created).toMatchObject({ slug: 'notes' })
    const page = await json<{ items: { slug: string }[] }>(['project', 'list'])
    expect(page.items.map((p) => p.slug)).toContain('notes')
    expect(await json(['project', 'slug-availability', '--owner', projectOwner, '--slug', 'notes'])).toMatchObject({ available: false })
    const table = await asAda(['project', 'list'])
    expect(table.stdout.split('\n')[0]).toMatch(/^OWNER\s+SLUG\s+TITLE\s+URL$/)
  })

  it('push creates from a Markdown file, leaves unchanged content alone, and appends a change', async () => {
    const file = join(quire.home, 'Launch Plan.md')
    await writeFile(file, '---\ntitle: ignored\n---\n```\n# not this\n```\n# The launch plan\n\nFirst.\n')
    const created = await json<{ action: string; version: number; artifact: { id: string; slug: string; title: string; type: string } }>([
      'push',
      '--owner',
      projectOwner,
      '--project-slug',
      'notes',
      '--file',
      file,
    ])
    expect(created).toMatchObject({
      action: 'created',
      version: 1,
      artifact: { slug: 'launch-plan', title: 'The launch plan', type: 'md' },
    })
    artifactId = created.artifact.id
    const again = await json(['push', '--owner', projectOwner, '--project-slug', 'notes', '--file', file])
    expect(again).toMatchObject({ action: 'unchanged', version: 1 })
    await writeFile(file, '# The launch plan\n\nFirst.\nSecond.\n')
    expect(await json(['push', '--owner', projectOwner, '--project-slug', 'notes', '--file', file])).toMatchObject({
      action: 'appended',
      version: 2,
    })
    const text = await asAda(['push', '--owner', projectOwner, '--project-slug', 'notes', '--file', file])
    expect(text.stderr).toContain('nothing pushed')
  })

  it('artifact list, get, update, restore, content, versions, diff, slug checks and paths', async () => {
    expect((await json<{ items: { id: string }[] }>(['artifact', 'list'])).items.map((a) => a.id)).toContain(artifactId)
    const got = await json(['artifact', 'get', '--artifact-id', artifactId])
    expect(got).toMatchObject({ id: artifactId, latestVersion: 2 })
    // `view` is an alias of `get` (gh's habit): the same call, the same answer.
    expect(await json(['artifact', 'view', '--artifact-id', artifactId])).toEqual(got)
    const body = join(quire.home, 'v3.json')
    await writeFile(body, JSON.stringify({ content: '# The launch plan\n\nThird.\n', changelog: 'third', expectedLatestVersion: 2 }))
    expect(await json(['artifact', 'update', '--artifact-id', artifactId, '--json', `@${body}`])).toMatchObject({ versionNumber: 3 })
    expect(await json(['artifact', 'restore', '--artifact-id', artifactId, '--version', '1'])).toMatchObject({
      versionNumber: 4,
      restoredFrom: 1,
    })

    const content = await asAda(['artifact', 'content', '--artifact-id', artifactId, '--version', '3'])
    expect(content.stdout).toBe('# The launch plan\n\nThird.\n')
    expect((await json(['artifact', 'content', '--artifact-id', artifactId])).versionNumber).toBe(4)
    const versions = await json<{ items: { versionNumber: number }[] }>(['artifact', 'versions', '--artifact-id', artifactId])
    expect(versions.items.map((v) => v.versionNumber).sort()).toEqual([1, 2, 3, 4])
    const diff = await asAda(['artifact', 'diff', '--artifact-id', artifactId, '--from', '2', '--to', '3'])
    expect(diff.stdout).toContain('-Second.')
    expect(diff.stdout).toContain('+Third.')

    const path = ['--owner', projectOwner, '--project-slug', 'notes', '--slug', 'launch-plan']
    expect(await json(['artifact', 'slug-availability', ...path])).toMatchObject({ available: false })
    expect(await json(['artifact', 'url-preview', ...path])).toHaveProperty('url')
    expect(await json(['path', 'artifact', ...path])).toMatchObject({ id: artifactId })
    expect(await json(['path', 'project', '--owner', projectOwner, '--project-slug', 'notes'])).toMatchObject({ slug: 'notes' })
  })

  it("artifact list --project OWNER/PROJECT: a project's artifacts the caller may read, paged and shaped as every list", async () => {
    await json(['project', 'create', '--owner-username', projectOwner, '--slug', 'shelf', '--title', 'Shelf', '--icon', 'S'])
    for (const [slug, publicView] of [
      ['first', true],
      ['second', false],
      ['third', false],
    ] as const)
      await json(
        [
          'artifact',
          'create',
          ...['--owner-username', projectOwner, '--project-slug', 'shelf', '--slug', slug, '--type', 'md', '--title', slug],
          ...['--content-file', '-', '--changelog', 'first', ...(publicView ? ['--access-public-view'] : [])],
        ],
        { stdin: `# ${slug}\n` },
      )
    const project = `${projectOwner}/shelf`
    type Page = { items: { slug: string; projectSlug: string }[]; nextCursor: string | null }
    const first = await json<Page>(['artifact', 'list', '--project', project, '--limit', '2'])
    expect(first.items.map((a) => a.slug)).toEqual(['third', 'second'])
    expect(first.nextCursor).toEqual(expect.any(String))
    const rest = await json<Page>(['artifact', 'list', '--project', project, '--limit', '2', '--cursor', first.nextCursor as string])
    expect(rest).toEqual({ items: [expect.objectContaining({ slug: 'first', projectSlug: 'shelf' })], nextCursor: null })
    // Every page, one artifact a line; only the fields asked for; jq over the page; the project's URL names it too.
    const lines = await asAda(['artifact', 'list', '--project', project, '--ndjson', '--limit', '1'])
    expect(
      lines.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).slug),
    ).toEqual(['third', 'second', 'first'])
    expect(await json(['artifact', 'list', '--project', project, '--fields', 'slug,latestVersion'])).toEqual({
      items: ['third', 'second', 'first'].map((slug) => ({ slug, latestVersion: 1 })),
      nextCursor: null,
    })
    expect((await asAda(['artifact', 'list', '--project', project, '--jq', '.items[].slug'])).stdout).toBe('third\nsecond\nfirst\n')
    const byUrl = await json<Page>(['artifact', 'list', '--project', `${quire.webUrl}/${project}`])
    expect(byUrl.items.map((a) => a.slug)).toEqual(['third', 'second', 'first'])
    // Text: the table of `artifact list`, the project's rows only.
    const table = await asAda(['artifact', 'list', '--project', project])
    expect(table.stdout).toMatch(/^OWNER\s+PROJECT\s+SLUG\s+VERSION\s+TITLE\s+UPDATED/)
    expect(table.stdout.trim().split('\n')).toHaveLength(4)
    // Someone else sees what they may read: the public one; where that is nothing, the project is not found.
    expect((await json<Page>(['artifact', 'list', '--project', project], { token: bob })).items.map((a) => a.slug)).toEqual(['first'])
    const hidden = await quire.cli(['--format', 'json', 'artifact', 'list', '--project', `${projectOwner}/no-such`], {
      env: { AGENT_SERVICE_TOKEN: bob },
    })
    expect(hidden.code).toBe(3)
    expect(errorOf(hidden)).toMatchObject({ code: 'not_found', message: 'No such project, or you may not see it.' })
    const usage = await asAda(['artifact', 'list', '--project', projectOwner])
    expect(usage.code).toBe(2)
    expect(usage.stderr).toContain(`--project "${projectOwner}" does not name a project.`)
    // Without --project it is still the caller's own list.
    expect((await json<Page>(['artifact', 'list'])).items.map((a) => a.projectSlug)).toEqual(expect.arrayContaining(['notes', 'shelf']))
  })

  it('artifact create from --json on standard input', async () => {
    const body = {
      ownerUsername: projectOwner,
      projectSlug: 'notes',
      slug: 'from-json',
      type: 'txt',
      title: 'From JSON',
      content: 'plain\n',
      changelog: 'first',
      access: { publicView: false, publicEdit: false },
    }
    const created = await json(['artifact', 'create', '--json', '-'], { stdin: JSON.stringify(body) })
    expect(created).toMatchObject({ slug: 'from-json', latestVersion: 1, type: 'txt' })
    const bad = await quire.cli(['--format', 'json', 'artifact', 'create', '--json', '{"slug":'], { env: { AGENT_SERVICE_TOKEN: ada } })
    expect(bad.code).toBe(2)
    expect(errorOf(bad).message).toContain('not valid JSON')
  })

  it('a stale update is a conflict (exit 6) that names the latest version, and writes nothing', async () => {
    const done = await quire.cli(
      [
        '--format',
        'json',
        'artifact',
        'update',
        '--artifact-id',
        artifactId,
        '--json',
        JSON.stringify({ content: 'x', expectedLatestVersion: 1 }),
      ],
      { env: { AGENT_SERVICE_TOKEN: ada } },
    )
    expect(done.code).toBe(6)
    expect(done.stdout).toBe('')
    expect(errorOf(done)).toMatchObject({ code: 'version_conflict', exitCode: 6, latestVersion: 4, expectedLatestVersion: 1 })
    expect(await json(['artifact', 'get', '--artifact-id', artifactId])).toMatchObject({ latestVersion: 4 })
  })

  it('access and share links: get, set (destructive: --yes), create, list, revoke', async () => {
    expect(await json(['artifact', 'access', 'get', '--artifact-id', artifactId])).toMatchObject({ publicView: false })
    const change = JSON.stringify({ publicView: true })
    const refused = await asAda(['artifact', 'access', 'set', '--artifact-id', artifactId, '--json', change])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('--yes')
    expect(await json(['artifact', 'access', 'set', '--artifact-id', artifactId, '--json', change, '--yes'])).toMatchObject({
      publicView: true,
    })

    const link = await json<{ id: string; role: string }>(['share', 'create', '--artifact-id', artifactId, '--role', 'editor'])
    expect(link.role).toBe('editor')
    expect((await json<{ items: { id: string }[] }>(['share', 'list', '--artifact-id', artifactId])).items.map((l) => l.id)).toEqual([
      link.id,
    ])
    expect(await json(['share', 'revoke', '--share-link-id', link.id, '--yes'])).toMatchObject({ status: 'revoked' })
  })

  it('API keys: create, list, revoke (refused without --yes when it cannot ask)', async () => {
    const key = await json<{ id: string; secret: string }>([
      'keys',
      'create',
      '--name',
      'ci',
      '--scopes',
      'artifacts:read,artifacts:create',
    ])
    expect(key.secret).toMatch(/^qk_/)
    expect((await json<{ items: { id: string }[] }>(['keys', 'list'])).items.map((k) => k.id)).toContain(key.id)
    const unconfirmed = await asAda(['keys', 'revoke', '--api-key-id', key.id])
    expect(unconfirmed.code).toBe(2)
    expect(unconfirmed.stderr).toContain(`error: Refusing to revoke API key ${key.id} without confirmation.`)
    expect((await quire.cli(['whoami'], { env: { AGENT_SERVICE_TOKEN: key.secret } })).code).toBe(0)
    await json(['keys', 'revoke', '--api-key-id', key.id, '--yes'])
    const revoked = await quire.cli(['whoami'], { env: { AGENT_SERVICE_TOKEN: key.secret } })
    expect(revoked.code).toBe(4)
    expect(revoked.stderr).toContain('quire login')
  })

  it('agents: list (none claimed yet), revoke (refused without --yes; an agent not yours is not found)', async () => {
    expect(await json(['agent', 'list'])).toEqual({ items: [], nextCursor: null })
    const agentId = 'agt_01jc0000000000000000000000'
    expect((await asAda(['agent', 'revoke', '--agent-id', agentId])).code).toBe(2)
    const missing = await quire.cli(['--format', 'json', 'agent', 'revoke', '--agent-id', agentId, '--yes'], {
      env: { AGENT_SERVICE_TOKEN: ada },
    })
    expect(missing.code).toBe(3)
    expect(errorOf(missing).code).toBe('not_found')
  })

  it('workspaces: create, list, projects, artifacts, invite, invitations, accept, members, revoke an invitation, audit', async () => {
    const team = await json<{ id: string }>(['workspace', 'create', '--json', JSON.stringify({ slug: 'cli-team', name: 'CLI team' })])
    expect((await json<{ items: { id: string }[] }>(['workspace', 'list'])).items.map((w) => w.id)).toContain(team.id)
    await json(['project', 'create', '--json', JSON.stringify({ ownerUsername: 'cli-team', slug: 'plans', title: 'Plans', icon: 'P' })])
    const projects = await json<{ items: { ownerUsername: string; slug: string }[] }>(['workspace', 'projects', '--workspace-id', team.id])
    expect(projects.items.map((p) => `${p.ownerUsername}/${p.slug}`)).toEqual(['cli-team/plans'])
    const file = join(quire.home, 'roadmap.md')
    await writeFile(file, '# Roadmap\n')
    await json(['push', '--owner', 'cli-team', '--project-slug', 'plans', '--file', file])
    const artifacts = await json<{ items: { ownerUsername: string; projectSlug: string; slug: string }[] }>([
      'workspace',
      'artifacts',
      '--workspace-id',
      team.id,
    ])
    expect(artifacts.items.map((a) => `${a.ownerUsername}/${a.projectSlug}/${a.slug}`)).toEqual(['cli-team/plans/roadmap'])
    const invitation = await json<{ id: string }>([
      'workspace',
      'invite',
      '--workspace-id',
      team.id,
      '--json',
      JSON.stringify({ email: 'bob@example.com' }),
    ])
    const other = await json<{ id: string }>([
      'workspace',
      'invite',
      '--workspace-id',
      team.id,
      '--json',
      JSON.stringify({ email: 'eve@example.com' }),
    ])
    expect((await json<{ items: unknown[] }>(['workspace', 'invitations', '--workspace-id', team.id])).items).toHaveLength(2)
    const bobs = await json<{ items: { id: string }[] }>(['profile', 'invitations'], { token: bob })
    expect(bobs.items.map((i) => i.id)).toEqual([invitation.id])
    await json(['workspace', 'accept-invite', '--invitation-id', invitation.id], { token: bob })
    const members = await json<{ items: { email: string }[] }>(['workspace', 'members', '--workspace-id', team.id])
    expect(members.items.map((m) => m.email).sort()).toEqual(['ada@example.com', 'bob@example.com'])
    expect(await json(['workspace', 'revoke-invite', '--invitation-id', other.id, '--yes'])).toMatchObject({ status: 'revoked' })
    const audit = await json<{ items: { action: string }[] }>(['workspace', 'audit', '--workspace-id', team.id])
    expect(audit.items.map((e) => e.action)).toEqual(
      expect.arrayContaining([
        'workspace.created',
        'workspace.invitation_created',
        'workspace.member_joined',
        'workspace.invitation_revoked',
      ]),
    )
  })

  it('audit list: account-level and per artifact, recorded as made through the CLI', async () => {
    const events = await json<{ items: { action: string; via: { surface: string } }[] }>(['audit', 'list', '--artifact-id', artifactId])
    expect(events.items.map((e) => e.action)).toEqual(
      expect.arrayContaining(['artifact.created', 'artifact.version_created', 'artifact.restored']),
    )
    expect(new Set(events.items.map((e) => e.via.surface))).toEqual(new Set(['cli']))
    expect((await json<{ items: unknown[] }>(['audit', 'list', '--limit', '5'])).items.length).toBeGreaterThan(0)
  })

  it('--ndjson streams every item across pages, one object per line', async () => {
    const done = await asAda(['artifact', 'versions', '--artifact-id', artifactId, '--ndjson', '--limit', '1'])
    expect(done.code).toBe(0)
    const lines = done.stdout.trim().split('\n')
    expect(lines.map((l) => (JSON.parse(l) as { versionNumber: number }).versionNumber).sort()).toEqual([1, 2, 3, 4])
    const page = await json<{ items: unknown[]; nextCursor: string }>(['artifact', 'versions', '--artifact-id', artifactId, '--limit', '1'])
    expect(page.items).toHaveLength(1)
    expect(page.nextCursor).toEqual(expect.any(String))
  })

  it('profile set-username renames the namespace', async () => {
    expect(await json(['profile', 'set-username', '--username', 'bob-renamed'], { token: bob })).toMatchObject({ username: 'bob-renamed' })
  })

  it('artifact delete: refused without --yes, --dry-run sends nothing, then deleted; gone is exit 3', async () => {
    expect((await asAda(['artifact', 'delete', '--artifact-id', artifactId])).code).toBe(2)
    const dry = await asAda(['artifact', 'delete', '--artifact-id', artifactId, '--dry-run'])
    expect(dry.code).toBe(0)
    expect(dry.stdout).toContain(`DELETE ${quire.apiUrl}/api/artifacts/${artifactId}`)
    expect(await json(['artifact', 'get', '--artifact-id', artifactId])).toMatchObject({ id: artifactId })
    await json(['artifact', 'delete', '--artifact-id', artifactId, '--yes'])
    const gone = await quire.cli(['--format', 'json', 'artifact', 'get', '--artifact-id', artifactId], {
      env: { AGENT_SERVICE_TOKEN: ada },
    })
    expect(gone.code).toBe(3)
    expect(errorOf(gone)).toMatchObject({ code: 'not_found', exitCode: 3 })
  })
})

describe('quire, failures and conventions', { timeout: commandsTimeout }, () => {
  it('without a credential: exit 4 and the way out', async () => {
    const done = await quire.cli(['whoami'])
    expect(done.code).toBe(4)
    expect(done.stderr).toContain('quire login')
    expect(done.stdout).toBe('')
  })

  it('usage mistakes exit 2 at once, naming the flag; JSON mode writes one JSON error line', async () => {
    const missing = await quire.cli(['--no-input', 'artifact', 'get'])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('--artifact-id')
    expect(missing.ms).toBeLessThan(AT_ONCE_MS)
    const unknown = await quire.cli(['--format', 'json', 'artifct', 'list'])
    expect(unknown.code).toBe(2)
    expect(errorOf(unknown)).toMatchObject({
      code: 'usage',
      message: 'Unknown command "quire artifct".',
      hint: 'Did you mean "quire artifact"?',
    })
    expect((await quire.cli(['artifact', 'get', '--artifact-id', 'a', '--colour'])).code).toBe(2)
    // A misspelt flag is named as typed, with the closest one, before any other complaint.
    const typo = await quire.cli(['artifact', 'get', '--artifact-idd', 'art_x'])
    expect(typo.code).toBe(2)
    expect(typo.stderr).toBe('error: Unknown flag --artifact-idd for "quire artifact get".\nhint: Did you mean --artifact-id?\n')
    const show = await quire.cli(['artifact', 'show', 'ada/notes/plan'])
    expect(show.stderr).toBe('error: Unknown command "quire artifact show".\nhint: Did you mean "quire artifact get"?\n')
  })

  it('a token that is not one token is refused before it reaches a header, and never echoed', async () => {
    const broken = `${ada}\nzz`
    const done = await quire.cli(['whoami'], { env: { AGENT_SERVICE_TOKEN: broken } })
    expect(done.code).toBe(2)
    expect(done.stderr).toContain('AGENT_SERVICE_TOKEN')
    expect(done.stderr).not.toContain(ada)
    const both = await quire.cli(['artifact', 'create', '--token-stdin', '--json', '-'], { stdin: ada })
    expect(both.code).toBe(2)
    expect(both.stderr).toContain('both want standard input')
    // A group without its subcommand shows its help, as gh does.
    const group = await quire.cli(['artifact'])
    expect(group.code).toBe(0)
    expect(group.stdout).toContain('Subcommands:')
  })

  it('cannot reach the server: exit 7 with the base URL to check', async () => {
    const done = await quire.cli(['health'], { env: { AGENT_SERVICE_BASE_URL: 'http://127.0.0.1:9' } })
    expect(done.code).toBe(7)
    expect(done.stderr).toContain('AGENT_SERVICE_BASE_URL')
  })

  it('--debug shows requests and stack traces with the token redacted', async () => {
    const done = await quire.cli(['--debug', 'artifact', 'get', '--artifact-id', 'art_00000000000000000000000000', '--token', ada])
    expect(done.code).toBe(3)
    expect(done.stderr).toContain('Bearer [redacted]')
    expect(done.stderr).not.toContain(ada)
    expect(done.stderr).toMatch(/\n\s+at .+:\d+:\d+/)
  })

  it('colour only on a terminal, and never with NO_COLOR', async () => {
    const list = (env: Record<string, string> = {}) =>
      runOnTerminal(['project', 'list'], { env: quire.cliEnv({ AGENT_SERVICE_TOKEN: ada, ...env }) })
    expect((await list()).stdout).toMatch(ansi)
    const plain = (await list({ NO_COLOR: '1' })).stdout
    expect(plain).not.toMatch(ansi)
    expect(plain).toContain('SLUG')
  })

  it('prints a completion script that bash accepts', async () => {
    const done = await quire.cli(['completion', 'bash'])
    expect(done.code).toBe(0)
    const { spawnSync } = await import('node:child_process')
    const check = spawnSync('bash', ['-n'], { input: done.stdout })
    expect(check.status).toBe(0)
    expect(done.stdout).toContain('quire')
  })
})
