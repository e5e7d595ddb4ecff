import { ErrorCodes, type OperationSpec, operationIds, operations, statusOf } from '@quire/core'
import { Ajv } from 'ajv'
import addFormats from 'ajv-formats'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { engine, seedArtifact, startTestApi, type TestApi } from './helper.ts'
import { arbitraryFor, mutated } from './schema-arbitrary.ts'

let api: TestApi
let realIds: { artifactId: string; owner: string; token: string }
const ajv = new Ajv({ strict: false })
addFormats.default(ajv)

beforeAll(async () => {
  api = await startTestApi()
  const { owner, artifact } = await seedArtifact(api, { publicView: true })
  realIds = { artifactId: artifact.id, owner: owner.username, token: owner.token }
})
afterAll(async () => {
  await api.close()
})

const pathParam = (name: string) =>
  fc.oneof(
    fc.constant(name === 'artifactId' ? () => realIds.artifactId : name === 'owner' ? () => realIds.owner : () => 'notes'),
    fc.string({ maxLength: 30 }).map((s) => () => s || 'x'),
    fc.constantFrom('%00', '..', '%E0%A4%A', 'a'.repeat(300), '1', '-1', 'art_00000000000000000000000000').map((s) => () => s),
  )

function pathArbitrary(op: OperationSpec) {
  const names = [...op.path.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1] as string)
  return fc
    .tuple(
      ...names.map((n) =>
        n === 'versionNumber' ? fc.oneof(fc.integer({ min: -5, max: 5 }), fc.string()).map((v) => () => String(v)) : pathParam(n),
      ),
    )
    .map((values) =>
      names.reduce(
        (path, name, i) => path.replace(`:${name}`, encodeURIComponent((values[i] as () => string)()).replace(/%25/g, '%')),
        op.path,
      ),
    )
}

function queryArbitrary(op: OperationSpec) {
  const schema = op.query ? arbitraryFor(op.query as never) : fc.constant({})
  return fc.oneof(schema, mutated(schema)).map((q) => {
    if (q === null || typeof q !== 'object' || Array.isArray(q)) return `?junk=${encodeURIComponent(JSON.stringify(q))}`
    const s = new URLSearchParams(
      Object.entries(q as Record<string, unknown>).map(([k, v]) => [
        k,
        typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v),
      ]),
    ).toString()
    return s ? `?${s}` : ''
  })
}

function bodyArbitrary(op: OperationSpec): fc.Arbitrary<{ payload?: string; contentType?: string }> {
  if (!op.body) return fc.constantFrom({}, { payload: '{"a":1}', contentType: 'application/json' })
  const valid = arbitraryFor(op.body as never)
  return fc.oneof(
    { weight: 3, arbitrary: valid.map((b) => ({ payload: JSON.stringify(b), contentType: 'application/json' })) },
    { weight: 3, arbitrary: mutated(valid).map((b) => ({ payload: JSON.stringify(b), contentType: 'application/json' })) },
    { weight: 1, arbitrary: fc.string({ maxLength: 50 }).map((s) => ({ payload: s, contentType: 'application/json' })) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        { payload: 'x=1', contentType: 'application/x-www-form-urlencoded' },
        {},
        { payload: '', contentType: 'application/json' },
      ),
    },
  )
}

const credential = fc.constantFrom<'owner' | 'none' | 'garbage'>('owner', 'none', 'garbage')

describe(`fuzzing every operation of the table (${engine})`, () => {
  for (const id of operationIds) {
    const op: OperationSpec = operations[id]
    const validateSuccess = ajv.compile(op.success.schema as object)
    it(`${id}: never a 5xx, always problem+json on failure, the contract on success`, async () => {
      await fc.assert(
        fc.asyncProperty(pathArbitrary(op), queryArbitrary(op), bodyArbitrary(op), credential, async (path, query, body, who) => {
          const headers: Record<string, string> = {}
          if (who === 'owner') headers.authorization = `Bearer ${realIds.token}`
          if (who === 'garbage') headers.authorization = 'Bearer qk_garbage'
          if (body.contentType) headers['content-type'] = body.contentType
          const res = await api.app.inject({
            method: op.method,
            url: `${path}${query}`,
            headers,
            ...(body.payload !== undefined ? { payload: body.payload } : {}),
          })
          expect(res.statusCode, `${op.method} ${path}${query} ${body.payload ?? ''}`).toBeLessThan(500)
          if (res.statusCode >= 400) {
            expect(res.headers['content-type']).toContain('application/problem+json')
            const problem = res.json()
            expect(ErrorCodes).toContain(problem.code)
            expect(statusOf(problem.code)).toBe(res.statusCode)
            expect(problem.detail).toEqual(expect.any(String))
          } else if (res.statusCode === op.success.status) {
            expect(validateSuccess(res.json()), JSON.stringify(validateSuccess.errors)).toBe(true)
          }
        }),
        { numRuns: 60 },
      )
    })
  }
})
