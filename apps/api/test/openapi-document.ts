/**
 * The served OpenAPI document read as a client reads it, with nothing taken from the operation
 * table: each operation's parameters, body and answers with every `$ref` resolved, whether a
 * request keeps to what the document says of it, and whether an answer is one the document lists
 * (its status, its media type, its schema). A JSON Schema 2020-12 validator reads the schemas, as
 * OpenAPI 3.1 says.
 */

import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'

export type JsonSchema = Record<string, unknown>

export interface DocumentedParameter {
  readonly name: string
  readonly in: 'path' | 'query' | 'header'
  readonly required: boolean
  readonly schema: JsonSchema
}

export interface DocumentedBody {
  readonly required: boolean
  readonly mediaType: string
  readonly schema: JsonSchema
}

export interface DocumentedOperation {
  readonly id: string
  readonly method: string
  /** The path as the document writes it: `/api/artifacts/{artifactId}`. */
  readonly path: string
  readonly parameters: readonly DocumentedParameter[]
  readonly body: DocumentedBody | null
  /** Each documented status, with the schema of each media type it is sent as (none: no body). */
  readonly responses: ReadonlyMap<number, Readonly<Record<string, JsonSchema>>>
}

type Node = Record<string, unknown>
const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value)

/** A node with every `$ref` replaced by what it points to (annotations beside a `$ref` kept). */
function resolved(document: Node, node: unknown, trail: readonly string[] = []): unknown {
  if (Array.isArray(node)) return node.map((item) => resolved(document, item, trail))
  if (!isNode(node)) return node
  const { $ref, ...beside } = node
  const own = Object.fromEntries(Object.entries(beside).map(([key, value]) => [key, resolved(document, value, trail)]))
  if (typeof $ref !== 'string') return own
  if (!$ref.startsWith('#/') || trail.includes($ref)) throw new Error(`Cannot resolve ${$ref} (${[...trail, $ref].join(' → ')})`)
  const target = $ref
    .slice(2)
    .split('/')
    .reduce<unknown>((at, part) => (isNode(at) ? at[part.replaceAll('~1', '/').replaceAll('~0', '~')] : undefined), document)
  if (target === undefined) throw new Error(`${$ref} points to nothing`)
  return { ...(resolved(document, target, [...trail, $ref]) as Node), ...own }
}

const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']

/** Every operation of the document, by operationId. */
export function documentedOperations(document: Node): Map<string, DocumentedOperation> {
  const found = new Map<string, DocumentedOperation>()
  for (const [path, item] of Object.entries((document.paths as Node | undefined) ?? {})) {
    if (!isNode(item)) continue
    for (const method of methods) {
      const raw = item[method]
      if (!isNode(raw)) continue
      const op = resolved(document, raw) as Node
      const id = String(op.operationId)
      const parameters = ((op.parameters as Node[] | undefined) ?? []).map(
        (p): DocumentedParameter => ({
          name: String(p.name),
          in: p.in as DocumentedParameter['in'],
          required: p.required === true,
          schema: (p.schema as JsonSchema | undefined) ?? {},
        }),
      )
      const body = isNode(op.requestBody) ? bodyOf(op.requestBody) : null
      const responses = new Map<number, Record<string, JsonSchema>>()
      for (const [status, response] of Object.entries((op.responses as Node | undefined) ?? {})) {
        const content = isNode(response) && isNode(response.content) ? response.content : {}
        responses.set(
          Number(status),
          Object.fromEntries(Object.entries(content).map(([type, media]) => [type, ((media as Node).schema as JsonSchema) ?? {}])),
        )
      }
      found.set(id, { id, method: method.toUpperCase(), path, parameters, body, responses })
    }
  }
  return found
}

function bodyOf(requestBody: Node): DocumentedBody {
  const [entry, ...others] = Object.entries((requestBody.content as Node | undefined) ?? {})
  if (!entry || others.length > 0) throw new Error('A request body is documented with exactly one media type here')
  const [mediaType, media] = entry
  return { required: requestBody.required === true, mediaType, schema: ((media as Node).schema as JsonSchema) ?? {} }
}

/** Schemas as the server reads them: URL parts and headers arrive as text and are coerced to the declared types. */
const fromText = new Ajv2020({ strict: false, allErrors: true, coerceTypes: true })
const asIs = new Ajv2020({ strict: false, allErrors: true })
addFormats.default(fromText)
addFormats.default(asIs)
const compiled = new Map<Ajv2020, WeakMap<JsonSchema, ValidateFunction>>([
  [fromText, new WeakMap()],
  [asIs, new WeakMap()],
])

function validatorOf(ajv: Ajv2020, schema: JsonSchema): ValidateFunction {
  const cache = compiled.get(ajv) as WeakMap<JsonSchema, ValidateFunction>
  let validate = cache.get(schema)
  if (!validate) {
    validate = ajv.compile(schema)
    cache.set(schema, validate)
  }
  return validate
}

/** A parameter's schema as a property's, so that a value coerced from text has somewhere to go. */
const holders = new WeakMap<JsonSchema, JsonSchema>()

/** Whether a parameter's value, as the server reads it from the URL or a header, keeps to its schema. */
export function parameterKeepsToSchema(parameter: DocumentedParameter, value: string): boolean {
  let holder = holders.get(parameter.schema)
  if (!holder) {
    holder = { type: 'object', properties: { value: parameter.schema } }
    holders.set(parameter.schema, holder)
  }
  return validatorOf(fromText, holder)({ value })
}

/** Whether a JSON body keeps to the schema the document gives it. */
export function bodyKeepsToSchema(body: DocumentedBody, value: unknown): boolean {
  return validatorOf(asIs, body.schema)(structuredClone(value))
}

/** An answer as the test saw it. */
export interface Answer {
  readonly statusCode: number
  readonly contentType: string | undefined
  readonly body: string
}

/** The media type of a Content-Type header, without its parameters. */
export function mediaTypeOf(contentType: string | undefined): string | undefined {
  return contentType?.split(';')[0]?.trim().toLowerCase() || undefined
}

/**
 * How an answer departs from the document (empty when it does not): a status the operation does
 * not list, a media type other than the one documented for that status, a body its schema refuses.
 */
export function departures(op: DocumentedOperation, answer: Answer): string[] {
  const documented = op.responses.get(answer.statusCode)
  if (!documented) return [`status ${answer.statusCode} is not documented (documented: ${[...op.responses.keys()].join(', ')})`]
  const mediaTypes = Object.keys(documented)
  if (mediaTypes.length === 0)
    return answer.body === '' ? [] : [`status ${answer.statusCode} is documented without a body, but one was sent`]
  const mediaType = mediaTypeOf(answer.contentType)
  const schema = mediaType === undefined ? undefined : documented[mediaType]
  if (schema === undefined)
    return [`status ${answer.statusCode} was sent as ${answer.contentType ?? 'no Content-Type'}, documented as ${mediaTypes.join(' or ')}`]
  let parsed: unknown
  try {
    parsed = JSON.parse(answer.body)
  } catch {
    return [`status ${answer.statusCode}: the body is not JSON`]
  }
  const validate = validatorOf(asIs, schema)
  if (validate(parsed)) return []
  return (validate.errors ?? []).map(
    (e) => `status ${answer.statusCode}: the body ${e.instancePath || '/'} ${e.message ?? 'is not valid'} (${JSON.stringify(e.params)})`,
  )
}
