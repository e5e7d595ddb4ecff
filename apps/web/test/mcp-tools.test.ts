/**
 * The 26 MCP tools (the spec's 22, get_artifact_changes, wait_for_changes, list_project_artifacts and search_artifacts) through the SDK's own client over Streamable HTTP, against the running web
 * app on a real database: every tool's success (its structuredContent validated with Ajv against
 * the outputSchema the server advertised) and a failure of each, the conflict with its diff,
 * windows of a large content, resources, idempotent retries and the audit trail.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { type CallToolResult, McpError } from '@modelcontextprotocol/sdk/types.js'
import { tools } from '@quire/mcp'
import { Ajv, type ValidateFunction } from 'ajv'
import addFormats from 'ajv-formats'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestWeb, type TestWeb } from './helper.ts'
import { callFailing, mcpClient, textOf, toolError, userWithKey } from './mcp-helper.ts'

let web: TestWeb
let owner: { token: string; username: string; userId: string }
let client: Client
let stranger: Client
const validators = new Map<string, ValidateFunction>()

/** Calls a tool and checks its structured content against the advertised output schema, and its text block is that content as JSON. */
async function checked(name: string, args: Record<string, unknown> = {}, as: Client = client) {
  const result = (await as.callTool({ name, arguments: args })) as CallToolResult
  expect(result.isError, `${name}: ${textOf(result)}`).toBeFalsy()
  const validate = validators.get(name)
  if (!validate) throw new Error(`no output schema for ${name}`)
  expect(validate(result.structuredContent), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true)
  // MCP: a tool that returns structured content should also return it serialized as JSON in a text block.
  expect(JSON.parse(textOf(result)), `${name}: the text block`).toEqual(result.structuredContent)
  return result.structuredContent as Record<string, unknown>
}

const artifactArgs = (slug: string, content: string) => ({
  ownerUsername: owner.username,
  projectSlug: 'notes',
  slug,
  type: 'md',
  title: `Doc ${slug}`,
  description: 'A test document',
  content,
  changelog: 'first',
  access: { publicView: false, publicEdit: false },
})

beforeAll(async () => {
  web = await startTestWeb()
  owner = await userWithKey(web, 'owner@example.com')
  client = await mcpClient(web, owner.token)
  stranger = await mcpClient(web, (await userWithKey(web, 'stranger@example.com')).token)
  const ajv = new Ajv({ strict: false, allErrors: true })
  addFormats.default(ajv)
  const { tools } = await client.listTools()
  for (const tool of tools) validators.set(tool.name, ajv.compile(tool.outputSchema ?? {}))
})
afterAll(async () => {
  await client?.close()
  await stranger?.close()
  await web?.close()
})

describe('every tool, through the SDK client', () => {
  let artifactId: string
  let workspaceId: string

  it('answers each success with structuredContent matching its outputSchema', async () => {
    const me = await checked('get_current_principal')
    expect(me).toMatchObject({ username: owner.username, email: 'owner@example.com' })
    workspaceId = me.personalWorkspaceId as string

    const workspaces = await checked('list_workspaces')
    expect((workspaces.items as { id: string }[]).map((w) => w.id)).toContain(workspaceId)

    expect(await checked('check_project_slug_availability', { ownerUsername: owner.username, slug: 'notes' })).toMatchObject({
      available: true,
    })
    const project = await checked('create_project', { ownerUsername: owner.username, slug: 'notes', title: 'Notes', icon: '📝' })
    expect(project).toMatchObject({ slug: 'notes', ownerUsername: owner.username })
    expect(await checked('check_project_slug_availability', { ownerUsername: owner.username, slug: 'notes' })).toMatchObject({
      available: false,
    })
    expect((await checked('list_projects')).items).toHaveLength(1)

    const created = await checked('create_artifact', artifactArgs('hello', '# Hello\n\nfirst line\n'))
    artifactId = created.id as string
    expect(created).toMatchObject({ slug: 'hello', latestVersion: 1, type: 'md' })
    expect((await checked('list_artifacts')).items).toHaveLength(1)
    expect(((await checked('list_workspace_artifacts', { workspaceId })).items as { id: string }[])[0]?.id).toBe(artifactId)
    const inProject = await checked('list_project_artifacts', { ownerUsername: owner.username, projectSlug: 'notes', limit: 1 })
    expect(inProject).toMatchObject({ items: [{ id: artifactId, projectSlug: 'notes' }], nextCursor: null })
    // A project its owner may read nothing of does not exist for a stranger either.
    expect(
      (await callFailing(stranger, 'list_project_artifacts', { ownerUsername: owner.username, projectSlug: 'notes' })).error.code,
    ).toBe('not_found')
    const found = await checked('search_artifacts', { query: 'first line', project: `${owner.username}/notes` })
    expect(found).toMatchObject({ items: [{ artifact: { id: artifactId }, version: 1 }], nextCursor: null })
    expect(await checked('get_artifact', { artifactId })).toMatchObject({ id: artifactId, latestVersion: 1 })
    // Markdown is shown by its page; an HTML report opens drawn, at a capability minted for the caller.
    expect(await checked('get_artifact', { artifactId })).toMatchObject({ previewUrl: null, previewExpiresAt: null })
    const report = await checked('create_artifact', { ...artifactArgs('report', '<h1>Report</h1>\n'), type: 'html' })
    const drawn = await checked('get_artifact', { artifactId: report.id })
    expect(drawn.previewUrl).toMatch(new RegExp(`^${web.runtime.deps.previews?.origin}/d/[\\w-]+\\.[\\w-]+\\.[\\w-]+$`))
    expect(Date.parse(drawn.previewExpiresAt as string)).toBeGreaterThan(Date.now())
    await checked('delete_artifact', { artifactId: report.id })

    const updated = await checked('update_artifact', {
      artifactId,
      content: '# Hello\n\nsecond line\n',
      changelog: 'second',
      expectedLatestVersion: 1,
    })
    expect(updated).toMatchObject({ versionNumber: 2, changelog: 'second', restoredFrom: null })
    const content = await checked('get_artifact_content', { artifactId })
    expect(content).toMatchObject({ versionNumber: 2, content: '# Hello\n\nsecond line\n', truncated: false, nextOffset: null, offset: 0 })
    expect(await checked('get_artifact_content', { artifactId, versionNumber: 1 })).toMatchObject({
      versionNumber: 1,
      content: '# Hello\n\nfirst line\n',
    })

    const diff = await checked('diff_artifact_versions', { artifactId, fromVersion: 1, toVersion: 2 })
    expect(diff).toMatchObject({ additions: 1, deletions: 1 })
    expect(diff.diff).toContain('-first line')
    expect(diff.diff).toContain('+second line')

    // Catch-up: the versions after `since` and the diff from it to the head.
    const changes = await checked('get_artifact_changes', { artifactId, since: 1 })
    expect(changes).toMatchObject({ sinceVersion: 1, latestVersion: 2, diff: diff.diff, diffTruncated: false })
    expect((changes.versions as { items: { versionNumber: number }[] }).items.map((v) => v.versionNumber)).toEqual([2])
    expect(await checked('get_artifact_changes', { artifactId, since: 2 })).toMatchObject({ versions: { items: [] }, diff: '' })

    // Dry runs: every check, nothing written; the answer matches the schema the server advertised.
    const wouldUpdate = await checked('update_artifact', { artifactId, content: 'dry\n', expectedLatestVersion: 2, dryRun: true })
    expect(wouldUpdate).toMatchObject({ dryRun: true, wouldCreate: { versionNumber: 3 }, fromVersion: 2 })
    expect(wouldUpdate.diff).toContain('+dry')
    const wouldRestore = await checked('restore_artifact_version', { artifactId, versionNumber: 1, dryRun: true })
    expect(wouldRestore).toMatchObject({ dryRun: true, wouldCreate: { versionNumber: 3, restoredFrom: 1 } })
    const wouldShare = await checked('set_artifact_access', { artifactId, access: { publicView: true }, dryRun: true })
    expect(wouldShare).toMatchObject({ dryRun: true, changed: ['publicView'], wouldBe: { publicView: true } })
    expect(
      (await callFailing(client, 'update_artifact', { artifactId, content: 'x', expectedLatestVersion: 1, dryRun: true })).error.code,
    ).toBe('version_conflict')
    expect(await checked('get_artifact', { artifactId })).toMatchObject({ latestVersion: 2, access: { publicView: false } })

    expect(await checked('restore_artifact_version', { artifactId, versionNumber: 1 })).toMatchObject({ versionNumber: 3, restoredFrom: 1 })
    const versions = await checked('list_artifact_versions', { artifactId, limit: 2 })
    expect((versions.items as { versionNumber: number }[]).map((v) => v.versionNumber)).toEqual([3, 2])
    expect(typeof versions.nextCursor).toBe('string')
    const rest = await checked('list_artifact_versions', { artifactId, limit: 2, cursor: versions.nextCursor })
    expect((rest.items as { versionNumber: number }[]).map((v) => v.versionNumber)).toEqual([1])

    expect(await checked('get_artifact_access', { artifactId })).toMatchObject({ publicView: false, viewerEmails: [] })
    expect(await checked('set_artifact_access', { artifactId, access: { viewerEmails: ['friend@example.com'] } })).toMatchObject({
      viewerEmails: ['friend@example.com'],
    })

    const link = await checked('create_share_link', { artifactId, role: 'viewer' })
    expect(typeof link.secret).toBe('string')
    const links = await checked('list_share_links', { artifactId })
    expect((links.items as { id: string }[]).map((l) => l.id)).toEqual([link.id])
    expect(await checked('revoke_share_link', { shareLinkId: link.id })).toMatchObject({ status: 'revoked' })

    expect(await checked('resolve_path', { ownerUsername: owner.username, projectSlug: 'notes' })).toMatchObject({
      kind: 'project',
      project: { slug: 'notes' },
    })
    expect(await checked('resolve_path', { ownerUsername: owner.username, projectSlug: 'notes', slug: 'hello' })).toMatchObject({
      kind: 'artifact',
      artifact: { id: artifactId },
    })

    const events = await checked('list_audit_events', { artifactId, limit: 100 })
    const actions = (events.items as { action: string }[]).map((e) => e.action)
    expect(actions).toEqual(
      expect.arrayContaining([
        'artifact.created',
        'artifact.version_created',
        'artifact.restored',
        'share_link.created',
        'share_link.revoked',
      ]),
    )
    expect((await checked('list_audit_events', { limit: 5 })).items).toBeInstanceOf(Array)

    const other = await checked('create_artifact', artifactArgs('bye', 'bye\n'))
    expect(await checked('delete_artifact', { artifactId: other.id })).toMatchObject({ id: other.id })
    expect((await callFailing(client, 'get_artifact', { artifactId: other.id })).error.code).toBe('not_found')
  })

  it('records every change made through MCP with via.surface "mcp" and the exact key', async () => {
    const events = await checked('list_audit_events', { artifactId, limit: 100 })
    const items = events.items as { action: string; via: { surface: string; credential: string; credentialId: string } }[]
    expect(items.length).toBeGreaterThan(4)
    for (const event of items) expect(event.via).toMatchObject({ surface: 'mcp', credential: 'api_key' })
    expect(new Set(items.map((e) => e.via.credentialId)).size).toBe(1)
  })

  it('fails each tool as an isError result with a code, retryability and a next step', async () => {
    const unknown = 'art_00000000000000000000000000'
    const failing: [string, Record<string, unknown>, string][] = [
      ['list_workspaces', { cursor: 'not-a-cursor' }, 'invalid_cursor'],
      ['list_projects', { limit: 0 }, 'validation_failed'],
      ['create_project', { ownerUsername: owner.username, slug: 'notes', title: 'Again', icon: 'N' }, 'slug_taken'],
      ['check_project_slug_availability', { ownerUsername: owner.username }, 'validation_failed'],
      ['list_artifacts', { cursor: 'x' }, 'invalid_cursor'],
      ['list_workspace_artifacts', { workspaceId: 'ws_00000000000000000000000000' }, 'not_found'],
      ['list_project_artifacts', { ownerUsername: owner.username, projectSlug: 'nope' }, 'not_found'],
      ['search_artifacts', { query: '-hello' }, 'validation_failed'],
      ['create_artifact', artifactArgs('hello', 'again'), 'slug_taken'],
      ['update_artifact', { artifactId: unknown, content: 'x', expectedLatestVersion: 1 }, 'not_found'],
      ['restore_artifact_version', { artifactId, versionNumber: 99 }, 'not_found'],
      ['delete_artifact', { artifactId: unknown }, 'not_found'],
      ['get_artifact', { artifactId: unknown }, 'not_found'],
      ['get_artifact_content', { artifactId, versionNumber: 99 }, 'not_found'],
      ['list_artifact_versions', { artifactId, limit: 101 }, 'validation_failed'],
      ['diff_artifact_versions', { artifactId, fromVersion: 1, toVersion: 99 }, 'not_found'],
      ['get_artifact_changes', { artifactId, since: 99 }, 'not_found'],
      ['wait_for_changes', { artifact: unknown }, 'not_found'],
      ['get_artifact_access', { artifactId: unknown }, 'not_found'],
      ['set_artifact_access', { artifactId, access: { publicView: 'yes' } }, 'validation_failed'],
      ['create_share_link', { artifactId, role: 'owner' }, 'validation_failed'],
      ['list_share_links', { artifactId: unknown }, 'not_found'],
      ['revoke_share_link', { shareLinkId: 'shl_00000000000000000000000000' }, 'not_found'],
      ['list_audit_events', { limit: 500 }, 'validation_failed'],
      ['resolve_path', { ownerUsername: owner.username, projectSlug: 'nope' }, 'not_found'],
      ['get_current_principal', { extra: 1 }, 'validation_failed'],
    ]
    expect(new Set(failing.map(([name]) => name)).size).toBe(26)
    for (const [name, args, code] of failing) {
      const { error, text } = await callFailing(client, name, args)
      expect(error.code, name).toBe(code)
      expect(typeof error.retryable, name).toBe('boolean')
      expect(text, name).toMatch(/\n\n\S/) // the next step, after the sentence
    }
  })

  it('offers free project slugs for a taken one, in the failure and in the availability answer (output schema checked)', async () => {
    const { error, text } = await callFailing(client, 'create_project', {
      ownerUsername: owner.username,
      slug: 'notes',
      title: 'Notes',
      icon: 'N',
    })
    expect(error).toMatchObject({ code: 'slug_taken', suggestions: ['notes-2', 'notes-3', 'notes-4'] })
    expect(text).toContain('Free slugs instead: `notes-2`, `notes-3`, `notes-4`.')
    const availability = await checked('check_project_slug_availability', { ownerUsername: owner.username, slug: 'notes' })
    expect(availability).toMatchObject({ available: false, reason: 'taken', suggestions: ['notes-2', 'notes-3', 'notes-4'] })
    // A project is not a username.
    expect(await checked('check_project_slug_availability', { ownerUsername: owner.username, slug: 'status' })).toMatchObject({
      available: true,
    })
  })

  it('names the field for wrong types, unknown fields, missing fields and a limit above 100', async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['get_artifact', { artifactId: 42 }, '/artifactId'],
      ['get_artifact', { artifactId: 'a', colour: 'red' }, '/colour'],
      ['update_artifact', { artifactId: 'a', content: 'x' }, '/expectedLatestVersion'],
      ['list_artifact_versions', { artifactId: 'a', limit: 101 }, '/limit'],
    ]
    for (const [name, args, path] of cases) {
      const { error, text } = await callFailing(client, name, args)
      expect(error).toMatchObject({ code: 'validation_failed', retryable: false })
      expect((error.errors as { path: string }[]).map((e) => e.path)).toEqual([path])
      expect(text).toContain(path.slice(1))
    }
  })

  it('answers a stale expectedLatestVersion with the current version and the diff missed, writing nothing', async () => {
    const before = await checked('get_artifact', { artifactId })
    // Version 3 restored version 1: from 2, the caller missed "second line" becoming "first line" again.
    const { error, text } = await callFailing(client, 'update_artifact', { artifactId, content: 'mine\n', expectedLatestVersion: 2 })
    expect(error).toMatchObject({ code: 'version_conflict', latestVersion: before.latestVersion, expectedLatestVersion: 2 })
    expect(error.diff).toContain('-second line')
    expect(error.diff).toContain('+first line')
    expect(text).toContain('+first line')
    expect(text).toContain(`expectedLatestVersion ${before.latestVersion}`)
    expect(await checked('get_artifact', { artifactId })).toMatchObject({ latestVersion: before.latestVersion })
  })

  it('shows a writer without read (no artifacts:read) no diff: conflicts and dry runs say why instead', async () => {
    const secret = `a secret line ${Math.random().toString(36).slice(2)}`
    const doc = await checked('create_artifact', artifactArgs('withheld', 'opening\n'))
    await checked('update_artifact', { artifactId: doc.id, content: `${secret}\n`, expectedLatestVersion: 1 })
    const writer = await mcpClient(web, (await userWithKey(web, 'owner@example.com', ['artifacts:update'])).token)
    try {
      const withheld = {
        scope: 'artifacts:read',
        detail: "The diff shows the artifact's content, which this credential may not read: it needs artifacts:read.",
      }
      const stale = (await writer.callTool({
        name: 'update_artifact',
        arguments: { artifactId: doc.id, content: '', expectedLatestVersion: 1 },
      })) as CallToolResult
      expect(toolError(stale)).toMatchObject({ code: 'version_conflict', latestVersion: 2, diffWithheld: withheld })
      expect(toolError(stale).diff).toBeUndefined()
      expect(textOf(stale)).toContain(`No diff: ${withheld.detail}`)
      const answers: CallToolResult[] = [stale]
      for (const [name, args] of [
        ['update_artifact', { artifactId: doc.id, content: '', expectedLatestVersion: 2, dryRun: true }],
        ['restore_artifact_version', { artifactId: doc.id, versionNumber: 1, dryRun: true }],
      ] as const) {
        const result = (await writer.callTool({ name, arguments: args })) as CallToolResult
        expect(result.isError, textOf(result)).toBeFalsy()
        expect(result.structuredContent).toMatchObject({ dryRun: true, fromVersion: 2, diffWithheld: withheld })
        expect(result.structuredContent?.diff).toBeUndefined()
        expect(validators.get(name)?.(result.structuredContent), name).toBe(true)
        answers.push(result)
      }
      for (const answer of answers) expect(JSON.stringify(answer)).not.toContain(secret)
      // The owner's full key sees what the writer did not.
      const { error } = await callFailing(client, 'update_artifact', { artifactId: doc.id, content: '', expectedLatestVersion: 1 })
      expect(error.diff).toContain(`+${secret}`)
    } finally {
      await writer.close()
    }
  })

  it('answers every dry-run tool with the version or settings it would write, and no "undefined" in its text (issue 30)', async () => {
    // A project of its own: the test runs alone too (-t).
    await checked('create_project', { ownerUsername: owner.username, slug: 'dry-runs', title: 'Dry runs', icon: 'D' })
    const doc = await checked('create_artifact', { ...artifactArgs('dry-texts', 'one\n'), projectSlug: 'dry-runs' })
    const id = doc.id as string
    await checked('update_artifact', { artifactId: id, content: 'two\n', expectedLatestVersion: 1 })
    // One call per tool that takes dryRun; a new dry-run tool fails here until it has one.
    const calls: Record<string, Record<string, unknown>> = {
      create_artifact: { ...artifactArgs('dry-new', 'new\n'), projectSlug: 'dry-runs', dryRun: true },
      update_artifact: { artifactId: id, content: 'three\n', expectedLatestVersion: 2, dryRun: true },
      restore_artifact_version: { artifactId: id, versionNumber: 1, dryRun: true },
      set_artifact_access: { artifactId: id, access: { publicView: true }, dryRun: true },
    }
    const dryRunTools = tools.filter((t) => 'extensions' in t && 'dryRun' in t.extensions).map((t) => t.name)
    expect(Object.keys(calls).sort()).toEqual(dryRunTools.sort())
    for (const [name, args] of Object.entries(calls)) {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult
      const text = result.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n')
      expect(result.isError, `${name}: ${text}`).toBeFalsy()
      expect(text, name).not.toContain('undefined')
      expect(JSON.parse(textOf(result)), name).toEqual(result.structuredContent)
      expect(result.structuredContent, name).toMatchObject(
        name === 'create_artifact'
          ? { dryRun: true, wouldCreate: { slug: 'dry-new', versionNumber: 1 } }
          : { dryRun: true, artifactId: id },
      )
    }
    // The versions a dry run names: from the latest (2) to the one the write would create (3).
    const update = await checked('update_artifact', calls.update_artifact)
    expect(update).toMatchObject({ fromVersion: 2, wouldCreate: { versionNumber: 3, restoredFrom: null } })
    const restore = await checked('restore_artifact_version', calls.restore_artifact_version)
    expect(restore).toMatchObject({ fromVersion: 2, wouldCreate: { versionNumber: 3, restoredFrom: 1 } })
    expect(await checked('set_artifact_access', calls.set_artifact_access)).toMatchObject({ changed: ['publicView'] })
    expect(await checked('get_artifact', { artifactId: id })).toMatchObject({ latestVersion: 2, access: { publicView: false } })
    const created = await callFailing(client, 'resolve_path', { ownerUsername: owner.username, projectSlug: 'dry-runs', slug: 'dry-new' })
    expect(created.error.code).toBe('not_found')
  })

  it('refuses a share link granting more than the key may do (the edge naming every scope the tool needs), writing nothing', async () => {
    const doc = await checked('create_artifact', artifactArgs('linked', 'private\n'))
    const written = async () => ({
      events: ((await checked('list_audit_events', { artifactId: doc.id, limit: 100 })).items as unknown[]).length,
      links: ((await checked('list_share_links', { artifactId: doc.id })).items as unknown[]).length,
    })
    const before = await written()
    // Without artifacts:read: the edge refuses before the tool runs, naming each scope create_share_link needs.
    const sharer = await mcpClient(web, (await userWithKey(web, 'owner@example.com', ['artifacts:share'])).token)
    try {
      const refused = await sharer.callTool({ name: 'create_share_link', arguments: { artifactId: doc.id } }).catch((e: unknown) => e)
      expect(refused).toBeInstanceOf(StreamableHTTPError)
      expect((refused as StreamableHTTPError).code).toBe(403)
      expect((refused as Error).message).toContain('"code":"insufficient_scope"')
      expect((refused as Error).message).toContain('"scope":"artifacts:share artifacts:read"')
    } finally {
      await sharer.close()
    }
    // With read but without update: the tool runs, and the use-case refuses an editor link naming artifacts:update.
    const reader = await mcpClient(web, (await userWithKey(web, 'owner@example.com', ['artifacts:share', 'artifacts:read'])).token)
    try {
      const { error, text } = await callFailing(reader, 'create_share_link', { artifactId: doc.id, role: 'editor' })
      expect(error).toMatchObject({ code: 'insufficient_scope', scope: 'artifacts:update', retryable: false })
      expect(text).toContain('artifacts:update')
      expect(await written()).toEqual(before)
      // A viewer link is within what this key may do.
      expect(await checked('create_share_link', { artifactId: doc.id }, reader)).toMatchObject({ role: 'viewer' })
    } finally {
      await reader.close()
    }
    // The owner's full key makes the editor link.
    expect(await checked('create_share_link', { artifactId: doc.id, role: 'editor' })).toMatchObject({ role: 'editor' })
    expect((await written()).links).toBe(before.links + 2)
  })

  it('refuses an access change opening the artifact beyond what the key may do, dry run and all, writing nothing', async () => {
    const doc = await checked('create_artifact', artifactArgs('opened', 'private\n'))
    const keeper = await mcpClient(
      web,
      (await userWithKey(web, 'owner@example.com', ['artifacts:access:write', 'artifacts:access:read'])).token,
    )
    try {
      for (const [access, scope] of [
        [{ publicView: true }, 'artifacts:read'],
        [{ viewerEmails: ['reader@example.com'] }, 'artifacts:read'],
        [{ publicEdit: true }, 'artifacts:update'],
      ] as const) {
        for (const dryRun of [true, false]) {
          const { error } = await callFailing(keeper, 'set_artifact_access', { artifactId: doc.id, access, dryRun })
          expect(error, JSON.stringify(access)).toMatchObject({ code: 'insufficient_scope', scope })
        }
      }
      expect(await checked('get_artifact_access', { artifactId: doc.id })).toMatchObject({
        publicView: false,
        publicEdit: false,
        viewerEmails: [],
      })
      // Closing needs nothing more; the owner's full key opens it.
      expect(await checked('set_artifact_access', { artifactId: doc.id, access: { publicEdit: false } }, keeper)).toMatchObject({
        publicEdit: false,
      })
    } finally {
      await keeper.close()
    }
    expect(await checked('set_artifact_access', { artifactId: doc.id, access: { publicView: true } })).toMatchObject({ publicView: true })
  })

  it("answers another user's private artifact as not found, exactly as REST does", async () => {
    const { error } = await callFailing(stranger, 'get_artifact', { artifactId })
    const { error: unknownError } = await callFailing(stranger, 'get_artifact', { artifactId: 'art_00000000000000000000000000' })
    expect(error.code).toBe('not_found')
    expect(error.detail).toBe(unknownError.detail)
    expect((await callFailing(stranger, 'update_artifact', { artifactId, content: 'x', expectedLatestVersion: 3 })).error.code).toBe(
      'not_found',
    )
  })

  it('replays a retried create with the same idempotencyKey instead of creating twice', async () => {
    const args = { ...artifactArgs('retry', 'once\n'), idempotencyKey: 'create-retry-1' }
    const first = await checked('create_artifact', args)
    const again = await checked('create_artifact', args)
    expect(again.id).toBe(first.id)
    const { error } = await callFailing(client, 'create_artifact', { ...args, title: 'Different' })
    expect(error.code).toBe('idempotency_key_reused')
  })
})

describe('large content', () => {
  it('returns bounded windows whose concatenation is the exact content', async () => {
    // About 1 MB with multi-byte characters, so windows must not split one.
    const line = 'Ünïcödé ✓ — 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 line of text for the window test\n'
    const content = line.repeat(Math.floor(1_000_000 / Buffer.byteLength(line)))
    const created = await checked('create_artifact', artifactArgs('large', content))
    const windows: string[] = []
    let offset: number | null = 0
    while (offset !== null) {
      const window = await checked('get_artifact_content', { artifactId: created.id, offset })
      expect(Buffer.byteLength(window.content as string)).toBeLessThanOrEqual(256 * 1024)
      windows.push(window.content as string)
      expect(window.truncated).toBe(window.nextOffset !== null)
      offset = window.nextOffset as number | null
    }
    expect(windows.length).toBe(Math.ceil(Buffer.byteLength(content) / (256 * 1024)))
    expect(windows.join('')).toBe(content)
    expect((await callFailing(client, 'get_artifact_content', { artifactId: created.id, offset: 1 })).error.code).toBe('validation_failed')
  })
})

describe('resources', () => {
  it('advertises the artifact template, reads markdown as text/markdown, and answers an unknown URI with -32002', async () => {
    const { resourceTemplates } = await client.listResourceTemplates()
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['quire://{ownerUsername}/{projectSlug}/{slug}{?version}'])
    const read = await client.readResource({ uri: `quire://${owner.username}/notes/hello` })
    expect(read.contents).toEqual([
      { uri: `quire://${owner.username}/notes/hello`, mimeType: 'text/markdown', text: '# Hello\n\nfirst line\n' },
    ])
    const pinned = await client.readResource({ uri: `quire://${owner.username}/notes/hello?version=2` })
    expect(pinned.contents[0]).toMatchObject({ text: '# Hello\n\nsecond line\n' })
    const { resources } = await client.listResources()
    expect(resources.map((r) => r.uri)).toContain(`quire://${owner.username}/notes/hello`)
    for (const uri of [
      `quire://${owner.username}/notes/missing`,
      'https://example.com/x',
      `quire://${owner.username}/notes/hello?version=99`,
    ]) {
      const error = await client.readResource({ uri }).catch((e: unknown) => e)
      expect(error, uri).toBeInstanceOf(McpError)
      expect((error as McpError).code, uri).toBe(-32002)
    }
    // Under the same access rules: a stranger does not find it either.
    const hidden = await stranger.readResource({ uri: `quire://${owner.username}/notes/hello` }).catch((e: unknown) => e)
    expect((hidden as McpError).code).toBe(-32002)
  })
})
