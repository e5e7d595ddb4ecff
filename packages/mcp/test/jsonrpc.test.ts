/**
 * The stateless HTTP path checks messages with plain property tests instead of the SDK's zod
 * schemas: here they must agree with those schemas on every message, hand-picked edges and
 * generated ones alike.
 */
import { CallToolRequestParamsSchema, JSONRPCMessageSchema, RELATED_TASK_META_KEY } from '@modelcontextprotocol/sdk/types.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { kindOf, toolCallParams } from '../src/jsonrpc.ts'

const sdkAdmits = (value: unknown) => JSONRPCMessageSchema.safeParse(value).success
const sdkAdmitsParams = (value: unknown) => CallToolRequestParamsSchema.safeParse(value).success

/** Values a field may hold in a message, wrong ones included. */
const anyValue = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.string({ maxLength: 4 }),
  fc.constantFrom('2.0', '1.0', 'tools/call', 'x'),
  fc.integer({ min: -3, max: 3 }),
  fc.constantFrom(1.5, 2 ** 53, -0, Number.MAX_SAFE_INTEGER),
  fc.boolean(),
  fc.constant([]),
  fc.constant({}),
)

const meta = fc.oneof(
  anyValue,
  fc.record(
    { progressToken: anyValue, [RELATED_TASK_META_KEY]: fc.oneof(anyValue, fc.record({ taskId: anyValue })), other: anyValue },
    { requiredKeys: [] },
  ),
)
const params = fc.oneof(
  anyValue,
  fc.record(
    {
      _meta: meta,
      name: anyValue,
      arguments: fc.oneof(anyValue, fc.dictionary(fc.string({ maxLength: 3 }), anyValue, { maxKeys: 2 })),
      task: fc.oneof(anyValue, fc.record({ ttl: anyValue }, { requiredKeys: [] })),
      uri: anyValue,
    },
    { requiredKeys: [] },
  ),
)
const errorObject = fc.oneof(anyValue, fc.record({ code: anyValue, message: anyValue, data: anyValue }, { requiredKeys: [] }))

/** Objects with any subset of a message's members (and a stray one), each well- or ill-formed. */
const message = fc.record(
  {
    jsonrpc: fc.oneof(fc.constant('2.0'), anyValue),
    id: anyValue,
    method: anyValue,
    params,
    result: fc.oneof(anyValue, fc.record({ _meta: meta, content: anyValue }, { requiredKeys: [] })),
    error: errorObject,
    extra: anyValue,
  },
  { requiredKeys: [] },
)

/** JSON drops members whose value is undefined: a body the edge parsed never has one. */
const asJson = (value: unknown): unknown => (value === undefined ? undefined : JSON.parse(JSON.stringify(value)))

describe('kindOf', () => {
  it('admits exactly what the SDK admits, on hand-picked messages', () => {
    const cases: unknown[] = [
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', arguments: {} } },
      { jsonrpc: '2.0', id: 'a', method: 'ping' },
      { jsonrpc: '2.0', id: 1.5, method: 'ping' },
      { jsonrpc: '2.0', id: null, method: 'ping' },
      { jsonrpc: '2.0', id: 1, method: 'ping', params: [] },
      { jsonrpc: '2.0', id: 1, method: 'ping', params: null },
      { jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: { progressToken: 1.5 } } },
      { jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: { [RELATED_TASK_META_KEY]: { taskId: 3 } } } },
      { jsonrpc: '2.0', id: 1, method: 'ping', extra: true },
      { jsonrpc: '1.0', id: 1, method: 'ping' },
      { id: 1, method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } },
      { jsonrpc: '2.0', method: 5 },
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', id: 1, result: [] },
      { jsonrpc: '2.0', id: 1, result: {}, error: { code: 1, message: 'x' } },
      { jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found' } },
      { jsonrpc: '2.0', error: { code: -32601, message: 'Method not found' } },
      { jsonrpc: '2.0', id: 1, error: { code: 1.5, message: 'x' } },
      { jsonrpc: '2.0', id: 1, error: { code: 1 } },
      { jsonrpc: '2.0' },
      {},
      [],
      'ping',
      null,
      42,
    ]
    for (const value of cases) expect(kindOf(value) !== null, JSON.stringify(value)).toBe(sdkAdmits(value))
  })

  it('admits exactly what the SDK admits, on generated messages', () => {
    fc.assert(
      fc.property(message, (generated) => {
        const value = asJson(generated)
        expect(kindOf(value) !== null, JSON.stringify(value)).toBe(sdkAdmits(value))
      }),
      { numRuns: 5000 },
    )
  })

  it('tells a request from a notification from a response', () => {
    expect(kindOf({ jsonrpc: '2.0', id: 0, method: 'tools/list' })).toBe('request')
    expect(kindOf({ jsonrpc: '2.0', method: 'notifications/initialized' })).toBe('notification')
    expect(kindOf({ jsonrpc: '2.0', id: 0, result: {} })).toBe('response')
    expect(kindOf({ jsonrpc: '2.0', id: 0, error: { code: -1, message: 'no' } })).toBe('response')
  })
})

describe('toolCallParams', () => {
  it("admits exactly the params the SDK's tools/call schema admits", () => {
    fc.assert(
      fc.property(params, (generated) => {
        const value = asJson(generated) as Record<string, unknown> | undefined
        // kindOf has checked the envelope (`_meta`) before: only params it admits get here.
        fc.pre(kindOf({ jsonrpc: '2.0', id: 1, method: 'tools/call', ...(value === undefined ? {} : { params: value }) }) !== null)
        expect(toolCallParams(value) !== null, JSON.stringify(value)).toBe(sdkAdmitsParams(value))
      }),
      { numRuns: 5000 },
    )
  })

  it('gives the name and the arguments', () => {
    expect(toolCallParams({ name: 'get_artifact', arguments: { artifactId: 'a' } })).toEqual({
      name: 'get_artifact',
      arguments: { artifactId: 'a' },
    })
    expect(toolCallParams({ name: 'get_current_principal' })).toEqual({ name: 'get_current_principal', arguments: undefined })
    expect(toolCallParams({ name: 'x', arguments: [] })).toBeNull()
    expect(toolCallParams(undefined)).toBeNull()
  })
})
