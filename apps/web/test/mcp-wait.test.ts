/**
 * `wait_for_changes` through the SDK's own client over Streamable HTTP (stateless: each call is a
 * request of its own, any process may answer it), against the running web app on this test's
 * engine: without `after` it starts from now; a wait returns as soon as another client's change
 * commits; at the timeout it returns no events and a cursor to pass back; a project is followed by
 * its members; a stranger hears nothing of a private artifact (404, as for any read).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestWeb, type TestWeb } from './helper.ts'
import { call, callFailing, mcpClient, userWithKey } from './mcp-helper.ts'

interface Batch {
  events: { id: string; kind: string; artifactId: string; path: string; versionNumber: number | null; actor: { label: string } }[]
  cursor: string
  more: boolean
}

let web: TestWeb
let owner: Awaited<ReturnType<typeof userWithKey>>
let agent: Client
let person: Client
let stranger: Client
let artifactId: string

const wait = async (args: Record<string, unknown>, as: Client = agent) => (await call(as, 'wait_for_changes', args)) as unknown as Batch

beforeAll(async () => {
  web = await startTestWeb()
  owner = await userWithKey(web, 'mcp.wait@example.com')
  agent = await mcpClient(web, owner.token)
  person = await mcpClient(web, owner.token)
  stranger = await mcpClient(web, (await userWithKey(web, 'mcp.wait.stranger@example.com')).token)
  await call(person, 'create_project', { ownerUsername: owner.username, slug: 'notes', title: 'Notes', icon: 'N' })
  const made = await call(person, 'create_artifact', {
    ownerUsername: owner.username,
    projectSlug: 'notes',
    slug: 'plan',
    type: 'md',
    title: 'Plan',
    content: '# Plan\n',
    changelog: 'first',
    access: { publicView: false, publicEdit: false },
  })
  artifactId = made.id as string
})
afterAll(async () => {
  await agent?.close()
  await person?.close()
  await stranger?.close()
  await web?.close()
})

describe('wait_for_changes', () => {
  it('returns as soon as someone else publishes, with a cursor that resumes exactly', async () => {
    const now = await wait({ artifact: artifactId })
    expect(now.events).toEqual([])
    const started = performance.now()
    const waiting = wait({ artifact: artifactId, after: now.cursor, timeoutSeconds: 25 })
    await new Promise((resolve) => setTimeout(resolve, 300))
    await call(person, 'update_artifact', { artifactId, content: '# Plan\n\nMore.\n', changelog: 'second', expectedLatestVersion: 1 })
    const got = await waiting
    expect(performance.now() - started).toBeLessThan(20_000)
    expect(got.events).toMatchObject([
      { kind: 'artifact.version_created', artifactId, path: `${owner.username}/notes/plan`, versionNumber: 2 },
    ])
    expect(got.cursor).toBe(got.events[0]?.id)
    // Nothing new: the timeout passes and the same place comes back.
    const quiet = await wait({ artifact: `${owner.username}/notes/plan`, after: got.cursor, timeoutSeconds: 1 })
    expect(quiet).toEqual({ events: [], cursor: got.cursor, more: false })
  })

  it('follows a project; a stranger hears nothing of a private artifact; a bad call names its field', async () => {
    const from = await wait({ project: `${owner.username}/notes` })
    await call(person, 'create_artifact', {
      ownerUsername: owner.username,
      projectSlug: 'notes',
      slug: 'retro',
      type: 'md',
      title: 'Retro',
      content: 'x\n',
      changelog: 'first',
      access: { publicView: false, publicEdit: false },
    })
    const got = await wait({ project: `${owner.username}/notes`, after: from.cursor, timeoutSeconds: 10 })
    expect(got.events.map((e) => [e.kind, e.path])).toEqual([['artifact.created', `${owner.username}/notes/retro`]])
    expect((await callFailing(stranger, 'wait_for_changes', { artifact: artifactId })).error.code).toBe('not_found')
    expect((await callFailing(stranger, 'wait_for_changes', { project: `${owner.username}/notes` })).error.code).toBe('not_found')
    const neither = await callFailing(agent, 'wait_for_changes', {})
    expect(neither.error.code).toBe('validation_failed')
    expect((await callFailing(agent, 'wait_for_changes', { artifact: artifactId, timeoutSeconds: 31 })).error.code).toBe(
      'validation_failed',
    )
  })
})
