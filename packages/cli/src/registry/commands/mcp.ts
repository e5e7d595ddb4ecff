import type { CommandSpec } from '../types.ts'

/**
 * `quire mcp`: the MCP server of `@quire/mcp` (the same 22 tools as the web app's `/mcp`) over
 * stdio, for MCP hosts that launch local servers. It calls no one operation of its own: each tool
 * call is a REST call made with the CLI's credential, named `mcp` in the audit trail.
 */
export const mcpCommand: CommandSpec = {
  path: ['mcp'],
  summary:
    'Serve the Quire MCP tools over stdio (for MCP hosts that launch local servers), calling the API with the credential other commands use',
  operation: null,
  options: [],
  // The tools change things, but not this command: the host's calls do (and --dry-run cannot apply to them).
  mutates: false,
  output: 'object',
  handler: 'mcp',
  examples: ['quire mcp', 'AGENT_SERVICE_TOKEN="$QUIRE_KEY" quire mcp --base-url https://api.quire.example'],
}
