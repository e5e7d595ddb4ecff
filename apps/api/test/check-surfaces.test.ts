/**
 * check-surfaces: every row of the operation table reaches every surface, and agrees with it.
 *
 * For each operation id: a Fastify route with its method and path on the built API, the OpenAPI
 * operation with that id at that path and method, a client method (`client.ops.<id>`) that sends
 * exactly that request, and, for each surface made of entry points (CLI commands, MCP tools), at least one entry calling it or an explicit `hidden` entry with its
 * reason, never both, and nothing declared for an operation the table no longer has. The web
 * app's pages and forms are such a surface too: what they run is read from their source (each
 * `operate(runtime, request, '<operation>', …)` and each use-case of core named like an operation),
 * what they leave out from `hiddenOperations` of @quire/site. Every failure is one line naming the
 * operation and the surface.
 *
 * Adding a surface of entry points is one more row of `declaredSurfaces`: its entries (name,
 * operation, where its inputs go) and its `hidden` record.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { commands, hiddenOf, operationCommands } from '@quire/cli'
import { createClient } from '@quire/client'
import { type OperationSpec, operations } from '@quire/core'
import { hiddenOperations as mcpHidden, tools } from '@quire/mcp'
import { hiddenOperations as webHidden } from '@quire/site'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { engine, startTestApi, type TestApi } from './helper.ts'

type Table = Readonly<Record<string, OperationSpec>>

/** One entry point of a surface (a CLI command, an MCP tool) and the operation it calls. */
interface Entry {
  /** As a failure names it: `quire artifact get`. */
  readonly name: string
  readonly operation: string
  /** Where its inputs go in the operation's input (`params.artifactId`, `query.limit`, `body.name`, `body`); null when it builds the input itself. */
  readonly inputs: readonly string[] | null
  /** It only reads: must match the operation's `hints.readOnly`. */
  readonly readOnly: boolean
}

/** A surface that declares which operation each of its entry points calls, and which it leaves out on purpose. */
interface DeclaredSurface {
  /** As a failure names it: `CLI command`. */
  readonly name: string
  readonly entries: readonly Entry[]
  /** Operation id → the one-line reason the surface has no entry for it. */
  readonly hidden: Readonly<Record<string, string | undefined>>
}

/** The CLI's commands: each runs its operation, and with its variant's flag that one (`artifact list --project`). */
const cliSurface: DeclaredSurface = {
  name: 'CLI command',
  entries: commands.flatMap((c) => {
    if (c.operation === null) return []
    const inputs = c.handler ? null : c.options.flatMap((o) => (o.to ? [o.to] : []))
    const entry = { name: `quire ${c.path.join(' ')}`, operation: c.operation, inputs, readOnly: !c.mutates }
    if (!c.variant) return [entry]
    // The variant's flag names a project: its owner and slug are the variant's path parameters.
    const project = c.options.some((o) => o.project && o.name === c.variant?.flag) ? ['params.owner', 'params.projectSlug'] : []
    return [
      entry,
      { ...entry, name: `${entry.name} --${c.variant.flag}`, operation: c.variant.operation, inputs: inputs && [...project, ...inputs] },
    ]
  }),
  hidden: hiddenOf(operationCommands),
}

/** The MCP tools: each runs its operation (`resolve_path` one of two), its fields mapped onto the operation's input. */
const mcpSurface: DeclaredSurface = {
  name: 'MCP tool',
  entries: tools.flatMap((tool) => {
    const sources = Object.values({ ...tool.fields, ...('extensions' in tool ? tool.extensions : {}) }).filter(
      (source): source is string => typeof source === 'string' && source !== 'idempotencyKey',
    )
    const entry = (operation: string, inputs: string[]) => ({
      name: tool.name,
      operation,
      inputs,
      readOnly: operations[operation as keyof typeof operations].hints.readOnly,
    })
    if (!('without' in tool)) return [entry(tool.operation, sources)]
    const dropped = tool.fields[tool.without.field as keyof typeof tool.fields] as string
    return [
      entry(tool.operation, sources),
      entry(
        tool.without.operation,
        sources.filter((s) => s !== dropped),
      ),
    ]
  }),
  hidden: mcpHidden,
}

/** Every source file of a folder, by path relative to it. */
function sourcesIn(dir: string): Map<string, string> {
  const found = new Map<string, string>()
  for (const entry of readdirSync(dir, { recursive: true, encoding: 'utf8' }))
    if (entry.endsWith('.ts')) found.set(entry, readFileSync(join(dir, entry), 'utf8'))
  return found
}

/**
 * The operations the web app's pages and forms run, read from their source: `operate(runtime,
 * request, '<id>'`, the one way a page runs an operation (its binding, through the request's
 * shared loads). Entries are named by file; inputs are the page's own.
 */
function webEntries(sources: ReadonlyMap<string, string>): Entry[] {
  const ids = new Set(Object.keys(operations))
  const entries: Entry[] = []
  for (const [file, text] of sources) {
    const run = new Set<string>()
    for (const match of text.matchAll(/\boperate\(\s*[\w.]+,\s*\w+,\s*'(\w+)'/g)) run.add(match[1] as string)
    for (const operation of run)
      entries.push({
        name: `packages/site/src/${file}`,
        operation,
        inputs: null,
        readOnly: ids.has(operation) ? operations[operation as keyof typeof operations].hints.readOnly : true,
      })
  }
  return entries
}

/**
 * Pages that run an operation's use-case around its binding: a function imported from @quire/core
 * under an operation's name (`getContent`, `listVersions`) and called. Such a page would skip the
 * input check and could drift from REST's authorization, audit and caching; each is named.
 */
function aroundBindings(sources: ReadonlyMap<string, string>): string[] {
  const ids = new Set(Object.keys(operations))
  const found: string[] = []
  for (const [file, text] of sources)
    for (const match of text.matchAll(/import (type )?\{([^}]*)\} from '@quire\/core'/g))
      for (const name of match[1] ? [] : (match[2] as string).split(',').map((n) => n.trim()))
        if (!name.startsWith('type ') && ids.has(name) && new RegExp(`\\b${name}\\(`).test(text))
          found.push(`packages/site/src/${file} calls ${name}() of @quire/core: run it through operate()`)
  return found
}

const webSources = sourcesIn(join(import.meta.dirname, '../../../packages/site/src'))

/** The web app's pages and forms: each operation they run, and those they leave out on purpose. */
const webSurface: DeclaredSurface = { name: 'web page', entries: webEntries(webSources), hidden: webHidden }

/** The surfaces of entry points. */
const declaredSurfaces: readonly DeclaredSurface[] = [cliSurface, mcpSurface, webSurface]

/** What the checks look at: the built app, its OpenAPI document, the typed client's methods. */
interface Observed {
  readonly app: FastifyInstance
  readonly openapi: { paths: Record<string, Record<string, { operationId?: unknown }>> }
  readonly clientMethods: Readonly<Record<string, unknown>>
  /** Calls a client method and returns the one request it sent. */
  readonly sentBy: (method: (input: object) => Promise<unknown>, input: object) => Promise<{ method: string; url: URL }>
}

const openapiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')
const placeholder = (param: string) => `p-${param}`
const propertiesOf = (schema: unknown): Record<string, unknown> | null =>
  typeof schema === 'object' && schema !== null && 'properties' in schema
    ? (schema as { properties: Record<string, unknown> }).properties
    : null
const requiredOf = (schema: unknown): readonly string[] =>
  typeof schema === 'object' && schema !== null && 'required' in schema ? (schema as { required: string[] }).required : []

function routeProblems(table: Table, observed: Observed): string[] {
  return Object.entries(table).flatMap(([id, op]) =>
    observed.app.hasRoute({ method: op.method, url: op.path }) ? [] : [`${id}: route: no Fastify route ${op.method} ${op.path}`],
  )
}

function openapiProblems(table: Table, observed: Observed): string[] {
  const found = new Map<string, { method: string; path: string }[]>()
  for (const [path, item] of Object.entries(observed.openapi.paths))
    for (const [method, op] of Object.entries(item))
      if (typeof op.operationId === 'string') found.set(op.operationId, [...(found.get(op.operationId) ?? []), { method, path }])
  const problems: string[] = []
  for (const [id, op] of Object.entries(table)) {
    const at = found.get(id) ?? []
    const want = { method: op.method.toLowerCase(), path: openapiPath(op.path) }
    if (at.length === 0) problems.push(`${id}: OpenAPI: no operation with this operationId (want ${op.method} ${want.path})`)
    else if (at.length > 1 || at[0]?.method !== want.method || at[0]?.path !== want.path)
      problems.push(
        `${id}: OpenAPI: at ${at.map((a) => `${a.method.toUpperCase()} ${a.path}`).join(', ')}, the table says ${op.method} ${want.path}`,
      )
  }
  for (const id of found.keys())
    if (!Object.hasOwn(table, id)) problems.push(`${id}: OpenAPI: documented, but the operation table has no such operation`)
  return problems
}

async function clientProblems(table: Table, observed: Observed): Promise<string[]> {
  const problems: string[] = []
  for (const [id, op] of Object.entries(table)) {
    const method = Object.hasOwn(observed.clientMethods, id) ? observed.clientMethods[id] : undefined
    if (typeof method !== 'function') {
      problems.push(`${id}: client: no method client.ops.${id}`)
      continue
    }
    const names = Object.keys(propertiesOf(op.params) ?? {})
    const params = Object.fromEntries(names.map((name) => [name, placeholder(name)]))
    const sent = await observed.sentBy(method as (input: object) => Promise<unknown>, { params, ...(op.body ? { body: {} } : {}) })
    const want = op.path.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => placeholder(name))
    if (sent.method !== op.method || sent.url.pathname !== want) {
      problems.push(`${id}: client: client.ops.${id} sends ${sent.method} ${sent.url.pathname}, the table says ${op.method} ${want}`)
      continue
    }
    // And that request lands on a route binding the same parameters (no other route shadows it).
    const route = observed.app.findRoute({ method: sent.method as 'GET', url: sent.url.pathname })
    if (!route) problems.push(`${id}: client: no route answers ${sent.method} ${sent.url.pathname}`)
    else if (JSON.stringify(Object.entries(route.params ?? {}).sort()) !== JSON.stringify(Object.entries(params).sort()))
      problems.push(`${id}: client: ${sent.method} ${sent.url.pathname} reaches a route with params ${JSON.stringify(route.params)}`)
  }
  return problems
}

/** Where `target` (`params.x`, `query.x`, `body.x`, `body`) would go in the operation's input, or why it cannot. */
function targetProblem(op: OperationSpec, target: string): string | null {
  if (target === 'body') return op.body ? null : 'the operation takes no body'
  const [part, field] = target.split('.') as ['params' | 'query' | 'body', string]
  const schema = part === 'params' ? op.params : part === 'query' ? op.query : op.body
  if (!schema) return `the operation has no ${part}`
  const properties = propertiesOf(schema)
  return properties === null || Object.hasOwn(properties, field) ? null : `the operation's ${part} has no field ${field}`
}

function declaredProblems(table: Table, surface: DeclaredSurface): string[] {
  const problems: string[] = []
  const by = new Map<string, Entry[]>()
  for (const entry of surface.entries) by.set(entry.operation, [...(by.get(entry.operation) ?? []), entry])

  for (const [id, op] of Object.entries(table)) {
    const entries = by.get(id) ?? []
    const reason = Object.hasOwn(surface.hidden, id) ? surface.hidden[id] : undefined
    if (entries.length === 0 && reason === undefined)
      problems.push(`${id}: ${surface.name}: none calls it, and it is not listed as hidden (with a reason)`)
    if (entries.length > 0 && reason !== undefined)
      problems.push(`${id}: ${surface.name}: listed as hidden ("${reason}") yet ${entries.map((e) => e.name).join(', ')} calls it`)
    if (reason !== undefined && reason.trim() === '') problems.push(`${id}: ${surface.name}: hidden without a reason`)

    for (const entry of entries) {
      if (entry.readOnly !== op.hints.readOnly)
        problems.push(
          `${id}: ${surface.name}: ${entry.name} ${entry.readOnly ? 'is read-only' : 'mutates'}, the operation ${op.hints.readOnly ? 'only reads' : 'writes'}`,
        )
      if (entry.inputs === null) continue
      for (const target of entry.inputs) {
        const problem = targetProblem(op, target)
        if (problem) problems.push(`${id}: ${surface.name}: ${entry.name} sends ${target}, but ${problem}`)
      }
      const required = [
        ...Object.keys(propertiesOf(op.params) ?? {}).map((name) => `params.${name}`),
        ...requiredOf(op.query).map((name) => `query.${name}`),
        ...(op.body && !op.bodyOptional && !entry.inputs.includes('body') ? requiredOf(op.body).map((name) => `body.${name}`) : []),
      ]
      if (op.body && !op.bodyOptional && !entry.inputs.some((t) => t === 'body' || t.startsWith('body.')))
        problems.push(`${id}: ${surface.name}: ${entry.name} sends no body, the operation requires one`)
      for (const target of required)
        if (!entry.inputs.includes(target)) problems.push(`${id}: ${surface.name}: ${entry.name} has no input for the required ${target}`)
    }
  }
  for (const [id, entries] of by)
    if (!Object.hasOwn(table, id))
      problems.push(
        `${id}: ${surface.name}: ${entries.map((e) => e.name).join(', ')} calls it, but the operation table has no such operation`,
      )
  for (const id of Object.keys(surface.hidden))
    if (!Object.hasOwn(table, id)) problems.push(`${id}: ${surface.name}: listed as hidden, but the operation table has no such operation`)
  return problems
}

async function allProblems(table: Table, observed: Observed, surfaces: readonly DeclaredSurface[]): Promise<string[]> {
  return [
    ...routeProblems(table, observed),
    ...openapiProblems(table, observed),
    ...(await clientProblems(table, observed)),
    ...surfaces.flatMap((surface) => declaredProblems(table, surface)),
  ]
}

let api: TestApi
let observed: Observed
beforeAll(async () => {
  api = await startTestApi()
  const openapi = await api.request('GET', '/openapi.json')
  if (openapi.statusCode !== 200) throw new Error(`GET /openapi.json: ${openapi.statusCode}`)
  // The client's requests are recorded, not sent: what is checked is which request each method makes.
  const sent: { method: string; url: URL }[] = []
  const client = createClient({
    baseUrl: 'https://api.quire.test',
    fetch: async (url, init) => {
      sent.push({ method: init.method ?? 'GET', url: new URL(url) })
      return new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } })
    },
  })
  observed = {
    app: api.app,
    openapi: openapi.json(),
    clientMethods: client.ops,
    async sentBy(method, input) {
      sent.length = 0
      await method(input)
      const [request] = sent
      if (!request || sent.length > 1) throw new Error(`the client method sent ${sent.length} requests, not one`)
      return request
    },
  }
})
afterAll(async () => {
  await api.close()
})

describe(`every operation reaches every surface (${engine})`, () => {
  it('has a Fastify route with its method and path', () => {
    expect(routeProblems(operations, observed)).toEqual([])
  })

  it('is in the OpenAPI document under its operationId, at its path and method', () => {
    expect(openapiProblems(operations, observed)).toEqual([])
  })

  it('has a client method that sends its request, which reaches its route', async () => {
    expect(await clientProblems(operations, observed)).toEqual([])
  })

  it.each(declaredSurfaces.map((s) => [s.name, s] as const))('has a %s calling it, or is hidden there with a reason', (_, surface) => {
    expect(declaredProblems(operations, surface)).toEqual([])
  })
})

describe('check-surfaces names what is missing', () => {
  const probe: OperationSpec = {
    method: 'GET',
    path: '/api/surface-probes/:probeId',
    summary: 'An operation only this test knows',
    tags: ['probe'],
    action: 'artifact.read',
    anonymous: false,
    params: Type.Object({ probeId: Type.String() }),
    success: { status: 200, schema: Type.Object({}) },
    errors: [],
    hints: { readOnly: true, destructive: false, idempotent: true },
  }

  /** The problems `found` adds to those of the real table and surfaces (so these cases hold whatever those are). */
  const added = async (found: readonly string[]) => {
    const baseline = new Set(await allProblems(operations, observed, declaredSurfaces))
    return found.filter((problem) => !baseline.has(problem))
  }

  it('an operation added to the table alone is missing from every surface, each named', async () => {
    expect(await added(await allProblems({ ...operations, surfaceProbe: probe }, observed, declaredSurfaces))).toEqual([
      'surfaceProbe: route: no Fastify route GET /api/surface-probes/:probeId',
      'surfaceProbe: OpenAPI: no operation with this operationId (want GET /api/surface-probes/{probeId})',
      'surfaceProbe: client: no method client.ops.surfaceProbe',
      ...declaredSurfaces.map((s) => `surfaceProbe: ${s.name}: none calls it, and it is not listed as hidden (with a reason)`),
    ])
    expect(declaredSurfaces.map((s) => s.name)).toEqual(['CLI command', 'MCP tool', 'web page'])
  })

  it('reads what a web page runs from its source: operate() only; a use-case called around its binding is named', () => {
    const sources = new Map([
      ['routes/probe.ts', "const r = await operate(runtime, request, 'revokeAgent', { params })\n"],
      [
        'routes/read.ts',
        "import { getContent, type ContentRead, listVersions } from '@quire/core'\nawait getContent(deps, caller, input)\n",
      ],
    ])
    expect(webEntries(sources).map((e) => `${e.name} ${e.operation}`)).toEqual(['packages/site/src/routes/probe.ts revokeAgent'])
    expect(aroundBindings(sources)).toEqual([
      'packages/site/src/routes/read.ts calls getContent() of @quire/core: run it through operate()',
    ])
    const hidden: DeclaredSurface = { name: 'web page', entries: webEntries(sources), hidden: { revokeAgent: 'no reason to' } }
    expect(declaredProblems({ revokeAgent: operations.revokeAgent, getContent: operations.getContent }, hidden)).toEqual([
      'revokeAgent: web page: listed as hidden ("no reason to") yet packages/site/src/routes/probe.ts calls it',
      'getContent: web page: none calls it, and it is not listed as hidden (with a reason)',
    ])
  })

  it('every web page runs an operation through its binding, none around it', () => {
    expect(aroundBindings(webSources)).toEqual([])
  })

  it('a row that moved without its surfaces disagrees with each of them, each named', async () => {
    const moved = { ...operations.getArtifact, method: 'POST', path: '/api/items/:artifactId' } as const
    expect(await added(await allProblems({ ...operations, getArtifact: moved }, observed, declaredSurfaces))).toEqual([
      'getArtifact: route: no Fastify route POST /api/items/:artifactId',
      'getArtifact: OpenAPI: at GET /api/artifacts/{artifactId}, the table says POST /api/items/{artifactId}',
      'getArtifact: client: client.ops.getArtifact sends GET /api/artifacts/p-artifactId, the table says POST /api/items/p-artifactId',
    ])
  })

  it('a surface declaration that leaves out, doubles, misroutes or outlives an operation', async () => {
    const getArtifact = cliSurface.entries.find((e) => e.operation === 'getArtifact')
    if (!getArtifact) throw new Error('no command calls getArtifact')
    const broken: DeclaredSurface = {
      name: 'CLI command',
      entries: [
        ...cliSurface.entries.filter((e) => e.operation !== 'getArtifact' && e.operation !== 'listVersions'),
        { ...getArtifact, operation: 'getArtifactAccess', name: 'quire broken', inputs: ['params.artifactId', 'params.nope'] },
        { ...getArtifact, operation: 'listVersions', name: 'quire versions', inputs: [] },
        { ...getArtifact, operation: 'deleteArtifact', name: 'quire peek' },
        { ...getArtifact, operation: 'goneOperation', name: 'quire gone' },
      ],
      hidden: { ...cliSurface.hidden, getArtifactAccess: 'both', alsoGone: 'left over' },
    }
    expect(await added(declaredProblems(operations, broken))).toEqual([
      'getArtifact: CLI command: none calls it, and it is not listed as hidden (with a reason)',
      'deleteArtifact: CLI command: quire peek is read-only, the operation writes',
      'listVersions: CLI command: quire versions has no input for the required params.artifactId',
      'getArtifactAccess: CLI command: listed as hidden ("both") yet quire artifact access get, quire broken calls it',
      "getArtifactAccess: CLI command: quire broken sends params.nope, but the operation's params has no field nope",
      'goneOperation: CLI command: quire gone calls it, but the operation table has no such operation',
      'alsoGone: CLI command: listed as hidden, but the operation table has no such operation',
    ])
  })
})
