import * as contract from '@quire/core/contract'
import { schemaMapKeywords as contractSchemaMapKeywords, subschemaKeywords as contractSubschemaKeywords } from '@quire/core/contract'

/**
 * Named schemas for the OpenAPI document: the contract's object schemas appear once under
 * `components.schemas` and every operation refers to them with `$ref`, instead of each route
 * inlining its own copy (the inlined document weighed 370 KB, most of it Problem repeated per
 * status per operation).
 *
 * How a schema gets its name: every object schema the contract exports (`Artifact`, `Problem`,
 * `ActorRef`, …) is named by its export name, and the page of each (`Page(Artifact)`, one
 * object per item schema) by the item's name and `Page` (`ArtifactPage`). Nothing in the
 * contract or the route schemas is marked; the names follow from the code.
 *
 * How a use is recognised: by identity of the schema's `properties` object, not by comparing
 * JSON. Spreading a schema to annotate one use (`{ ...ActorRef, description: 'Who created it.' }`,
 * `Type.Optional(ActorRef)`) keeps that object, so such a use is still the named type with
 * different annotations, while a schema that merely looks alike (a different type with the same
 * fields) is not taken for it.
 *
 * How it reaches the document, without touching validation: the route schemas stay as they are
 * (inline, no `$id`, so Ajv compiles each route on its own and never meets a duplicate id). The
 * components are registered once with `app.addSchema` under their names, which Fastify keeps as
 * shared schemas but our validator compiler never reads, and @fastify/swagger turns into
 * `components.schemas`. Only the copy of a route schema that @fastify/swagger documents (its
 * `transform` hook) has each named use replaced by `{ $ref: 'Name#' }`, which @fastify/swagger
 * resolves to `#/components/schemas/Name`. A use with annotations of its own goes through as
 * `{ allOf: [{ $ref }], description }`, since @fastify/swagger drops whatever stands beside a
 * `$ref`. The finished document is then tidied (`finishDocument`): those wrappers become `$ref`
 * with the annotations beside it (OpenAPI 3.1 allows it), the error answer shared by every
 * operation is named once under `components.responses`, and the named schemas no operation uses
 * are left out.
 *
 * A contract schema that should be a component only needs to be exported by `@quire/core/contract`;
 * test/openapi.test.ts fails when an inline copy of a named schema is left in the document.
 */

type Schema = Record<string, unknown>

const subschemaKeywords = new Set(contractSubschemaKeywords)
const schemaMapKeywords = new Set(contractSchemaMapKeywords)
/** Keywords that describe a use without changing what it accepts: a use may differ from its named schema in these. */
const annotationKeywords = new Set(['title', 'description', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly', '$comment'])

/**
 * Set on a route schema whose body may be left out. @fastify/swagger documents every body as
 * required (Fastify needs one for a body schema; ours are made `{}` before validation when
 * omitted): `finishDocument` says `required: false` for the operations marked so, and drops the mark.
 */
export const optionalBody = 'x-quire-optional-body'

/** Set on a `{ allOf: [{ $ref }], ...annotations }` wrapper that `finishDocument` writes as `{ $ref, ...annotations }`. */
const annotatedRef = 'x-quire-annotated-ref'

const componentsPrefix = '#/components/schemas/'

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function isObjectSchema(value: unknown): value is Schema & { properties: Schema } {
  return isSchema(value) && value.type === 'object' && isSchema(value.properties)
}

/** The same schema with `map` applied to each direct subschema (data such as `enum` or `default` is copied as is). */
function mapSubschemas(schema: Schema, map: (subschema: Schema) => unknown): Schema {
  const copy: Schema = {}
  for (const [key, value] of Object.entries(schema)) {
    if (subschemaKeywords.has(key))
      copy[key] = Array.isArray(value) ? value.map((item) => (isSchema(item) ? map(item) : item)) : isSchema(value) ? map(value) : value
    else if (schemaMapKeywords.has(key) && isSchema(value))
      copy[key] = Object.fromEntries(Object.entries(value).map(([name, item]) => [name, isSchema(item) ? map(item) : item]))
    else copy[key] = value
  }
  return copy
}

/** The contract's named object schemas. */
export class ContractComponents {
  readonly #schemas = new Map<string, Schema>()
  /** Named schemas by their `properties` object (see above). */
  readonly #names = new Map<object, string>()

  constructor(namespace: Record<string, unknown> = contract) {
    // Module namespace keys are sorted: the first name of a schema exported twice wins, always the same one.
    const named = Object.entries(namespace).filter((entry): entry is [string, Schema & { properties: Schema }] => isObjectSchema(entry[1]))
    for (const [name, schema] of named) this.#add(name, schema)
    for (const [name, schema] of named) this.#add(`${name}Page`, contract.Page(schema as never) as unknown as Schema)
  }

  #add(name: string, schema: Schema): void {
    if (!isObjectSchema(schema) || this.#names.has(schema.properties) || this.#schemas.has(name)) return
    this.#schemas.set(name, schema)
    this.#names.set(schema.properties, name)
  }

  /**
   * The named schemas as Fastify shared schemas (`$id` = name), each with its own named parts
   * as references: register them with `app.addSchema`.
   */
  sharedSchemas(): Schema[] {
    return [...this.#schemas].map(([name, schema]) => ({ $id: name, ...mapSubschemas(schema, (part) => this.refer(part)) }))
  }

  /**
   * A schema with every use of a named schema in it (itself included) replaced by a reference to
   * the component: `{ $ref: 'Name#' }`, or, for a use that adds annotations of its own, a wrapper
   * that keeps them (`finishDocument` writes it as `$ref` beside them). A use that changes more
   * than annotations is a different type and stays inline.
   */
  refer(schema: Schema): unknown {
    const name = isObjectSchema(schema) ? this.#names.get(schema.properties) : undefined
    const named = name === undefined ? undefined : this.#schemas.get(name)
    if (name !== undefined && named !== undefined) {
      const annotations = annotationsOf(schema, named)
      if (annotations !== null)
        return Object.keys(annotations).length === 0
          ? { $ref: `${name}#` }
          : { allOf: [{ $ref: `${name}#` }], ...annotations, [annotatedRef]: true }
    }
    return mapSubschemas(schema, (part) => this.refer(part))
  }

  /**
   * A route schema as @fastify/swagger should document it: body and responses refer to the
   * components. Parameters (params, querystring, headers) are listed one by one in the document
   * and stay as they are.
   */
  routeSchema(schema: Schema): Schema {
    const documented: Schema = { ...schema }
    if (isSchema(schema.body)) documented.body = this.refer(schema.body)
    if (isSchema(schema.response))
      documented.response = Object.fromEntries(
        Object.entries(schema.response).map(([status, response]) => [
          status,
          isSchema(response) ? this.#referResponse(response) : response,
        ]),
      )
    return documented
  }

  /** A response schema, or a response that names its media types (`{ description, content: { type: { schema } } }`). */
  #referResponse(response: Schema): unknown {
    if (!isSchema(response.content)) return this.refer(response)
    const content = Object.entries(response.content).map(([type, media]) => [
      type,
      isSchema(media) && isSchema(media.schema) ? { ...media, schema: this.refer(media.schema) } : media,
    ])
    return { ...response, content: Object.fromEntries(content) }
  }

  /**
   * The generated document, tidied: annotated references written as `$ref` with their
   * annotations beside it, the bodies that may be left out documented as optional, the error
   * answer (the same problem details at every error status of every operation) named once under
   * `components.responses`, and only the named schemas that something refers to (sorted by name).
   */
  finishDocument<T extends Schema>(document: T): T {
    const collapsed = collapseAnnotatedRefs(document) as T
    const { paths, responses } = shareProblemResponse(markOptionalBodies(collapsed.paths))
    const finished: T = { ...collapsed, paths }
    const components = isSchema(finished.components) ? finished.components : {}
    const schemas = isSchema(components.schemas) ? components.schemas : {}
    const used = referencedComponents({ ...finished, components: { ...components, responses } }, schemas)
    const kept = Object.keys(schemas)
      .filter((name) => used.has(name) || !this.#schemas.has(name))
      .sort()
    return {
      ...finished,
      components: {
        ...components,
        schemas: Object.fromEntries(kept.map((name) => [name, schemas[name]])),
        ...(Object.keys(responses).length > 0
          ? { responses: { ...(isSchema(components.responses) ? components.responses : {}), ...responses } }
          : {}),
      },
    }
  }
}

/**
 * The annotations a use adds to or changes on its named schema (`{}` when none), or null when it
 * differs in anything else (then it is not that type). Only own enumerable keys count, as in
 * JSON: TypeBox's markers (`~kind`, `~optional`) are not part of the schema.
 */
function annotationsOf(use: Schema, named: Schema): Schema | null {
  if (use === named) return {}
  const annotations: Schema = {}
  for (const key of new Set([...Object.keys(use), ...Object.keys(named)])) {
    if (use[key] === named[key]) continue
    if (!annotationKeywords.has(key)) return null
    if (key in use) annotations[key] = use[key]
  }
  return annotations
}

const problemRef = `${componentsPrefix}Problem`

/** A response whose body is the Problem schema (and nothing else). */
function isProblemResponse(response: unknown): boolean {
  if (!isSchema(response) || !isSchema(response.content)) return false
  const media = Object.values(response.content)
  return media.length > 0 && media.every((m) => isSchema(m) && isSchema(m.schema) && m.schema.$ref === problemRef)
}

/** Each operation marked with `optionalBody`: its request body documented as optional, the mark gone. */
function markOptionalBodies(paths: unknown): unknown {
  if (!isSchema(paths)) return paths
  const unmark = (op: unknown) => {
    if (!isSchema(op) || !(optionalBody in op)) return op
    const { [optionalBody]: optional, ...rest } = op
    return optional === true && isSchema(rest.requestBody) ? { ...rest, requestBody: { ...rest.requestBody, required: false } } : rest
  }
  return Object.fromEntries(
    Object.entries(paths).map(([path, item]) => [
      path,
      isSchema(item) ? Object.fromEntries(Object.entries(item).map(([method, op]) => [method, unmark(op)])) : item,
    ]),
  )
}

/**
 * Every operation answers its errors with the same response (problem details): when all those
 * responses are alike, each becomes a reference to `components.responses.Problem`.
 */
function shareProblemResponse(paths: unknown): { paths: unknown; responses: Schema } {
  if (!isSchema(paths)) return { paths, responses: {} }
  const operations = Object.values(paths).flatMap((item) => (isSchema(item) ? Object.values(item).filter(isSchema) : []))
  const problems = operations.flatMap((op) => (isSchema(op.responses) ? Object.values(op.responses).filter(isProblemResponse) : []))
  const [first] = problems
  if (first === undefined || new Set(problems.map((r) => JSON.stringify(r))).size !== 1) return { paths, responses: {} }
  const shared = { $ref: '#/components/responses/Problem' }
  const referToShared = (op: unknown) =>
    isSchema(op) && isSchema(op.responses)
      ? {
          ...op,
          responses: Object.fromEntries(Object.entries(op.responses).map(([status, r]) => [status, isProblemResponse(r) ? shared : r])),
        }
      : op
  const shareIn = (item: unknown) =>
    isSchema(item) ? Object.fromEntries(Object.entries(item).map(([key, op]) => [key, referToShared(op)])) : item
  return { paths: Object.fromEntries(Object.entries(paths).map(([path, item]) => [path, shareIn(item)])), responses: { Problem: first } }
}

/** `{ allOf: [{ $ref }], ...annotations, [annotatedRef]: true }` becomes `{ $ref, ...annotations }`, at any depth. */
function collapseAnnotatedRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(collapseAnnotatedRefs)
  if (!isSchema(node)) return node
  if (node[annotatedRef] === true && Array.isArray(node.allOf) && node.allOf.length === 1 && isSchema(node.allOf[0])) {
    const { allOf, [annotatedRef]: _marker, ...annotations } = node
    return { ...(allOf[0] as Schema), ...annotations }
  }
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, collapseAnnotatedRefs(value)]))
}

function refsIn(node: unknown, found: (name: string) => void): void {
  if (Array.isArray(node)) for (const item of node) refsIn(item, found)
  else if (isSchema(node)) {
    if (typeof node.$ref === 'string' && node.$ref.startsWith(componentsPrefix))
      found(node.$ref.slice(componentsPrefix.length).split('/')[0] as string)
    for (const value of Object.values(node)) refsIn(value, found)
  }
}

/** The component schemas the document refers to, directly or through other components. */
function referencedComponents(document: Schema, schemas: Schema): Set<string> {
  const used = new Set<string>()
  const pending: string[] = []
  const found = (name: string) => {
    if (used.has(name)) return
    used.add(name)
    pending.push(name)
  }
  const { components, ...rest } = document
  refsIn(rest, found)
  if (isSchema(components)) refsIn(Object.fromEntries(Object.entries(components).filter(([key]) => key !== 'schemas')), found)
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) refsIn(schemas[name], found)
  return used
}
