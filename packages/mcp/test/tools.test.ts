import { type OperationSpec, operations, scopesOf } from '@quire/core'
import { undescribedFields } from '@quire/testing/schema-descriptions'
import { Ajv } from 'ajv'
import addFormats from 'ajv-formats'
import { describe, expect, it } from 'vitest'
import { compiledTools, inputSchemaOf, tools } from '../src/index.ts'

/** The spec's MCP table (SPEC.md "MCP"), with the catch-up tool of issue 18, the project list of issue 29 and the search of issue 32: tool names and input fields, in order. */
const specTable: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['get_current_principal', []],
  ['list_workspaces', []],
  ['list_projects', []],
  ['create_project', ['ownerUsername', 'slug', 'title', 'icon', 'description']],
  ['check_project_slug_availability', ['ownerUsername', 'slug']],
  ['list_artifacts', []],
  ['list_workspace_artifacts', ['workspaceId']],
  // Beyond the spec: one project's artifacts (issue 29).
  ['list_project_artifacts', ['ownerUsername', 'projectSlug']],
  // Beyond the spec: search (issue 32).
  ['search_artifacts', ['query', 'ownerUsername', 'project', 'type', 'updatedAfter', 'versions']],
  ['create_artifact', ['ownerUsername', 'projectSlug', 'slug', 'type', 'title', 'description', 'content', 'changelog', 'access']],
  ['update_artifact', ['artifactId', 'content', 'changelog', 'expectedLatestVersion']],
  ['restore_artifact_version', ['artifactId', 'versionNumber']],
  ['delete_artifact', ['artifactId']],
  ['get_artifact', ['artifactId']],
  ['get_artifact_content', ['artifactId', 'versionNumber']],
  ['list_artifact_versions', ['artifactId', 'limit']],
  ['diff_artifact_versions', ['artifactId', 'fromVersion', 'toVersion']],
  // Beyond the spec: catch-up (issue 18).
  ['get_artifact_changes', ['artifactId', 'since']],
  // Beyond the spec: waiting for a change (issue 33).
  ['wait_for_changes', ['artifact', 'project', 'after', 'timeoutSeconds']],
  ['get_artifact_access', ['artifactId']],
  ['set_artifact_access', ['artifactId', 'access']],
  ['create_share_link', ['artifactId', 'role', 'expiresAt']],
  ['list_share_links', ['artifactId']],
  ['revoke_share_link', ['shareLinkId']],
  ['list_audit_events', ['artifactId', 'limit']],
  ['resolve_path', ['ownerUsername', 'projectSlug', 'slug']],
]

/** Fields beyond the spec's that a tool may take: pagination, a write's idempotency key and dry run, a window's offset, a restore's options. */
const allowedExtensions = new Set(['limit', 'cursor', 'idempotencyKey', 'dryRun', 'offset', 'changelog', 'expectedLatestVersion'])

const plain = (schema: unknown) => JSON.parse(JSON.stringify(schema)) as Record<string, unknown>

describe('the tool table', () => {
  it("has the spec's 22 tools, get_artifact_changes, wait_for_changes, list_project_artifacts and search_artifacts, with their names and input fields, in order", () => {
    expect(tools.map((t) => [t.name, Object.keys(t.fields)])).toEqual(specTable)
  })

  it('takes a dryRun input exactly on the writes the server can dry-run', () => {
    for (const tool of tools) {
      const op: OperationSpec = operations[tool.operation]
      const extensions: Record<string, unknown> = 'extensions' in tool ? tool.extensions : {}
      expect(extensions.dryRun, tool.name).toBe(op.dryRun ? 'query.dryRun' : undefined)
    }
    const update = compiledTools.find((t) => t.name === 'update_artifact')
    const parsed = update?.parse({ artifactId: 'art_1', content: 'x', expectedLatestVersion: 1, dryRun: true })
    expect(parsed?.ok && parsed.value.call.input.query).toEqual({ dryRun: true })
    const wrong = update?.parse({ artifactId: 'art_1', content: 'x', expectedLatestVersion: 1, dryRun: 'yes' })
    expect(wrong?.ok).toBe(false)
    const create = compiledTools.find((t) => t.name === 'create_artifact')
    const access = { publicView: false, publicEdit: false }
    const args = {
      ownerUsername: 'ana',
      projectSlug: 'notes',
      slug: 'plan',
      type: 'md',
      title: 'Plan',
      content: 'x',
      changelog: '',
      access,
    }
    const previewed = create?.parse({ ...args, dryRun: true })
    expect(previewed?.ok && previewed.value.call).toMatchObject({
      operation: 'createArtifact',
      input: { query: { dryRun: true }, body: args },
    })
    const made = create?.parse(args)
    expect(made?.ok && made.value.call.input.query).toEqual({})
  })

  it('takes beyond the spec only pagination, idempotency keys, dry runs, a window offset and restore options', () => {
    for (const tool of tools) {
      const extra = Object.keys('extensions' in tool ? tool.extensions : {})
      for (const name of extra) expect(allowedExtensions, `${tool.name}.${name}`).toContain(name)
    }
  })

  it("derives every input field's schema from its operation's (a drift in the operation shows here)", () => {
    for (const tool of tools) {
      const op: OperationSpec = operations[tool.operation]
      const input = plain(inputSchemaOf(tool)) as { properties: Record<string, unknown>; required?: string[] }
      for (const [field, source] of Object.entries({ ...tool.fields, ...('extensions' in tool ? tool.extensions : {}) })) {
        if (typeof source !== 'string' || source === 'idempotencyKey') continue
        const expected =
          source === 'body'
            ? op.body
            : (op[source.split('.')[0] as 'params' | 'query' | 'body'] as { properties: Record<string, unknown> }).properties[
                source.split('.')[1] as string
              ]
        expect(input.properties[field], `${tool.name}.${field} ← ${tool.operation} ${source}`).toEqual(plain(expected))
      }
      // Required exactly where the operation requires it (plus the tool's own `require`, minus `without`'s field).
      const required = new Set(input.required ?? [])
      for (const [field, source] of Object.entries(tool.fields)) {
        if (source === 'body') {
          expect(required.has(field), `${tool.name}.${field}`).toBe(!op.bodyOptional)
          continue
        }
        const [part, name] = source.split('.') as ['params' | 'query' | 'body', string]
        const opRequired = ((op[part] as { required?: string[] } | undefined)?.required ?? []).includes(name)
        const expected =
          (opRequired && !('without' in tool && tool.without.field === field)) ||
          ('require' in tool && (tool.require as readonly string[]).includes(field))
        expect(required.has(field), `${tool.name}.${field}`).toBe(expected)
      }
    }
  })

  it('sets a title and all four annotations on every tool, from the operation hints', () => {
    const destructive = compiledTools.filter((t) => t.annotations.destructiveHint).map((t) => t.name)
    expect(destructive.sort()).toEqual(['delete_artifact', 'revoke_share_link', 'set_artifact_access'])
    for (const tool of compiledTools) {
      const op = operations[tool.spec.operation]
      expect(tool.title.length, tool.name).toBeGreaterThan(3)
      expect(tool.description.length, tool.name).toBeGreaterThan(80)
      expect(tool.annotations).toEqual({
        title: tool.title,
        readOnlyHint: op.hints.readOnly,
        destructiveHint: op.hints.destructive,
        idempotentHint: op.hints.idempotent,
        openWorldHint: false,
      })
    }
    const reads = compiledTools.filter((t) => t.annotations.readOnlyHint).map((t) => t.name)
    for (const name of [
      'get_artifact_content',
      'diff_artifact_versions',
      'list_audit_events',
      'resolve_path',
      'get_current_principal',
      'search_artifacts',
      'wait_for_changes',
    ])
      expect(reads).toContain(name)
  })

  it('needs every scope of its operations, those their answer or effect also needs included, and says so', () => {
    const needs = Object.fromEntries(compiledTools.map((t) => [t.name, t.scopes]))
    expect(needs.set_artifact_access).toEqual(['artifacts:access:write', 'artifacts:access:read'])
    expect(needs.create_share_link).toEqual(['artifacts:share', 'artifacts:read'])
    expect(needs.resolve_path).toEqual(['artifacts:read'])
    for (const tool of compiledTools) {
      const op: OperationSpec = operations[tool.spec.operation]
      expect(tool.scopes, tool.name).toEqual(expect.arrayContaining(scopesOf(op)))
      // A scope a tool needs for what it answers or grants is named in its description.
      for (const scope of scopesOf(op).slice(1)) expect(tool.description, tool.name).toContain(`\`${scope}\``)
    }
    // An editor link's further need depends on the role: the description says it.
    expect(compiledTools.find((t) => t.name === 'create_share_link')?.description).toContain('`artifacts:update`')
  })

  it('describes every field of every input and output schema, at any depth', () => {
    const missing = undescribedFields(
      compiledTools.flatMap((tool) => [
        { at: `${tool.name} inputSchema #`, schema: tool.inputSchema },
        { at: `${tool.name} outputSchema #`, schema: tool.outputSchema },
      ]),
    )
    expect(missing, `fields without a description:\n${missing.join('\n')}`).toEqual([])
  })

  it('declares object input and output schemas that compile', () => {
    const ajv = new Ajv({ strict: false })
    addFormats.default(ajv)
    for (const tool of compiledTools) {
      expect(tool.inputSchema.type, tool.name).toBe('object')
      expect(tool.outputSchema.type, tool.name).toBe('object')
      expect(() => ajv.compile(tool.outputSchema), tool.name).not.toThrow()
      expect(() => ajv.compile(tool.inputSchema), tool.name).not.toThrow()
    }
  })
})

describe('argument checking', () => {
  const tool = (name: string) => {
    const found = compiledTools.find((t) => t.name === name)
    if (!found) throw new Error(name)
    return found
  }
  const errorsOf = (name: string, args: unknown) => {
    const parsed = tool(name).parse(args)
    if (parsed.ok) throw new Error(`${name} accepted ${JSON.stringify(args)}`)
    expect(parsed.error.code).toBe('validation_failed')
    return parsed.error.errors?.map((e) => e.path)
  }

  it('refuses a limit above 100 on list_artifact_versions, naming the field', () => {
    expect(errorsOf('list_artifact_versions', { artifactId: 'art_1', limit: 101 })).toEqual(['/limit'])
    expect(tool('list_artifact_versions').parse({ artifactId: 'art_1', limit: 100 }).ok).toBe(true)
  })

  it('names wrong types, unknown fields and missing fields', () => {
    expect(errorsOf('get_artifact', { artifactId: 7 })).toEqual(['/artifactId'])
    expect(errorsOf('get_artifact', { artifactId: 'art_1', extra: true })).toEqual(['/extra'])
    expect(errorsOf('update_artifact', { artifactId: 'art_1', content: 'x' })).toEqual(['/expectedLatestVersion'])
    expect(errorsOf('diff_artifact_versions', { artifactId: 'a', fromVersion: '1', toVersion: 2 })).toEqual(['/fromVersion'])
  })

  it('refuses ill-formed text (a lone surrogate, NUL) before the schema', () => {
    expect(errorsOf('get_artifact', { artifactId: 'art_\ud800' })).toEqual(['/artifactId'])
    expect(errorsOf('update_artifact', { artifactId: 'a', content: 'a\u0000b', expectedLatestVersion: 1 })).toEqual(['/content'])
  })

  it('maps fields onto the operation input, and picks the project resolution without a slug', () => {
    const content = tool('get_artifact_content').parse({ artifactId: 'art_1', versionNumber: 3, offset: 10 })
    expect(content.ok && content.value.call).toEqual({
      operation: 'getContent',
      input: { params: { artifactId: 'art_1' }, query: { version: 3 }, body: undefined },
    })
    const access = tool('set_artifact_access').parse({ artifactId: 'art_1', access: { publicView: true } })
    expect(access.ok && access.value.call.input).toEqual({ params: { artifactId: 'art_1' }, query: {}, body: { publicView: true } })
    const project = tool('resolve_path').parse({ ownerUsername: 'ana', projectSlug: 'notes' })
    expect(project.ok && project.value.call.operation).toBe('resolveProjectPath')
    const artifact = tool('resolve_path').parse({ ownerUsername: 'ana', projectSlug: 'notes', slug: 'hello' })
    expect(artifact.ok && artifact.value.call).toEqual({
      operation: 'resolveArtifactPath',
      input: { params: { owner: 'ana', projectSlug: 'notes', slug: 'hello' }, query: {}, body: undefined },
    })
    const listed = tool('list_project_artifacts').parse({ ownerUsername: 'ana', projectSlug: 'notes', limit: 10, cursor: 'c' })
    expect(listed.ok && listed.value.call).toEqual({
      operation: 'listProjectArtifacts',
      input: { params: { owner: 'ana', projectSlug: 'notes' }, query: { limit: 10, cursor: 'c' }, body: undefined },
    })
    expect(errorsOf('list_project_artifacts', { ownerUsername: 'ana' })).toEqual(['/projectSlug'])
    expect(errorsOf('list_project_artifacts', { ownerUsername: 'ana', projectSlug: 'notes', limit: 101 })).toEqual(['/limit'])
    expect(tool('list_project_artifacts').annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true })
    const create = tool('create_share_link').parse({ artifactId: 'art_1', idempotencyKey: 'k-1' })
    expect(create.ok && create.value.call.idempotencyKey).toBe('k-1')
  })
})
