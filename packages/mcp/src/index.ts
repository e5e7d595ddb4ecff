/**
 * `@quire/mcp`: Quire's MCP server. The 26 tools (the spec's 22, get_artifact_changes, wait_for_changes, list_project_artifacts and search_artifacts) are one table (`tools`), each row
 * naming the operation of the operation table it runs; input and output schemas, annotations and
 * scopes are derived from that operation. `statelessHttpServer` answers them over stateless Streamable HTTP (one per process) and
 * `createMcpServer` over any SDK transport (stdio), with
 * the operations run here (`bindingExecutor`, the web app's `/mcp`) or on a remote Quire
 * (`clientExecutor`, `quire mcp` over stdio).
 */
export { type TextWindow, windowOf } from './content-window.ts'
export { toolCatalogMarkdown } from './docs.ts'
export { bindingExecutor, clientExecutor, type Execute } from './execute.ts'
export {
  bodyRefusal,
  type McpHttpRequest,
  type McpHttpResponse,
  rpcRefusal,
  type StatelessHttpServer,
  statelessHttpServer,
} from './http.ts'
export { artifactTemplate, artifactUri, mimeTypes, RESOURCE_NOT_FOUND } from './resources.ts'
export { failureResult, type ToolError, toolErrorOf } from './results.ts'
export {
  type CallContext,
  callTool,
  compiledTools,
  createMcpServer,
  type McpServerOptions,
  toolNamed,
  type UnusableTools,
  unusableTools,
} from './server.ts'
export { type CompiledTool, inputSchemaOf, type OperationCall, type ToolAnnotations } from './tools/compile.ts'
export type { ExtraField, FieldSource, ToolSpec } from './tools/define.ts'
export { hiddenOperations } from './tools/hidden.ts'
export { CONTENT_WINDOW_BYTES, type ToolName, tools } from './tools/table.ts'
export { serveStdio } from './transports.ts'
