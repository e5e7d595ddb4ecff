/**
 * The stateless Streamable HTTP dispatcher on its own (the web app's tests run it behind the edge):
 * what the transport must answer, every JSON-RPC error with its code, initialize's negotiation,
 * and every kind of answer held to the protocol's schemas, since the hot path does not parse its
 * own results again.
 */
import {
  CallToolResultSchema,
  ErrorCode,
  InitializeResultSchema,
  JSONRPCErrorResponseSchema,
  JSONRPCResultResponseSchema,
  LATEST_PROTOCOL_VERSION,
  ListResourceTemplatesResultSchema,
  ListToolsResultSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js'
import { fail, type Result } from '@quire/core'
import { describe, expect, it } from 'vitest'
import { bodyRefusal, type Execute, type McpHttpRequest, type OperationCall, statelessHttpServer } from '../src/index.ts'

const server = statelessHttpServer({ version: '9.9.9' })
const headers = { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' }
const artifactId = 'art_00000000000000000000000000'
const content = { artifactId, versionNumber: 2, sha256: 'a'.repeat(64), content: '# Hello\n' }

/** Answers getContent with `content`, getProfile with a person, anything else as not found; records the calls. */
function executor(calls: OperationCall[] = []): Execute {
  return async (call): Promise<Result<unknown>> => {
    calls.push(call)
    if (call.operation === 'getContent') return { ok: true, value: content }
    if (call.operation === 'getProfile') return { ok: true, value: { id: 'usr_1', username: 'ada' } }
    return fail('not_found', 'No such thing here.')
  }
}

async function post(
  body: unknown,
  options: { headers?: Record<string, string>; execute?: Execute; onError?: (e: unknown, t: string) => void } = {},
) {
  const request: McpHttpRequest = { headers: { ...headers, ...options.headers }, body }
  return server.handle(request, { execute: options.execute ?? executor(), ...(options.onError ? { onError: options.onError } : {}) })
}

const rpc = (method: string, params?: Record<string, unknown>, id: string | number = 7) => ({
  jsonrpc: '2.0',
  id,
  method,
  ...(params === undefined ? {} : { params }),
})

/** The JSON-RPC result of an answer, after checking it is a 200 JSON result response for `id`. */
function resultOf(answer: { status: number; headers: Record<string, string>; body: string }, id: string | number = 7) {
  expect(answer.status, answer.body).toBe(200)
  expect(answer.headers['content-type']).toBe('application/json')
  const parsed = JSONRPCResultResponseSchema.parse(JSON.parse(answer.body))
  expect(parsed.id).toBe(id)
  return parsed.result
}

/**
 * The JSON-RPC error of an answer (HTTP `status`), checked against the protocol's error response.
 * A refusal that could not name the request's id carries `id: null`, as JSON-RPC says (the SDK's
 * schema only knows an absent id).
 */
function errorOf(answer: { status: number; body: string }, status = 200) {
  expect(answer.status, answer.body).toBe(status)
  const { id, ...rest } = JSON.parse(answer.body) as { id: unknown }
  const parsed = JSONRPCErrorResponseSchema.parse(id === null ? rest : { id, ...rest })
  return { ...parsed, id }
}

describe('the transport', () => {
  it('refuses an Accept without both media types with 406, a Content-Type that is not JSON with 415', async () => {
    for (const accept of ['application/json', 'text/event-stream', 'text/html'])
      expect(errorOf(await post(rpc('ping'), { headers: { accept } }), 406).error.code).toBe(-32000)
    expect(errorOf(await post(rpc('ping'), { headers: { 'content-type': 'text/plain' } }), 415).error.code).toBe(-32000)
    expect(resultOf(await post(rpc('ping'), { headers: { 'content-type': 'application/json; charset=utf-8' } }))).toEqual({})
  })

  it('refuses a batch whole and runs none of it', async () => {
    const calls: OperationCall[] = []
    const answer = await post([rpc('tools/call', { name: 'get_current_principal' })], { execute: executor(calls) })
    const { error, id } = errorOf(answer, 400)
    expect(error.code).toBe(ErrorCode.InvalidRequest)
    expect(id).toBeNull()
    expect(calls).toEqual([])
  })

  it('answers what is no JSON-RPC message of MCP with 400 and -32600', async () => {
    for (const body of [
      'tools/list',
      42,
      null,
      {},
      { jsonrpc: '1.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: null, method: 'ping' },
      { jsonrpc: '2.0', id: 1, method: 'ping', params: [] },
      { jsonrpc: '2.0', id: 1, method: 'ping', stray: true },
    ])
      expect(errorOf(await post(body), 400).error.code, JSON.stringify(body)).toBe(ErrorCode.InvalidRequest)
  })

  it('answers a body the edge could not parse as JSON with a parse error, a foreign media type with 415', () => {
    const parse = bodyRefusal({ code: 'FST_ERR_CTP_INVALID_JSON_BODY' })
    expect(parse?.status).toBe(400)
    expect(JSON.parse(parse?.body ?? '')).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: ErrorCode.ParseError } })
    expect(bodyRefusal({ code: 'FST_ERR_CTP_EMPTY_JSON_BODY' })?.status).toBe(400)
    expect(bodyRefusal({ code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE' })?.status).toBe(415)
    expect(bodyRefusal({ code: 'FST_ERR_RATE_LIMITED' })).toBeNull()
    expect(bodyRefusal({})).toBeNull()
  })

  it('accepts notifications and responses with 202 and no body, running nothing', async () => {
    const calls: OperationCall[] = []
    for (const body of [
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3 } },
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', id: 1, error: { code: -1, message: 'declined' } },
    ]) {
      const answer = await post(body, { execute: executor(calls) })
      expect(answer, JSON.stringify(body)).toEqual({ status: 202, headers: {}, body: '' })
    }
    expect(calls).toEqual([])
  })

  it('refuses an unsupported MCP-Protocol-Version with 400 naming the supported ones, except on initialize', async () => {
    const refused = errorOf(await post(rpc('tools/list'), { headers: { 'mcp-protocol-version': '1999-01-01' } }), 400)
    expect(refused.error.code).toBe(-32000)
    for (const version of SUPPORTED_PROTOCOL_VERSIONS) expect(refused.error.message).toContain(version)
    // Without the header (a 2025-03-26 client), and with each supported one, the call runs.
    const { 'mcp-protocol-version': _, ...without } = headers
    expect(resultOf(await server.handle({ headers: without, body: rpc('tools/list') }, { execute: executor() }))).toMatchObject({
      tools: expect.any(Array),
    })
    for (const version of SUPPORTED_PROTOCOL_VERSIONS)
      expect(resultOf(await post(rpc('ping'), { headers: { 'mcp-protocol-version': version } }))).toEqual({})
  })
})

describe('initialize', () => {
  const init = (protocolVersion: string) =>
    rpc('initialize', { protocolVersion, capabilities: {}, clientInfo: { name: 'test', version: '1' } })

  it('answers with the client version when supported, else the latest, and says who the server is', async () => {
    for (const version of SUPPORTED_PROTOCOL_VERSIONS) {
      const result = InitializeResultSchema.parse(
        resultOf(await post(init(version), { headers: { 'mcp-protocol-version': '1999-01-01' } })),
      )
      expect(result.protocolVersion).toBe(version)
    }
    const result = InitializeResultSchema.parse(resultOf(await post(init('2099-01-01'))))
    expect(result).toMatchObject({
      protocolVersion: LATEST_PROTOCOL_VERSION,
      serverInfo: { name: 'quire', version: '9.9.9' },
      capabilities: { tools: {}, resources: {} },
      instructions: expect.stringContaining('get_current_principal'),
    })
  })

  it("answers initialize params that are not the protocol's with -32602", async () => {
    for (const params of [undefined, {}, { protocolVersion: 5, capabilities: {}, clientInfo: { name: 't', version: '1' } }])
      expect(errorOf(await post(rpc('initialize', params))).error.code, JSON.stringify(params)).toBe(ErrorCode.InvalidParams)
  })
})

describe('methods', () => {
  it("answers ping, tools/list and resources/templates/list in the protocol's shapes", async () => {
    expect(resultOf(await post(rpc('ping')))).toEqual({})
    const listed = ListToolsResultSchema.parse(resultOf(await post(rpc('tools/list', { cursor: 'x' }), {}), 7))
    expect(listed.tools).toHaveLength(26)
    const templates = ListResourceTemplatesResultSchema.parse(resultOf(await post(rpc('resources/templates/list'))))
    expect(templates.resourceTemplates[0]?.uriTemplate).toContain('quire://')
  })

  it('answers an unknown method with -32601, keeping the id', async () => {
    for (const method of ['prompts/list', 'completion/complete', 'logging/setLevel', 'tools/delete']) {
      const { error, id } = errorOf(await post(rpc(method, {}, 'abc')))
      expect(error.code, method).toBe(ErrorCode.MethodNotFound)
      expect(id).toBe('abc')
    }
  })

  it("answers params that are not the method's with -32602", async () => {
    for (const [method, params] of [
      ['tools/call', undefined],
      ['tools/call', {}],
      ['tools/call', { name: 5 }],
      ['tools/call', { name: 'get_artifact', arguments: 'artifactId=x' }],
      ['tools/call', { name: 'get_artifact', arguments: [] }],
      ['tools/call', { name: 'no_such_tool', arguments: {} }],
      ['resources/read', {}],
      ['tools/list', { cursor: 5 }],
    ] as const)
      expect(errorOf(await post(rpc(method, params))).error.code, `${method} ${JSON.stringify(params)}`).toBe(ErrorCode.InvalidParams)
  })

  it('answers a failure it did not foresee with -32603, telling onError and the client nothing of it', async () => {
    const heard: [unknown, string][] = []
    const boom = new Error('the database caught fire')
    const answer = await post(rpc('resources/list'), {
      execute: async () => {
        throw boom
      },
      onError: (error, where) => heard.push([error, where]),
    })
    const { error } = errorOf(answer)
    expect(error).toEqual({ code: ErrorCode.InternalError, message: 'Internal error' })
    expect(answer.body).not.toContain('fire')
    expect(heard).toEqual([[boom, 'resources/list']])
  })
})

describe('tools/call', () => {
  it("runs the tool as the caller and answers a result of the protocol's shape, with the content window", async () => {
    const calls: OperationCall[] = []
    const result = CallToolResultSchema.parse(
      resultOf(
        await post(rpc('tools/call', { name: 'get_artifact_content', arguments: { artifactId, versionNumber: 2 } }), {
          execute: executor(calls),
        }),
      ),
    )
    expect(calls).toEqual([{ operation: 'getContent', input: { params: { artifactId }, query: { version: 2 }, body: undefined } }])
    expect(result.isError).toBeFalsy()
    expect(result.structuredContent).toEqual({ ...content, offset: 0, truncated: false, nextOffset: null })
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(result.structuredContent)
  })

  it('answers a call without arguments, task augmentation ignored (no tasks capability)', async () => {
    const result = CallToolResultSchema.parse(
      resultOf(await post(rpc('tools/call', { name: 'get_current_principal', task: { ttl: 1000 }, _meta: { progressToken: 1 } }))),
    )
    expect(result.structuredContent).toEqual({ id: 'usr_1', username: 'ada' })
  })

  it("answers failures (the operation's, arguments refused, a call that threw) as isError results of the protocol's shape", async () => {
    const heard: string[] = []
    for (const [args, execute, code] of [
      [{ artifactId }, executor(), 'not_found'],
      [{ artifactId: 5 }, executor(), 'validation_failed'],
      [
        { artifactId },
        async () => {
          throw new Error('down')
        },
        'internal_error',
      ],
    ] as const) {
      const answer = await post(rpc('tools/call', { name: 'get_artifact', arguments: args }), {
        execute,
        onError: (_error, tool) => heard.push(tool),
      })
      const result = CallToolResultSchema.parse(resultOf(answer))
      expect(result.isError, code).toBe(true)
      expect(result.structuredContent).toBeUndefined()
      expect(JSON.parse((result.content[1] as { text: string }).text).error.code).toBe(code)
    }
    expect(heard).toEqual(['get_artifact'])
  })
})
