/**
 * `search_artifacts` through the SDK's own client over Streamable HTTP, against the running web app
 * on this test's engine: an agent finds what its person may read, best first, with the snippets'
 * matches marked, narrowed by project and type, older versions with `versions: "all"`, and reads a
 * hit with get_artifact_content; a stranger finds none of it; a query of only exclusions is an
 * `isError` result naming the field; a key without `artifacts:read` is refused at the edge with
 * the 403 every read tool gets.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestWeb, type TestWeb } from './helper.ts'
import { call, callFailing, mcpClient, userWithKey } from './mcp-helper.ts'

interface Hit {
  artifact: { id: string; slug: string; latestVersion: number }
  version: number
  score: number
  snippets: { field: string; line?: number; segments: { text: string; match: boolean }[] }[]
}
type Page = { items: Hit[]; nextCursor: string | null }

let web: TestWeb
let owner: Awaited<ReturnType<typeof userWithKey>>
let agent: Client
let stranger: Client
const ids: Record<string, string> = {}

const search = async (args: Record<string, unknown>, as: Client = agent) => (await call(as, 'search_artifacts', args)) as unknown as Page

beforeAll(async () => {
  web = await startTestWeb()
  owner = await userWithKey(web, 'mcp.search@example.com')
  agent = await mcpClient(web, owner.token)
  stranger = await mcpClient(web, (await userWithKey(web, 'mcp.stranger@example.com')).token)
  for (const slug of ['runbooks', 'journal'])
    await call(agent, 'create_project', { ownerUsername: owner.username, slug, title: slug, icon: 'R' })
  const create = async (projectSlug: string, slug: string, type: string, title: string, content: string) => {
    const made = await call(agent, 'create_artifact', {
      ownerUsername: owner.username,
      projectSlug,
      slug,
      type,
      title,
      content,
      changelog: 'first',
      // Public: a stranger still does not find it.
      access: { publicView: true, publicEdit: false },
    })
    ids[slug] = made.id as string
  }
  await create('runbooks', 'rollback', 'md', 'Rollback', '# Rollback\n\nWhen a deployment fails, roll back to the previous release.\n')
  await create('runbooks', 'release', 'txt', 'Release train', 'Every Tuesday.\nThe deployment window opens at noon.\n')
  await create('journal', 'monday', 'md', 'Monday', 'Quiet day, no deployment.\n')
  await call(agent, 'update_artifact', {
    artifactId: ids.monday,
    content: 'Quiet day.\n',
    changelog: 'trimmed',
    expectedLatestVersion: 1,
  })
})
afterAll(async () => {
  await agent?.close()
  await stranger?.close()
  await web?.close()
})

describe('search_artifacts', () => {
  it('finds what the key may read, best first, with the matches in its snippets marked', async () => {
    const page = await search({ query: 'deploy' })
    expect(page.nextCursor).toBeNull()
    expect(page.items.map((hit) => hit.artifact.slug).sort()).toEqual(['release', 'rollback'])
    const scores = page.items.map((hit) => hit.score)
    expect(scores).toEqual([...scores].sort((a, b) => b - a))
    const rollback = page.items.find((hit) => hit.artifact.slug === 'rollback')
    expect(rollback?.snippets).toEqual([
      {
        field: 'content',
        line: 3,
        segments: [
          { text: 'When a ', match: false },
          { text: 'deployment', match: true },
          { text: ' fails, roll back to the previous release.', match: false },
        ],
      },
    ])
    // A hit is read with the tools it names.
    const content = await call(agent, 'get_artifact_content', { artifactId: rollback?.artifact.id })
    expect(content.content).toContain('When a deployment fails')
  })

  it('narrows by project and type, excludes words, pages with the cursor, and finds older versions with versions: "all"', async () => {
    const slugs = async (args: Record<string, unknown>) => (await search(args)).items.map((hit) => hit.artifact.slug)
    expect(await slugs({ query: 'deployment', project: `${owner.username}/runbooks`, type: 'txt' })).toEqual(['release'])
    expect(await slugs({ query: 'deployment -rollback' })).toEqual(['release'])
    expect(await slugs({ query: '"deployment window"' })).toEqual(['release'])
    expect(await slugs({ query: 'deployment', ownerUsername: owner.username, project: `${owner.username}/journal` })).toEqual([])
    const first = await search({ query: 'deployment', limit: 1 })
    expect(first.items).toHaveLength(1)
    const second = await search({ query: 'deployment', limit: 1, cursor: first.nextCursor })
    expect([first.items[0]?.artifact.slug, second.items[0]?.artifact.slug].sort()).toEqual(['release', 'rollback'])
    // Monday's deployment is only in version 1.
    const older = await search({ query: 'deployment', project: `${owner.username}/journal`, versions: 'all' })
    expect(older.items).toMatchObject([{ artifact: { slug: 'monday', latestVersion: 2 }, version: 1 }])
  })

  it("lists none of another person's artifacts, public ones included", async () => {
    expect(await search({ query: 'deployment' }, stranger)).toEqual({ items: [], nextCursor: null })
  })

  it('answers a query of only excluded words as an isError result naming the field', async () => {
    const { error, text } = await callFailing(agent, 'search_artifacts', { query: '-deployment' })
    expect(error).toMatchObject({ code: 'validation_failed', retryable: false })
    expect(text).toContain('excluded')
    expect((await callFailing(agent, 'search_artifacts', {})).error.code).toBe('validation_failed')
  })

  it('is refused to a key without artifacts:read with the 403 of every read tool, naming the scope', async () => {
    const writer = await mcpClient(web, (await userWithKey(web, 'mcp.search@example.com', ['artifacts:create'])).token)
    try {
      for (const [name, args] of [
        ['search_artifacts', { query: 'deployment' }],
        ['get_artifact', { artifactId: ids.rollback }],
      ] as const) {
        const refused = await writer.callTool({ name, arguments: args }).catch((e: unknown) => e)
        expect(refused, name).toBeInstanceOf(StreamableHTTPError)
        expect((refused as StreamableHTTPError).code, name).toBe(403)
        expect((refused as Error).message, name).toContain('"code":"insufficient_scope"')
        expect((refused as Error).message, name).toContain('"scope":"artifacts:read"')
      }
    } finally {
      await writer.close()
    }
  })

  it('is listed read-only, with the syntax and the next tool in its description', async () => {
    const { tools } = await agent.listTools()
    const tool = tools.find((t) => t.name === 'search_artifacts')
    expect(tool?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false })
    for (const words of ['"quoted phrases"', '-excluded', 'get_artifact_content', 'match: true']) expect(tool?.description).toContain(words)
    expect(tool?.inputSchema.required).toEqual(['query'])
  })
})
