/**
 * `quire search` as a person and a script run it: the CLI as a child process against the real API
 * on this test's engine, after a person published over REST. The words after `search` are the
 * query (an excluded `-word` too, with or without `--`); the text table has one row per hit, best
 * first; `--format json`, `--fields` and `--jq` shape it as every list; nothing found says so on
 * standard error. On a terminal the matches are bold red (grep's colours) and the table fits the
 * terminal's width, snippets cut with …; piped or with NO_COLOR there is no escape sequence at all.
 */
import { timeoutFor } from '@quire/testing/waits'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ansi, plain, runOnTerminal } from '../../../packages/cli/test/pty.ts'
import { cliEntry, type Finished, runNode } from '../../../packages/cli/test/quire-process.ts'
import { startTestWeb, type TestWeb } from './helper.ts'
import { restCall, userWithKey } from './mcp-helper.ts'

let web: TestWeb
let owner: Awaited<ReturnType<typeof userWithKey>>
let stranger: Awaited<ReturnType<typeof userWithKey>>

const env = (token: string, extra: Record<string, string> = {}) => ({
  AGENT_SERVICE_BASE_URL: web.apiUrl,
  AGENT_SERVICE_TOKEN: token,
  AGENT_SERVICE_NO_INPUT: '1',
  HOME: '/nonexistent',
  PATH: process.env.PATH ?? '',
  LANG: 'C.UTF-8',
  ...extra,
})

/** `quire` with the owner's key, its standard output a pipe. */
const quire = (args: readonly string[], token = owner.token): Promise<Finished> => runNode([cliEntry, ...args], { env: env(token) })

/** The JSON a command printed, after it succeeded. */
async function json<T>(args: readonly string[]): Promise<T> {
  const done = await quire(['--format', 'json', ...args])
  expect(done.code, done.stderr).toBe(0)
  return JSON.parse(done.stdout) as T
}

/** A table's rows (header first), each as its cells split at runs of two spaces. */
const rowsOf = (stdout: string) =>
  stdout
    .trimEnd()
    .split('\n')
    .map((line) => line.split(/ {2,}/))

async function publish(slug: string, title: string, content: string): Promise<void> {
  await restCall(web, owner.token, 'POST', '/api/artifacts', {
    ownerUsername: owner.username,
    projectSlug: 'runbooks',
    slug,
    type: 'md',
    title,
    content,
    changelog: 'first',
    access: { publicView: true, publicEdit: false },
  })
}

beforeAll(async () => {
  web = await startTestWeb({ api: true })
  owner = await userWithKey(web, 'ada@example.com')
  stranger = await userWithKey(web, 'bob@example.com')
  await restCall(web, owner.token, 'POST', '/api/projects', {
    ownerUsername: owner.username,
    slug: 'runbooks',
    title: 'Runbooks',
    icon: 'R',
  })
  await publish(
    'deploy-checklist',
    'Deploy checklist',
    `Run the migrations on a copy first.\n\nThen deploy the API and the web app, and check that every one of the health endpoints answers before telling the team on the release channel.\n`,
  )
  await publish('friday-draft', 'Friday draft', 'A draft of how we deploy on Fridays.\n')
  await publish('incident', 'Incident 42', 'Nothing about releases here.\n')
})
afterAll(async () => {
  await web?.close()
})

describe('quire search', { timeout: timeoutFor(12) }, () => {
  it('prints one row per hit: the path, the title and a passage, best match first, plain when piped', async () => {
    const done = await quire(['search', 'deploy', 'checklist'])
    expect(done.code, done.stderr).toBe(0)
    expect(done.stdout).not.toMatch(ansi)
    const [header, ...rows] = rowsOf(done.stdout)
    expect(header).toEqual(['PATH', 'TITLE', 'SNIPPET'])
    expect(rows).toEqual([
      [
        `${owner.username}/runbooks/deploy-checklist`,
        'Deploy checklist',
        '3: Then deploy the API and the web app, and check that every one of the health endpoints answers before telling the team on the release channel.',
      ],
    ])
    // Piped, a snippet is never cut; every word is the query's, in any form.
    const both = rowsOf((await quire(['search', 'deploy'])).stdout).slice(1)
    expect(both.map((row) => row[0]).sort()).toEqual([
      `${owner.username}/runbooks/deploy-checklist`,
      `${owner.username}/runbooks/friday-draft`,
    ])
    expect(both.find((row) => row[0]?.endsWith('friday-draft'))?.[2]).toBe('1: A draft of how we deploy on Fridays.')
  })

  it('takes the words left as the query, an excluded -word and a "phrase" included, with or without --', async () => {
    type Page = { items: { artifact: { slug: string } }[] }
    const slugs = async (args: readonly string[]) => (await json<Page>(['search', ...args])).items.map((hit) => hit.artifact.slug)
    expect(await slugs(['deploy', '-draft'])).toEqual(['deploy-checklist'])
    expect(await slugs(['--', 'deploy', '-draft'])).toEqual(['deploy-checklist'])
    expect(await slugs(['deploy', '--', '-checklist'])).toEqual(['friday-draft'])
    expect(await slugs(['--query', 'deploy -draft'])).toEqual(['deploy-checklist'])
    // The shell's quotes group words; the query's own quotes make a phrase.
    expect(await slugs(['deploy -draft'])).toEqual(['deploy-checklist'])
    expect(await slugs(['"deploy on Fridays"'])).toEqual(['friday-draft'])
    expect(await slugs(['"Fridays deploy"'])).toEqual([])
    // Flags go anywhere among the words, and filter.
    expect(await slugs(['deploy', '--type', 'md', '--project', `${owner.username}/runbooks`, '-checklist'])).toEqual(['friday-draft'])
    expect(await slugs(['deploy', '--type', 'csv'])).toEqual([])
    // Given twice, the query must agree with itself.
    const twice = await quire(['search', 'deploy', '--query', 'draft'])
    expect(twice.code).toBe(2)
    expect(twice.stderr).toContain('The query was given twice')
    // Only exclusions: the server's refusal, named by the flag.
    const refused = await quire(['search', '--', '-deploy'])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('--query must hold a word or phrase that is not excluded')
  })

  it('prints the API JSON with --format json, narrowed by --fields and filtered by --jq, as every list', async () => {
    const page = await json<{ items: Record<string, unknown>[]; nextCursor: string | null }>(['search', 'checklist'])
    expect(page.nextCursor).toBeNull()
    expect(page.items).toHaveLength(1)
    expect(page.items[0]).toMatchObject({
      artifact: { slug: 'deploy-checklist', ownerUsername: owner.username, projectSlug: 'runbooks', latestVersion: 1 },
      version: 1,
      snippets: [
        {
          field: 'title',
          segments: [
            { text: 'Deploy ', match: false },
            { text: 'checklist', match: true },
          ],
        },
      ],
    })
    expect(Object.keys(page.items[0] ?? {}).sort()).toEqual(['artifact', 'score', 'snippets', 'version'])
    expect(await json(['search', 'checklist', '--fields', 'artifact.slug,version'])).toEqual({
      items: [{ artifact: { slug: 'deploy-checklist' }, version: 1 }],
      nextCursor: null,
    })
    const jq = await quire(['search', 'deploy', '--limit', '1', '--jq', '.items[].artifact.url, .nextCursor != null'])
    expect(jq.code, jq.stderr).toBe(0)
    expect(jq.stdout).toMatch(new RegExp(`^${web.url}/${owner.username}/runbooks/[a-z-]+\ntrue\n$`))
    // The next page: the cursor with the same words.
    const first = await json<{ items: { artifact: { slug: string } }[]; nextCursor: string }>(['search', 'deploy', '--limit', '1'])
    const next = await json<{ items: { artifact: { slug: string } }[] }>(['search', 'deploy', '--limit', '1', '--cursor', first.nextCursor])
    expect([first.items[0]?.artifact.slug, next.items[0]?.artifact.slug].sort()).toEqual(['deploy-checklist', 'friday-draft'])
    const table = await quire(['search', 'deploy', '--limit', '1'])
    expect(table.stderr).toContain(`More: add --cursor ${first.nextCursor}`)
    const unknown = await quire(['search', 'deploy', '--fields', 'title'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain('Available: artifact, version, score, snippets.')
  })

  it('says on standard error when nothing matches, and what to try; standard output stays empty', async () => {
    const none = await quire(['search', 'kubernetes'])
    expect(none.code).toBe(0)
    expect(none.stdout).toBe('')
    expect(none.stderr).toBe(
      'Nothing you may read matches "kubernetes". Words match in any form; try fewer words, or add --versions all to search older versions too.\n',
    )
    expect(await json(['search', 'kubernetes'])).toEqual({ items: [], nextCursor: null })
    // Public documents of someone else are not listed in a stranger's search.
    const theirs = await quire(['search', 'deploy'], stranger.token)
    expect(theirs.stdout).toBe('')
    expect(theirs.stderr).toContain('Nothing you may read matches "deploy".')
  })

  it('marks the matches in bold red on a terminal and fits the table to its width; NO_COLOR and a pipe mark nothing', async () => {
    const esc = String.fromCharCode(27)
    const shown = await runOnTerminal(['search', 'deploy', 'checklist'], { env: env(owner.token), columns: 80 })
    expect(shown.code, shown.stdout).toBe(0)
    expect(shown.stdout).toContain(`${esc}[1m${esc}[31mchecklist${esc}[39m${esc}[22m`)
    expect(shown.stdout).toContain(`Then ${esc}[1m${esc}[31mdeploy${esc}[39m${esc}[22m the API`)
    const lines = plain(shown.stdout).trimEnd().split('\n')
    expect(lines).toHaveLength(2)
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80)
    expect(lines[1]).toMatch(/^ada\/runbooks\/deploy-checklist {2}Deploy checklist {2}3: Then deploy the API .*…$/)
    expect(lines[1]).toHaveLength(80)

    const wide = await runOnTerminal(['search', 'deploy', 'checklist'], { env: env(owner.token), columns: 300 })
    expect(plain(wide.stdout)).toContain('on the release channel.\n')

    const noColor = await runOnTerminal(['search', 'deploy', 'checklist'], { env: env(owner.token, { NO_COLOR: '1' }), columns: 80 })
    expect(noColor.code).toBe(0)
    expect(noColor.stdout).not.toMatch(ansi)
    expect(noColor.stdout).toContain('…')
  })

  it('is refused to a key without artifacts:read, as every read is', async () => {
    const writer = await userWithKey(web, 'ada@example.com', ['artifacts:create'])
    const done = await runNode([cliEntry, '--format', 'json', 'search', 'deploy'], { env: env(writer.token) })
    expect(done.code).toBe(5)
    expect(JSON.parse(done.stderr)).toMatchObject({ error: { code: 'insufficient_scope', exitCode: 5 } })
  })
})
