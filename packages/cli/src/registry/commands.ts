import { accountCommands } from './commands/account.ts'
import { artifactCommands, pushCommand } from './commands/artifacts.ts'
import { mcpCommand } from './commands/mcp.ts'
import { pathCommands, projectCommands } from './commands/projects.ts'
import { schemaCommand, sessionCommands } from './commands/session.ts'
import { auditCommands, sharingCommands } from './commands/sharing.ts'
import { workspaceCommands } from './commands/workspaces.ts'
import type { CommandSpec } from './types.ts'

/**
 * The commands of `quire`, in the order of the specification's table: its rows, plus a few the
 * API offers that a user of the table would look for (workspace create and projects,
 * invitations, auth status), and `mcp` (the MCP tools over stdio). Each group lives in commands/
 * with the resource it drives; the parser, `--help`, `quire schema` and completion are all built
 * from this one list. Every operation is some command's `operation` or is in `hiddenOperations`
 * (registry/hidden.ts).
 */
export const commands: readonly CommandSpec[] = [
  ...sessionCommands,
  ...accountCommands,
  ...projectCommands,
  ...workspaceCommands,
  pushCommand,
  ...artifactCommands,
  ...pathCommands,
  ...sharingCommands,
  ...auditCommands,
  mcpCommand,
  schemaCommand,
]
