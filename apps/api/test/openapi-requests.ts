/**
 * Requests for one operation of the OpenAPI document, built around its example (a call that
 * succeeds, from operation-world.ts): the example itself, the example without its body, the
 * example with one documented value at a bound or just past it, and generated requests that
 * keep or replace each part of the example with values from the part's documented schema
 * (hostile text, integers at their bounds), raw URL bytes, broken and missing bodies, and other
 * credentials. Each request knows which documented rules it breaks, so the answer can be judged.
 */
import { illFormedText } from '@quire/core'
import fc from 'fast-check'
import {
  bodyKeepsToSchema,
  type DocumentedOperation,
  type DocumentedParameter,
  type JsonSchema,
  parameterKeepsToSchema,
} from './openapi-document.ts'
import { arbitraryFor, integerBoundaries, mutated, textArbitrary } from './schema-arbitrary.ts'

/** Whose credential a request carries: the example's principal's, none, or one that fails or finds nothing. */
export type Who = 'example' | 'anonymous' | 'garbage' | 'revoked' | 'stranger'

/** A path parameter as sent, and as the server reads it back (undefined when it cannot: broken percent-encoding). */
export interface PathValue {
  readonly sent: string
  readonly read: string | undefined
}

export type Body =
  | { readonly kind: 'none' }
  | { readonly kind: 'json'; readonly value: unknown }
  | { readonly kind: 'raw'; readonly payload: string; readonly contentType: string }

export interface Case {
  /** What the case is, for a failure's message. */
  readonly label: string
  readonly path: Readonly<Record<string, PathValue>>
  /** Query pairs, encoded when sent. */
  readonly query: readonly (readonly [string, string])[]
  /** Appended to the query string as it is, unencoded. */
  readonly rawQuery: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: Body
  readonly who: Who
  /** The answer must be a success (the example, and the example without a body the document says is optional). */
  readonly mustSucceed?: boolean
}

/** An operation's example call taken apart by the document: its path values, query and body. */
export interface Example {
  readonly path: Readonly<Record<string, string>>
  readonly query: Readonly<Record<string, string>>
  readonly body: Body
}

/** Raw bytes for a URL part. No dot segments: a URL resolves them away, into another operation's route. */
const rawSegments = ['%00', '%ED%A0%80', '%C0%80', '%FF', '%E3%80%82', '%E0%A4%A', 'a'.repeat(600), '-1', '0', '2147483648']

function decoded(sent: string): string | undefined {
  try {
    return decodeURIComponent(sent)
  } catch {
    return undefined
  }
}

/**
 * What a URL carries of a string: lone surrogates become U+FFFD on the way (no UTF-8 form), the
 * rest is percent-encoded; an empty or dot segment (`.`, `..`) gets a prefix, since URLs drop those.
 */
function pathValue(value: string): PathValue {
  const encoded = encodeURIComponent(value.toWellFormed())
  const sent = /^\.{0,2}$/.test(encoded) ? `x${encoded}` : encoded
  return { sent, read: decoded(sent) }
}

/** A generated value as text in a URL or a header. */
function asText(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value)
}

/** The example call of an operation, taken apart by the document's path and parameters. */
export function exampleOf(op: DocumentedOperation, request: { method: string; url: string; body?: unknown }): Example {
  if (request.method !== op.method) throw new Error(`${op.id}: the example is a ${request.method}, the document says ${op.method}`)
  const [pathname = '', search = ''] = request.url.split('?')
  const want = op.path.split('/')
  const got = pathname.split('/')
  const path: Record<string, string> = {}
  if (want.length !== got.length) throw new Error(`${op.id}: the example ${pathname} is not at ${op.path}`)
  for (const [i, part] of want.entries()) {
    const name = part.match(/^\{(.+)\}$/)?.[1]
    if (name) path[name] = decodeURIComponent(got[i] as string)
    else if (part !== got[i]) throw new Error(`${op.id}: the example ${pathname} is not at ${op.path}`)
  }
  return {
    path,
    query: Object.fromEntries(new URLSearchParams(search)),
    body: request.body === undefined ? { kind: 'none' } : { kind: 'json', value: request.body },
  }
}

function exampleCase(example: Example): Case {
  return {
    label: 'the example',
    path: Object.fromEntries(Object.entries(example.path).map(([name, value]) => [name, pathValue(value)])),
    query: Object.entries(example.query),
    rawQuery: '',
    headers: {},
    body: example.body,
    who: 'example',
  }
}

/** A documented value at its bounds and just past them: integers by value, strings by length. */
function boundaryValues(schema: JsonSchema): unknown[] {
  if (schema.type === 'integer') return integerBoundaries(schema as { minimum?: number; maximum?: number })
  if (schema.type === 'string' && typeof schema.maxLength === 'number')
    return ['a'.repeat(schema.maxLength), 'a'.repeat(schema.maxLength + 1)]
  return []
}

/** The case with one parameter set to a value. */
function withParameter(c: Case, parameter: DocumentedParameter, value: string, label: string): Case {
  switch (parameter.in) {
    case 'path':
      return { ...c, label, path: { ...c.path, [parameter.name]: pathValue(value) } }
    case 'query':
      return { ...c, label, query: [...c.query.filter(([name]) => name !== parameter.name), [parameter.name, value]] }
    case 'header':
      return { ...c, label, headers: { ...c.headers, [parameter.name]: value } }
  }
}

const shown = (value: unknown) => {
  const text = JSON.stringify(value)
  return text.length > 40 ? `${text.slice(0, 12)}… (${asText(value).length} characters)` : text
}

/**
 * The fixed cases of an operation, the same on every run: the example (it must succeed), the
 * example without its body (it must succeed where the document says the body is optional, and be
 * refused where it says required), and the example with each documented parameter and top-level
 * body field at each of its bounds and just past it.
 */
export function fixedCases(op: DocumentedOperation, example: Example): Case[] {
  const base = exampleCase(example)
  const cases: Case[] = [{ ...base, mustSucceed: true }]
  if (op.body && example.body.kind !== 'none')
    cases.push({ ...base, label: 'the example without its body', body: { kind: 'none' }, mustSucceed: !op.body.required })
  for (const parameter of op.parameters)
    for (const value of boundaryValues(parameter.schema))
      cases.push(withParameter(base, parameter, asText(value), `${parameter.in} ${parameter.name} = ${shown(value)}`))
  const properties = (op.body?.schema.properties ?? {}) as Record<string, JsonSchema>
  const exampleBody = example.body.kind === 'json' ? (example.body.value as Record<string, unknown>) : {}
  for (const [name, schema] of Object.entries(properties))
    for (const value of boundaryValues(schema))
      cases.push({ ...base, label: `body ${name} = ${shown(value)}`, body: { kind: 'json', value: { ...exampleBody, [name]: value } } })
  return cases
}

/** A path value: the example's mostly, else generated from its schema or raw bytes. */
function pathArbitrary(parameter: DocumentedParameter, example: string | undefined): fc.Arbitrary<PathValue> {
  const generated = arbitraryFor(parameter.schema as never, { boundaries: true }).map((v) => pathValue(asText(v)))
  const raw = fc.constantFrom(...rawSegments).map((sent): PathValue => ({ sent, read: decoded(sent) }))
  return fc.oneof(
    ...(example === undefined ? [] : [{ weight: 6, arbitrary: fc.constant(pathValue(example)) }]),
    { weight: 2, arbitrary: generated },
    { weight: 1, arbitrary: raw },
  )
}

type QueryPair = readonly [string, string]

/** A query parameter's pair, or none: the example's value, one from its schema, or any text. */
function queryArbitrary(parameter: DocumentedParameter, example: string | undefined): fc.Arbitrary<QueryPair[]> {
  const pair = (value: fc.Arbitrary<unknown>) => value.map((v): QueryPair[] => [[parameter.name, asText(v)]])
  return fc.oneof(
    ...(example === undefined ? [] : [{ weight: 4, arbitrary: pair(fc.constant(example)) }]),
    { weight: 2, arbitrary: pair(arbitraryFor(parameter.schema as never, { boundaries: true })) },
    { weight: 1, arbitrary: pair(textArbitrary({ maxLength: 30 })) },
    { weight: parameter.required ? 1 : 3, arbitrary: fc.constant<QueryPair[]>([]) },
  )
}

/** Header values that can be sent (printable ASCII) but break the schema of a key: empty, a space, one past 255. */
const badHeaderValues = ['', 'has space', 'x'.repeat(256)]

/** A header parameter, or none: a value from its schema or one it refuses, only ever what HTTP can carry in a header. */
function headerArbitrary(parameter: DocumentedParameter): fc.Arbitrary<Record<string, string>> {
  const value = fc.oneof(
    { weight: 2, arbitrary: arbitraryFor(parameter.schema as never, { clean: true, boundaries: true }).map(asText) },
    { weight: 1, arbitrary: fc.constantFrom(...badHeaderValues) },
  )
  const sendable = value.filter((v) => /^[\x20-\x7e]*$/.test(v))
  return fc.oneof({ weight: 3, arbitrary: fc.constant({}) }, { weight: 2, arbitrary: sendable.map((v) => ({ [parameter.name]: v })) })
}

/**
 * A body: the example's, one from the schema (the example's fields preferred), a broken one, none,
 * text that may not be JSON, or a form. An operation without a body mostly gets none, sometimes
 * JSON it must ignore.
 */
function bodyArbitrary(op: DocumentedOperation, example: Example): fc.Arbitrary<Body> {
  const json = (value: unknown): Body => ({ kind: 'json', value })
  const documented = op.body
  if (!documented)
    return fc.oneof({ weight: 4, arbitrary: fc.constant<Body>({ kind: 'none' }) }, { weight: 1, arbitrary: fc.constant(json({ a: 1 })) })
  const exampleValue = example.body.kind === 'json' ? example.body.value : {}
  const overrides = Object.fromEntries(
    Object.entries(exampleValue as Record<string, unknown>).map(([name, value]) => [name, fc.constant(value)]),
  )
  const generated = arbitraryFor(documented.schema as never, { boundaries: true, overrides })
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant(example.body) },
    { weight: 4, arbitrary: generated.map(json) },
    { weight: 2, arbitrary: mutated(generated).map(json) },
    { weight: 1, arbitrary: fc.constant<Body>({ kind: 'none' }) },
    {
      weight: 1,
      arbitrary: fc.string({ maxLength: 50 }).map((payload): Body => ({ kind: 'raw', payload, contentType: documented.mediaType })),
    },
    { weight: 1, arbitrary: fc.constant<Body>({ kind: 'raw', payload: 'x=1', contentType: 'application/x-www-form-urlencoded' }) },
  )
}

const whoArbitrary: fc.Arbitrary<Who> = fc.oneof(
  { weight: 6, arbitrary: fc.constant<Who>('example') },
  { weight: 1, arbitrary: fc.constantFrom<Who>('anonymous', 'garbage', 'revoked', 'stranger') },
)

/** Generated cases of an operation, around its example. */
export function caseArbitrary(op: DocumentedOperation, example: Example): fc.Arbitrary<Case> {
  const of = (where: DocumentedParameter['in']) => op.parameters.filter((p) => p.in === where)
  const path = fc.record(Object.fromEntries(of('path').map((p) => [p.name, pathArbitrary(p, example.path[p.name])])))
  const query = fc
    .tuple(
      fc.tuple(...of('query').map((p) => queryArbitrary(p, example.query[p.name]))),
      fc.oneof(
        { weight: 6, arbitrary: fc.constant([]) },
        { weight: 1, arbitrary: fc.tuple(textArbitrary({ maxLength: 20 }), textArbitrary({ maxLength: 20 })).map((pair) => [pair]) },
      ),
    )
    .map(([documented, undocumented]) => [...documented.flat(), ...undocumented])
  const rawQuery = fc.oneof(
    { weight: 6, arbitrary: fc.constant('') },
    { weight: 1, arbitrary: fc.constantFrom(...rawSegments).map((r) => `${r}=${r}`) },
  )
  const headers = fc.tuple(...of('header').map(headerArbitrary)).map((parts) => Object.assign({}, ...parts) as Record<string, string>)
  return fc.record({
    label: fc.constant('generated'),
    path,
    query,
    rawQuery,
    headers,
    body: bodyArbitrary(op, example),
    who: whoArbitrary,
  })
}

/** The request a case makes, as light-my-request takes it. */
export function requestOf(op: DocumentedOperation, c: Case, token: string | null) {
  const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => (c.path[name] as PathValue).sent)
  const search = [new URLSearchParams(c.query as [string, string][]).toString(), c.rawQuery].filter(Boolean).join('&')
  const headers: Record<string, string> = { ...c.headers }
  if (token) headers.authorization = `Bearer ${token}`
  let payload: string | undefined
  if (c.body.kind === 'json') {
    payload = JSON.stringify(c.body.value)
    headers['content-type'] = op.body?.mediaType ?? 'application/json'
  } else if (c.body.kind === 'raw') {
    payload = c.body.payload
    headers['content-type'] = c.body.contentType
  }
  return { method: op.method as 'GET', url: search ? `${path}?${search}` : path, headers, ...(payload === undefined ? {} : { payload }) }
}

/**
 * The documented rules a case breaks (empty when it keeps them all): a required part missing, a
 * value its schema refuses, a URL part that cannot be read, a body that is not JSON or not of the
 * documented media type. A request that breaks one must be refused with a 4xx.
 */
export function brokenRules(op: DocumentedOperation, c: Case): string[] {
  const broken: string[] = []
  for (const parameter of op.parameters) {
    const where = `${parameter.in} ${parameter.name}`
    if (parameter.in === 'path') {
      const read = c.path[parameter.name]?.read
      if (read === undefined) broken.push(`${where} cannot be read`)
      else if (!parameterKeepsToSchema(parameter, read)) broken.push(`${where} breaks its schema`)
      continue
    }
    const values = parameter.in === 'query' ? c.query.filter(([name]) => name === parameter.name).map(([, v]) => v.toWellFormed()) : []
    if (parameter.in === 'header' && parameter.name in c.headers) values.push(c.headers[parameter.name] as string)
    if (values.length === 0 && parameter.required) broken.push(`${where} is missing`)
    if (values.length > 1) broken.push(`${where} is given ${values.length} times`)
    if (values.length === 1 && !parameterKeepsToSchema(parameter, values[0] as string)) broken.push(`${where} breaks its schema`)
  }
  const body = op.body
  if (body) {
    // A body the document lets be left out is either absent or keeps to its schema (a JSON `null` is
    // a body, and not an object).
    const breaks = (value: unknown) => !bodyKeepsToSchema(body, value)
    if (c.body.kind === 'none' && body.required) broken.push('the body is missing')
    if (c.body.kind === 'json' && breaks(c.body.value)) broken.push('the body breaks its schema')
    if (c.body.kind === 'raw') {
      const parsed = parsedJson(c.body.payload)
      if (c.body.contentType !== body.mediaType) broken.push(`the body is sent as ${c.body.contentType}`)
      else if (parsed === undefined) broken.push('the body is not JSON')
      else if (breaks(parsed.value)) broken.push('the body breaks its schema')
    }
  }
  return broken
}

function parsedJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) }
  } catch {
    return undefined
  }
}

/** Whether a case carries text the edge must refuse (NUL, lone surrogates), as the server reads it. */
export function carriesIllFormedText(op: DocumentedOperation, c: Case): boolean {
  const texts: unknown[] = [
    ...Object.values(c.path).map((v) => v.read ?? ''),
    ...c.query.flat().map((v) => v.toWellFormed()),
    decoded(c.rawQuery.replaceAll('+', ' ')) ?? '',
  ]
  if (op.body && c.body.kind === 'json') texts.push(c.body.value)
  return illFormedText(texts).length > 0
}
