import { type OperationSpec, operationIds, operations, scopesOf } from '@quire/core'
import { type SchemaRoot, undescribedFields } from '@quire/testing/schema-descriptions'
import { Validator } from '@seriousme/openapi-schema-validator'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { engine, seedArtifact, startTestApi, type TestApi } from './helper.ts'

let api: TestApi
// biome-ignore lint/suspicious/noExplicitAny: the document is read loosely, checked by expectations
let doc: any
let served: string
beforeAll(async () => {
  api = await startTestApi()
  const res = await api.request('GET', '/openapi.json')
  expect(res.statusCode).toBe(200)
  served = res.body
  doc = res.json()
})
afterAll(async () => {
  await api.close()
})

type Node = Record<string, unknown>
const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value)

/** Every `$ref` in a part of the document. */
function refsIn(node: unknown, found: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) refsIn(item, found)
  else if (isNode(node)) {
    if (typeof node.$ref === 'string') found.push(node.$ref)
    for (const value of Object.values(node)) refsIn(value, found)
  }
  return found
}

/** Every object schema (one with `properties`) in a part of the document, with where it is. */
function objectSchemasIn(node: unknown, at: string, found: { at: string; schema: Node }[] = []): { at: string; schema: Node }[] {
  if (Array.isArray(node)) {
    for (const [i, item] of node.entries()) objectSchemasIn(item, `${at}/${i}`, found)
  } else if (isNode(node)) {
    if (isNode(node.properties)) found.push({ at, schema: node })
    for (const [key, value] of Object.entries(node)) objectSchemasIn(value, `${at}/${key}`, found)
  }
  return found
}

/** What tells object types apart here: their fields and which are required. */
const shapeOf = (schema: Node) =>
  `${Object.keys(schema.properties as Node).sort()} required ${[...((schema.required as string[] | undefined) ?? [])].sort()}`

/** The operation object of an operation id. */
function operation(id: string): Node {
  const spec = operations[id as keyof typeof operations]
  return doc.paths[spec.path.replace(/:([A-Za-z]+)/g, '{$1}')][spec.method.toLowerCase()]
}

describe(`the OpenAPI document names its shared schemas (${engine})`, () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator()
    const result = await validator.validate(structuredClone(doc))
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 2)).toEqual([])
    expect(result.valid).toBe(true)
    expect(validator.version).toBe('3.1')
  })

  it('names the resources, their pages, the bodies and the problem under components', () => {
    const names = Object.keys(doc.components.schemas)
    for (const name of [
      'Artifact',
      'ArtifactPage',
      'Version',
      'VersionPage',
      'VersionContent',
      'VersionDiff',
      'Project',
      'ProjectPage',
      'Workspace',
      'WorkspacePage',
      'Member',
      'Invitation',
      'ApiKey',
      'CreatedApiKey',
      'ShareLink',
      'CreatedShareLink',
      'AuditEvent',
      'AuditEventPage',
      'ActorRef',
      'Visibility',
      'Problem',
      'FieldError',
      'CreateArtifactBody',
      'AppendVersionBody',
    ])
      expect(names, name).toContain(name)
    expect(names).toEqual([...names].sort())
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' })
  })

  it('refers to them from the operations, and between them', () => {
    const schemaOf = (response: Node) => (response.content as Record<string, { schema: Node }>)['application/json']?.schema
    expect(schemaOf((operation('getArtifact').responses as Node)['200'] as Node)).toEqual({ $ref: '#/components/schemas/ArtifactRead' })
    expect(schemaOf((operation('listVersions').responses as Node)['200'] as Node)).toEqual({ $ref: '#/components/schemas/VersionPage' })
    expect(schemaOf((operation('createArtifact').requestBody as Node) ?? {})).toEqual({ $ref: '#/components/schemas/CreateArtifactBody' })
    expect(doc.components.schemas.VersionPage.properties.items.items).toEqual({ $ref: '#/components/schemas/Version' })
    expect(doc.components.schemas.Problem.properties.errors.items).toEqual({ $ref: '#/components/schemas/FieldError' })
    // A use that describes itself keeps its description beside the reference.
    expect(doc.components.schemas.Artifact.properties.createdBy).toEqual({
      $ref: '#/components/schemas/ActorRef',
      description: 'Who created the artifact.',
    })
    // Every error status of every operation is the one problem details response.
    expect(doc.components.responses.Problem.content['application/problem+json'].schema.$ref).toBe('#/components/schemas/Problem')
    for (const id of operationIds) {
      const responses = operation(id).responses as Record<string, Node>
      for (const [status, response] of Object.entries(responses))
        if (Number(status) >= 400) expect(response, `${id} ${status}`).toEqual({ $ref: '#/components/responses/Problem' })
    }
    // Parameters are still listed one by one, with their descriptions.
    expect(operation('getArtifact').parameters).toEqual([
      expect.objectContaining({ in: 'path', name: 'artifactId', required: true, description: 'Artifact identifier (`art_…`).' }),
    ])
  })

  it('every reference resolves, and every named schema is referred to', () => {
    const refs = refsIn(doc)
    expect(refs.length).toBeGreaterThan(300)
    for (const ref of new Set(refs)) {
      const [, section, name] = ref.match(/^#\/components\/(schemas|responses)\/([A-Za-z0-9]+)$/) ?? []
      expect(section && name && doc.components[section][name], ref).toBeDefined()
    }
    const referred = new Set(refs)
    for (const name of Object.keys(doc.components.schemas)) expect(referred, name).toContain(`#/components/schemas/${name}`)
  })

  it('inlines no named schema anywhere, nor any object type twice', () => {
    const named = new Map<string, string>()
    for (const [name, schema] of Object.entries(doc.components.schemas as Record<string, Node>)) named.set(shapeOf(schema), name)
    expect(named.size).toBeGreaterThan(30)
    const inline = [
      ...objectSchemasIn(doc.paths, '#/paths'),
      // Inside a component, its own root is the named schema: only what it holds counts.
      ...Object.entries(doc.components.schemas as Record<string, Node>).flatMap(([name, schema]) =>
        objectSchemasIn(schema, `#/components/schemas/${name}`).filter((s) => s.schema !== schema),
      ),
    ]
    const copies = inline.filter(({ schema }) => named.has(shapeOf(schema))).map(({ at, schema }) => `${at}: ${named.get(shapeOf(schema))}`)
    expect(copies).toEqual([])
    // An object type used in more than one place is worth a name (export it from the contract).
    const places = Map.groupBy(inline, ({ schema }) => shapeOf(schema))
    const repeated = [...places.values()].filter((uses) => uses.length > 1).map((uses) => uses.map((u) => u.at).join(' and '))
    expect(repeated).toEqual([])
  })

  it('is a fraction of the inlined document', async () => {
    const validator = new Validator()
    await validator.validate(structuredClone(doc))
    // Every reference replaced by what it names: the document as it was before components.
    const inlined = JSON.stringify(validator.resolveRefs())
    const bytes = Buffer.byteLength(served)
    const inlinedBytes = Buffer.byteLength(inlined)
    console.log(`/openapi.json: ${bytes} bytes with components; ${inlinedBytes} bytes with every reference inlined`)
    expect(bytes).toBeLessThan(inlinedBytes / 3)
  })
})

/** What a local reference (`#/components/schemas/Name`) points at in the document. */
function resolveRef(ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined
  let node: unknown = doc
  for (const key of ref.slice(2).split('/')) node = isNode(node) ? node[key.replaceAll('~1', '/').replaceAll('~0', '~')] : undefined
  return node
}

/** The schemas of a request body or response (itself maybe a reference), one per media type. */
function contentSchemas(holder: unknown, at: string): SchemaRoot[] {
  const resolved = isNode(holder) && typeof holder.$ref === 'string' ? resolveRef(holder.$ref) : holder
  const content = isNode(resolved) && isNode(resolved.content) ? resolved.content : {}
  return Object.entries(content).map(([type, media]) => ({
    at: `${at}/content/${type.replace('/', '~1')}/schema #`,
    schema: (media as Node).schema,
  }))
}

describe(`the OpenAPI document describes every field (${engine})`, () => {
  it('has a description on every parameter, and on every field of every schema at any depth, the components it refers to included', () => {
    const roots: SchemaRoot[] = Object.entries(doc.components.schemas as Record<string, Node>).map(([name, schema]) => ({
      at: `#/components/schemas/${name}`,
      schema,
    }))
    const undescribedParameters: string[] = []
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Node>>))
      for (const [method, op] of Object.entries(item)) {
        const at = `${method.toUpperCase()} ${path}`
        for (const parameter of (op.parameters as Node[] | undefined) ?? []) {
          const where = `${at} ${parameter.in} parameter ${parameter.name}`
          const description = parameter.description ?? (parameter.schema as Node | undefined)?.description
          if (typeof description !== 'string' || description.trim() === '') undescribedParameters.push(where)
          roots.push({ at: `${where} #`, schema: parameter.schema })
        }
        roots.push(...contentSchemas(op.requestBody, `${at} requestBody`))
        for (const [status, response] of Object.entries((op.responses as Node | undefined) ?? {}))
          roots.push(...contentSchemas(response, `${at} responses/${status}`))
      }
    const missing = [...undescribedParameters, ...undescribedFields(roots, resolveRef)]
    expect(missing, `without a description:\n${missing.join('\n')}`).toEqual([])
    // It read every operation's answer.
    for (const id of operationIds) {
      const op = operations[id]
      const answer = `${op.method} ${op.path.replace(/:([A-Za-z]+)/g, '{$1}')} responses/${op.success.status}/`
      expect(
        roots.some((root) => root.at.startsWith(answer)),
        id,
      ).toBe(true)
    }
  })
})

describe(`the OpenAPI document: catch-up and dry runs (${engine})`, () => {
  it('documents catch-up with its required since, and a dryRun query with its own 200 on each write that has one', () => {
    const changes = doc.paths['/api/artifacts/{artifactId}/changes'].get
    expect(changes.operationId).toBe('getArtifactChanges')
    expect(changes.parameters).toContainEqual(expect.objectContaining({ name: 'since', in: 'query', required: true }))
    expect(refsIn(changes.responses['200'])).toContain('#/components/schemas/ArtifactChanges')
    const writes = Object.entries(operations).filter(([, op]) => 'dryRun' in op)
    expect(writes.map(([id]) => id).sort()).toEqual(['appendVersion', 'createArtifact', 'restoreVersion', 'updateArtifactAccess'])
    const previews: Record<string, string> = {
      appendVersion: 'VersionDryRun',
      createArtifact: 'ArtifactDryRun',
      restoreVersion: 'VersionDryRun',
      updateArtifactAccess: 'AccessDryRun',
    }
    for (const [id, op] of writes) {
      const path = op.path.replace(/:([A-Za-z]+)/g, '{$1}')
      const entry = doc.paths[path][op.method.toLowerCase()]
      expect(entry.operationId).toBe(id)
      expect(entry.parameters, id).toContainEqual(expect.objectContaining({ name: 'dryRun', in: 'query', required: false }))
      expect(refsIn(entry.responses['200']), id).toContain(`#/components/schemas/${previews[id]}`)
    }
  })
})

describe(`the OpenAPI document says which scopes each operation needs (${engine})`, () => {
  it("lists in each operation's security every scope its row needs, its answer's and effect's included", () => {
    for (const id of operationIds) {
      const op: OperationSpec = operations[id]
      const security = operation(id).security as Record<string, string[]>[] | undefined
      if (op.action === null) {
        expect(security ?? [], id).toEqual([])
        continue
      }
      const bearer = { bearer: scopesOf(op) }
      expect(security, id).toEqual(op.anonymous ? [{}, bearer] : [bearer])
    }
    expect(operation('updateArtifactAccess').security).toEqual([{ bearer: ['artifacts:access:write', 'artifacts:access:read'] }])
    expect(operation('createShareLink').security).toEqual([{ bearer: ['artifacts:share', 'artifacts:read'] }])
    // What depends on the body is said in words: an editor link also needs artifacts:update.
    expect(operation('createShareLink').description).toContain('`artifacts:update`')
  })
})

describe(`the OpenAPI document says what is sent (${engine})`, () => {
  /** A response object, the shared one it refers to resolved. */
  const resolved = (response: Node): Node =>
    typeof response.$ref === 'string' ? doc.components.responses[response.$ref.replace('#/components/responses/', '')] : response

  it('documents every error as application/problem+json and every success as application/json', () => {
    for (const id of operationIds) {
      const responses = Object.entries(operation(id).responses as Record<string, Node>)
      expect(responses.length, id).toBeGreaterThan(1)
      for (const [status, response] of responses) {
        const mediaTypes = Object.keys((resolved(response).content as Node | undefined) ?? {})
        const sent = Number(status) >= 400 ? ['application/problem+json'] : status === '304' ? [] : ['application/json']
        expect(mediaTypes, `${id} ${status}`).toEqual(sent)
      }
    }
    expect(doc.components.responses.Problem.content['application/problem+json'].schema).toEqual({ $ref: '#/components/schemas/Problem' })
  })

  it('the media types documented are the ones sent', async () => {
    const success = await api.request('GET', '/health')
    expect(success.headers['content-type']).toMatch(/^application\/json(;|$)/)
    const failure = await api.request('GET', '/api/profile/me')
    expect(failure.statusCode).toBe(401)
    expect(failure.headers['content-type']).toMatch(/^application\/problem\+json(;|$)/)
  })

  it('documents what the edge answers before an operation runs: 503 while draining, 413 and 415 for a body it cannot read', async () => {
    for (const id of operationIds) {
      const responses = Object.keys(operation(id).responses as Node)
      const op: OperationSpec = operations[id]
      expect(responses, id).toContain('503')
      if (op.body) expect(responses, id).toEqual(expect.arrayContaining(['413', '415']))
    }
    const notJson = await api.request('POST', '/api/workspaces', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'slug=x',
    })
    expect(notJson.statusCode).toBe(415)
  })

  it('marks a request body required exactly where the operation cannot do without one', () => {
    for (const id of operationIds) {
      const op: OperationSpec = operations[id]
      const body = operation(id).requestBody as Node | undefined
      if (!op.body) expect(body, id).toBeUndefined()
      else expect(body?.required, id).toBe(!op.bodyOptional)
    }
    expect(operation('restoreVersion').requestBody).toMatchObject({ required: false })
    expect(operation('createShareLink').requestBody).toMatchObject({ required: false })
    expect(operation('appendVersion').requestBody).toMatchObject({ required: true })
    // The marker that carried it there is not left in the document.
    expect(JSON.stringify(doc)).not.toContain('x-quire-')
  })

  it('describes every response in its own words, not the generator\'s "Default Response"', () => {
    for (const [path, methods] of Object.entries(
      doc.paths as Record<string, Record<string, { responses: Record<string, { description?: string }> }>>,
    ))
      for (const [method, operation] of Object.entries(methods))
        for (const [status, given] of Object.entries(operation.responses)) {
          const ref = (given as { $ref?: string }).$ref
          const response = ref ? doc.components.responses[ref.split('/').pop() as string] : given
          expect(response?.description, `${method} ${path} ${status}`).toBeTruthy()
          expect(response?.description, `${method} ${path} ${status}`).not.toBe('Default Response')
        }
  })

  it('answers a method the document does not list at a documented path with 405 and Allow (a path with nothing there stays 404)', async () => {
    const cases: [string, string, string][] = [
      ['DELETE', '/health', 'GET, HEAD'],
      ['PUT', '/api/profile/me', 'GET, HEAD, PATCH'],
      ['PATCH', '/api/artifacts/art_00000000000000000000000000', 'DELETE, GET, HEAD'],
      ['GET', '/api/share-links/shl_00000000000000000000000000/revoke', 'POST'],
    ]
    for (const [method, path, allow] of cases) {
      const res = await api.request(method, path)
      expect(res.statusCode, `${method} ${path}: ${res.body}`).toBe(405)
      expect(res.headers.allow).toBe(allow)
      expect(res.headers['content-type']).toContain('application/problem+json')
      expect(res.json()).toMatchObject({ code: 'method_not_allowed', status: 405 })
      // Every method Allow names is one the document lists at that path.
      const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>).find(([template]) =>
        new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path),
      )?.[1]
      for (const listed of allow.split(', ').filter((m) => m !== 'HEAD')) expect(documented, path).toHaveProperty(listed.toLowerCase())
    }
    expect((await api.request('GET', '/api/nothing-here')).statusCode).toBe(404)
  })

  it('and the operations behave as documented: an optional body may be left out, a required one may not', async () => {
    const { owner, artifact } = await seedArtifact(api)
    const a = `/api/artifacts/${artifact.id}`
    const link = await api.request('POST', `${a}/share-links`, { token: owner.token })
    expect(link.statusCode, link.body).toBe(201)
    expect(link.json()).toMatchObject({ role: 'viewer' })
    const restored = await api.request('POST', `${a}/versions/1/restore`, { token: owner.token })
    expect(restored.statusCode, restored.body).toBe(201)
    const append = await api.request('POST', `${a}/versions`, { token: owner.token })
    expect(append.statusCode).toBe(400)
    expect(append.json()).toMatchObject({ code: 'validation_failed' })
    // A JSON `null` is a body, and not the object the schema asks for: refused, not read as left out.
    for (const path of [`${a}/share-links`, `${a}/versions/1/restore`]) {
      const nulled = await api.request('POST', path, {
        token: owner.token,
        body: 'null',
        headers: { 'content-type': 'application/json' },
      })
      expect(nulled.statusCode, `${path}: ${nulled.body}`).toBe(400)
      expect(nulled.json()).toMatchObject({ code: 'validation_failed' })
    }
  })
})
