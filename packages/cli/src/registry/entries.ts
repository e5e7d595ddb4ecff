import { commandEntriesOf } from './derive.ts'
import { operationCommands } from './operations.ts'
import { artifactWatch, authStatus, completion, edit, login, logout, mcp, open, projectWatch, push, schema } from './own-commands.ts'
import type { CommandEntry, CommandSpec } from './types.ts'

const derived = commandEntriesOf(operationCommands)
/** The derived commands of these top-level groups, in the order of the operation map. */
const groups = (...names: string[]) => derived.filter((c) => names.includes(c.path[0] ?? ''))
const own = (spec: CommandSpec): CommandEntry => ({ path: spec.path, ...(spec.aliases ? { aliases: spec.aliases } : {}), spec: () => spec })

/**
 * The commands of `quire`, in the order of the specification's table: the commands derived from
 * the operation table (registry/operations.ts), with the CLI's own (registry/own-commands.ts)
 * where a reader of the table looks for them. The parser, `--help`, `quire schema` and the
 * completion scripts are all built from this one list; a command's row is derived when it is
 * first used, so running one command derives one.
 */
export const commandEntries: readonly CommandEntry[] = [
  ...groups('health', 'whoami'),
  own(login),
  own(logout),
  own(authStatus),
  ...groups('profile', 'keys', 'agent', 'project'),
  own(projectWatch),
  ...groups('workspace'),
  own(push),
  ...groups('artifact'),
  own(edit),
  own(open),
  own(artifactWatch),
  ...groups('search', 'path', 'share', 'audit', 'events', 'webhook'),
  own(mcp),
  own(schema),
  own(completion),
]
