import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  type Implementation,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type ServerCapabilities,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js'
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv'
import type { Scope } from '@quire/core'
import type { Execute } from './execute.ts'
import { artifactTemplate, listResources, readResource } from './resources.ts'
import { failureResult, successResult } from './results.ts'
import { type CompiledTool, compileTool } from './tools/compile.ts'
import { shapeOutput } from './tools/output.ts'
import { tools } from './tools/table.ts'

/** The tool table, compiled once per process: schemas, annotations, scopes. */
export const compiledTools: readonly CompiledTool[] = tools.map(compileTool)
const byName = new Map(compiledTools.map((tool) => [tool.name, tool]))

/** A tool of the table by name (the HTTP edge asks which scopes a `tools/call` needs before the call runs). */
export function toolNamed(name: string): CompiledTool | undefined {
  return byName.get(name)
}

/** The answer to `tools/list`: every tool of the table, in one page. */
export const toolListing: { tools: Tool[] } = {
  tools: compiledTools.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema as Tool['inputSchema'],
    outputSchema: tool.outputSchema as Tool['outputSchema'],
    annotations: tool.annotations,
  })),
}

/**
 * The validator the SDK's server keeps for schemas a client sends (elicitation answers). Ours
 * never changes, so every server shares one.
 */
const jsonSchemaValidator = new AjvJsonSchemaValidator()

const instructions = [
  'Quire publishes versioned documents ("artifacts") in projects under an owner namespace (a username or a team workspace).',
  'Start with get_current_principal (your namespace) and list_projects or list_artifacts; resolve_path turns a web path like owner/project/slug into ids.',
  'Every change is a new immutable version: update_artifact needs the latestVersion you read as expectedLatestVersion, and a conflict shows the diff you missed.',
  'Failures come back as tool results with isError and a JSON error (code, retryable) naming the next step.',
].join(' ')

/** The tools a caller can never use (they need scopes it may never hold), and why, in a sentence for the instructions. */
export interface UnusableTools {
  readonly names: ReadonlySet<string>
  readonly why: string
}

/**
 * What an agent can never use on this deployment: every tool needing a scope outside what agents
 * may hold (`AUTH_MD_ALLOWED_SCOPES`). Null when every tool is within reach (a step-up may be needed).
 */
export function unusableTools(holdable: readonly Scope[], webUrl: string): UnusableTools | null {
  const unusable = compiledTools.filter((tool) => tool.scopes.some((scope) => !holdable.includes(scope)))
  if (unusable.length === 0) return null
  const missing = [...new Set(unusable.flatMap((tool) => tool.scopes.filter((scope) => !holdable.includes(scope))))]
  return {
    names: new Set(unusable.map((tool) => tool.name)),
    why: `Not listed: ${unusable.map((tool) => tool.name).join(', ')}. They need ${missing.map((s) => `\`${s}\``).join(', ')}, which no agent may hold on this Quire; the person you work for does those in the web app (${webUrl}), and a call to one answers with the page to send them to.`,
  }
}

/** `tools/list` for a caller: every tool, or all but those it can never use. */
export function toolListingFor(unusable: UnusableTools | null): { tools: Tool[] } {
  return unusable === null ? toolListing : { tools: toolListing.tools.filter((tool) => !unusable.names.has(tool.name)) }
}

/** What the server says of itself on `initialize`, over any transport. */
export function serverIdentity(
  version: string,
  unusable: UnusableTools | null = null,
): {
  serverInfo: Implementation
  capabilities: ServerCapabilities
  instructions: string
} {
  return {
    serverInfo: { name: 'quire', title: 'Quire', version, websiteUrl: 'https://github.com/quire' },
    capabilities: { tools: {}, resources: {} },
    instructions: unusable === null ? instructions : `${instructions} ${unusable.why}`,
  }
}

/** The protocol error for a `tools/call` naming no tool of the table (-32602, as the MCP specification says). */
export function unknownTool(name: string): McpError {
  return new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}. tools/list names the ${compiledTools.length} tools.`)
}

export interface McpServerOptions {
  /** Runs the operations (bindingExecutor here, clientExecutor against a remote Quire). */
  readonly execute: Execute
  /** The server's version (the package's), reported on initialize. */
  readonly version: string
  /** Told about a tool call that threw (a bug or an outage): the caller gets `internal_error`, never a stack. */
  readonly onError?: (error: unknown, tool: string) => void
}

/** What one call runs with: the executor of its caller, and who hears of a call that threw. */
export type CallContext = Pick<McpServerOptions, 'execute' | 'onError'> & {
  /** The tools this caller can never use (asked on `initialize` and `tools/list` only), or none. */
  readonly unusable?: () => Promise<UnusableTools | null>
}

/** Runs one tool call: parse, call the operation, shape the answer; every failure a tool result. */
export async function callTool(tool: CompiledTool, rawArgs: unknown, options: CallContext): Promise<CallToolResult> {
  const parsed = tool.parse(rawArgs)
  if (!parsed.ok) return failureResult(parsed.error)
  const { call, args } = parsed.value
  try {
    const result = await options.execute(call)
    if (!result.ok) return failureResult(result.error)
    const shaped = shapeOutput(tool.spec, call.operation, result.value, args)
    return shaped.ok ? successResult(shaped.value as Record<string, unknown>) : failureResult(shaped.error)
  } catch (error) {
    options.onError?.(error, tool.name)
    return failureResult({
      code: 'internal_error',
      message: 'Quire failed to complete this call; nothing is known to have changed. Try again.',
    })
  }
}

/**
 * A Quire MCP server on the SDK's `Server`: the 26 tools of the tool table and the artifact
 * resources, over whatever SDK transport it is connected to (`quire mcp` keeps one for the
 * process on stdio). The web app's stateless HTTP path answers the same methods from one
 * long-lived dispatcher instead (`http.ts`).
 */
export function createMcpServer(options: McpServerOptions): Server {
  const { serverInfo, capabilities } = serverIdentity(options.version)
  const server = new Server(serverInfo, { capabilities, instructions, jsonSchemaValidator })
  server.setRequestHandler(ListToolsRequestSchema, () => toolListing)
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = byName.get(request.params.name)
    if (!tool) throw unknownTool(request.params.name)
    return callTool(tool, request.params.arguments, options)
  })
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: [artifactTemplate] }))
  server.setRequestHandler(ListResourcesRequestSchema, (request) => listResources(options.execute, request.params?.cursor))
  server.setRequestHandler(ReadResourceRequestSchema, (request) => readResource(options.execute, request.params.uri))
  return server
}
