import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js'
import {
  ErrorCode,
  InitializeRequestSchema,
  LATEST_PROTOCOL_VERSION,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  PingRequestSchema,
  ReadResourceRequestSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js'
import { kindOf, type RpcRequest, toolCallParams } from './jsonrpc.ts'
import { artifactTemplate, listResources, readResource } from './resources.ts'
import { resultJson } from './results.ts'
import { type CallContext, callTool, serverIdentity, toolListingFor, toolNamed, unknownTool } from './server.ts'

/** One HTTP request as the edge received it: the body already parsed (JSON) under the edge's size limit. */
export interface McpHttpRequest {
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>
  readonly body: unknown
}

/** The answer to send: a status, headers and a body (JSON, or empty for a notification's 202). */
export interface McpHttpResponse {
  readonly status: number
  readonly headers: Record<string, string>
  readonly body: string
}

const json = { 'content-type': 'application/json' }

/**
 * A refusal in the shape of the Streamable HTTP transport's own: a JSON-RPC error with no id, as
 * JSON. `code` is -32000 where HTTP refuses (an Origin, a method, an Accept), as the SDK's
 * transport does; a JSON-RPC code (`ErrorCode.InvalidRequest`, `ErrorCode.ParseError`) where the
 * message is refused.
 */
export function rpcRefusal(status: number, message: string, code: number = -32000): McpHttpResponse {
  return { status, headers: json, body: JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }) }
}

/**
 * The refusal of a body the edge's JSON parser refused (its error `code`, Fastify's), or null
 * for any other error: a body that is not JSON is a parse error (HTTP 400, -32700), a
 * `Content-Type` that is not JSON an unsupported media type (415).
 */
export function bodyRefusal(error: { readonly code?: string }): McpHttpResponse | null {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return rpcRefusal(400, 'Parse error: the body is not valid JSON.', ErrorCode.ParseError)
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return rpcRefusal(415, 'Unsupported Media Type: Content-Type must be application/json')
    default:
      return null
  }
}

/** The answer to a request: HTTP 200 carrying its JSON-RPC result (as JSON) or error (a protocol error is not an HTTP one). */
function answer(id: string | number, member: { resultJson: string } | { error: { code: number; message: string; data?: unknown } }) {
  const body =
    'resultJson' in member
      ? `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${member.resultJson}}`
      : JSON.stringify({ jsonrpc: '2.0', id, error: member.error })
  return { status: 200, headers: json, body }
}

const accepted: McpHttpResponse = { status: 202, headers: {}, body: '' }

function header(request: McpHttpRequest, name: string): string | undefined {
  const value = request.headers[name]
  return value === undefined || typeof value === 'string' ? value : value.join(', ')
}

const versions: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS

/** The SDK's request schemas, for the methods off the hot path: their `params` checked in full, or -32602. */
function paramsOf<T>(
  schema: { safeParse(value: unknown): { success: true; data: T } | { success: false; error: Error } },
  request: RpcRequest,
): T {
  const parsed = schema.safeParse(request)
  if (!parsed.success) throw new McpError(ErrorCode.InvalidParams, `Invalid params for ${request.method}: ${parsed.error.message}`)
  return parsed.data
}

/** The stateless Streamable HTTP side of the server: one per process, answering any number of requests. */
export interface StatelessHttpServer {
  /** Answers one `POST /mcp` whose caller the edge has identified; `context` runs its operations as that caller. */
  handle(request: McpHttpRequest, context: CallContext): Promise<McpHttpResponse>
}

/**
 * MCP's stateless Streamable HTTP transport (protocol 2025-11-25, JSON responses, no
 * `Mcp-Session-Id`) answered from the body the edge already parsed, by one dispatcher built once
 * per process: nothing survives a request, so any process answers any call and a restart between
 * two calls breaks nothing. What the specification asks of the transport holds, in the SDK's
 * words where it has them:
 * - `Accept` must name `application/json` and `text/event-stream` (406), `Content-Type` must be
 *   JSON (415);
 * - a JSON-RPC batch (an array body) is refused whole with 400 and -32600 before any of its
 *   messages runs: batches left MCP in protocol 2025-06-18, and one body must not run many calls
 *   on what the edge counts as one request (one unit of its rate limit, one scope check);
 * - a body that is no JSON-RPC message of MCP is 400 and -32600 (Invalid Request);
 * - `MCP-Protocol-Version`, when sent on anything but `initialize`, must be one the SDK supports
 *   (400 naming them); `initialize` negotiates: the client's version when supported, else the latest;
 * - notifications and responses are accepted with 202 and no body;
 * - an unknown method is -32601, params that are not the method's -32602 (checked against the
 *   SDK's request schemas, or for `tools/call` by `toolCallParams`, then the tool's own input schema).
 * Our own results are not parsed again on the way out: `test/results.test.ts` and the SDK client
 * in the web app's tests hold every kind of tool result to the protocol's schema.
 */
export function statelessHttpServer(options: { readonly version: string }): StatelessHttpServer {
  const identity = serverIdentity(options.version)

  /** The result of a request, as JSON. */
  async function dispatch(request: RpcRequest, context: CallContext): Promise<string> {
    if (request.method === 'tools/call') {
      const params = toolCallParams(request.params)
      if (params === null)
        throw new McpError(ErrorCode.InvalidParams, 'Invalid params for tools/call: `name` must be a string, `arguments` an object.')
      const tool = toolNamed(params.name)
      if (!tool) throw unknownTool(params.name)
      return resultJson(await callTool(tool, params.arguments, context))
    }
    return JSON.stringify(await otherMethod(request, context))
  }

  async function otherMethod(request: RpcRequest, context: CallContext): Promise<unknown> {
    switch (request.method) {
      case 'initialize': {
        const { params } = paramsOf(InitializeRequestSchema, request)
        const protocolVersion = versions.includes(params.protocolVersion) ? params.protocolVersion : LATEST_PROTOCOL_VERSION
        const unusable = (await context.unusable?.()) ?? null
        return { protocolVersion, ...(unusable === null ? identity : serverIdentity(options.version, unusable)) }
      }
      case 'ping':
        paramsOf(PingRequestSchema, request)
        return {}
      case 'tools/list':
        paramsOf(ListToolsRequestSchema, request)
        return toolListingFor((await context.unusable?.()) ?? null)
      case 'resources/templates/list':
        paramsOf(ListResourceTemplatesRequestSchema, request)
        return { resourceTemplates: [artifactTemplate] }
      case 'resources/list':
        return listResources(context.execute, paramsOf(ListResourcesRequestSchema, request).params?.cursor)
      case 'resources/read':
        return readResource(context.execute, paramsOf(ReadResourceRequestSchema, request).params.uri)
      default:
        throw new McpError(ErrorCode.MethodNotFound, 'Method not found')
    }
  }

  return {
    async handle(request, context) {
      const { body } = request
      if (Array.isArray(body))
        return rpcRefusal(
          400,
          'Invalid Request: JSON-RPC batches are not supported (MCP removed them in protocol 2025-06-18): send one message per request.',
          ErrorCode.InvalidRequest,
        )
      const accept = header(request, 'accept')
      if (!accept?.includes('application/json') || !accept.includes('text/event-stream'))
        return rpcRefusal(406, 'Not Acceptable: Client must accept both application/json and text/event-stream')
      if (!isJsonContentType(header(request, 'content-type')))
        return rpcRefusal(415, 'Unsupported Media Type: Content-Type must be application/json')
      const kind = kindOf(body)
      if (kind === null)
        return rpcRefusal(
          400,
          'Invalid Request: the body is not a JSON-RPC 2.0 request, notification or response of MCP.',
          ErrorCode.InvalidRequest,
        )
      const message = body as RpcRequest
      if (message.method !== 'initialize') {
        const version = header(request, 'mcp-protocol-version')
        if (version !== undefined && !versions.includes(version))
          return rpcRefusal(400, `Bad Request: Unsupported protocol version: ${version} (supported versions: ${versions.join(', ')})`)
      }
      if (kind !== 'request') return accepted
      try {
        return answer(message.id, { resultJson: await dispatch(message, context) })
      } catch (error) {
        if (error instanceof McpError)
          return answer(message.id, {
            error: { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) },
          })
        context.onError?.(error, message.method)
        return answer(message.id, { error: { code: ErrorCode.InternalError, message: 'Internal error' } })
      }
    },
  }
}
