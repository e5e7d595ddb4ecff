import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js'
import { createMcpServer, type McpServerOptions } from './server.ts'

/** One HTTP request as the edge received it: the body already parsed under the edge's size limit. */
export interface McpHttpRequest {
  readonly url: string
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>
  readonly body: unknown
}

/** The answer to send: a status, headers and a body (JSON, or empty for a notification's 202). */
export interface McpHttpResponse {
  readonly status: number
  readonly headers: Record<string, string>
  readonly body: string
}

/**
 * A refusal in the shape the SDK's Streamable HTTP transport gives its own: a JSON-RPC error with
 * no id, as JSON. `code` is -32000 where HTTP refuses (an Origin, a method), as the SDK's own
 * refusals; a JSON-RPC code (`ErrorCode.InvalidRequest`) where the message is refused.
 */
export function rpcRefusal(status: number, message: string, code: number = -32000): McpHttpResponse {
  return {
    status,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }),
  }
}

/**
 * Answers one `POST /mcp` with a fresh server and a stateless Streamable HTTP transport (no
 * `Mcp-Session-Id`, JSON responses): nothing survives the request, so any process answers any
 * call and a restart between two calls breaks nothing. A transport never serves a second request
 * (the SDK refuses that). The transport answers 406 (wrong `Accept`), 415 and 400 (unsupported
 * `MCP-Protocol-Version`, a message that is not JSON-RPC). It works on web-standard `Request`s,
 * so the edge keeps its own reply (its headers and hooks) instead of handing the socket over.
 *
 * A JSON-RPC batch (an array body) is refused whole with 400 and -32600, as the SDK refuses an
 * invalid request, before any of its messages runs: batches left MCP in protocol 2025-06-18, and
 * the SDK would run up to 100 calls on what the edge counts as one request.
 */
export async function handleHttpRequest(request: McpHttpRequest, options: McpServerOptions): Promise<McpHttpResponse> {
  if (Array.isArray(request.body))
    return rpcRefusal(
      400,
      'Invalid Request: JSON-RPC batches are not supported (MCP removed them in protocol 2025-06-18): send one message per request.',
      ErrorCode.InvalidRequest,
    )
  const server = createMcpServer(options)
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
  const headers = new Headers()
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === 'string') headers.set(name, value)
    else if (value !== undefined) for (const one of value) headers.append(name, one)
  }
  try {
    await server.connect(transport)
    const response = await transport.handleRequest(new Request(request.url, { method: 'POST', headers }), {
      parsedBody: request.body,
    })
    return { status: response.status, headers: Object.fromEntries(response.headers), body: await response.text() }
  } finally {
    await transport.close()
    await server.close()
  }
}

/** Serves the same tools over stdio (`quire mcp`) until the input ends; resolves when the server is connected. */
export async function serveStdio(
  options: McpServerOptions,
  streams: { input?: NodeJS.ReadableStream; output?: NodeJS.WritableStream } = {},
): Promise<{ closed: Promise<void> }> {
  const server = createMcpServer(options)
  const transport = new StdioServerTransport(streams.input as never, streams.output as never)
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve()
  })
  await server.connect(transport)
  return { closed }
}
