import { deriveCommands } from './derive.ts'
import { operationCommands } from './operations.ts'
import { authStatus, completion, edit, login, logout, mcp, open, push, schema } from './own-commands.ts'
import type { CommandSpec } from './types.ts'

const derived = deriveCommands(operationCommands)
/** The derived commands of these top-level groups, in the order of the operation map. */
const groups = (...names: string[]) => derived.filter((c) => names.includes(c.path[0] ?? ''))

/**
 * The commands of `quire`, in the order of the specification's table: the commands derived from
 * the operation table (registry/operations.ts), with the CLI's own (registry/own-commands.ts)
 * where a reader of the table looks for them. The parser, `--help`, `quire schema` and the
 * completion scripts are all built from this one list.
 */
export const commands: readonly CommandSpec[] = [
  ...groups('health', 'whoami'),
  login,
  logout,
  authStatus,
  ...groups('profile', 'keys', 'agent', 'project', 'workspace'),
  push,
  ...groups('artifact'),
  edit,
  open,
  ...groups('path', 'share', 'audit'),
  mcp,
  schema,
  completion,
]
