import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
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
 * Answers one `POST /mcp` with a fresh server and a stateless Streamable HTTP transport (no
 * `Mcp-Session-Id`, JSON responses): nothing survives the request, so any process answers any
 * call and a restart between two calls breaks nothing. A transport never serves a second request
 * (the SDK refuses that). The transport answers 406 (wrong `Accept`), 415 and 400 (unsupported
 * `MCP-Protocol-Version`, a message that is not JSON-RPC). It works on web-standard `Request`s,
 * so the edge keeps its own reply (its headers and hooks) instead of handing the socket over.
 */
export async function handleHttpRequest(request: McpHttpRequest, options: McpServerOptions): Promise<McpHttpResponse> {
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
