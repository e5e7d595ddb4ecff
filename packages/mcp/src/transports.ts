import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { createMcpServer, type McpServerOptions } from './server.ts'

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
