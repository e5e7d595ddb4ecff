import type { OperationId } from '@quire/core/contract'

/** Where a flag's value goes in the operation's input. `body` (the whole body) is for `--json`. */
export type InputTarget = `params.${string}` | `query.${string}` | `body.${string}` | 'body'

export interface OptionSpec {
  /** The flag without dashes, kebab-case: `artifact-id` is `--artifact-id`. */
  readonly name: string
  readonly type: 'string' | 'number' | 'boolean' | 'array'
  readonly description: string
  readonly required?: boolean
  readonly choices?: readonly string[]
  /** Where the value goes in the REST call; absent for flags a custom handler reads itself. */
  readonly to?: InputTarget
}

/** What a command prints on success (text mode; JSON mode always prints the value). */
export type OutputShape = 'object' | 'list'

/**
 * One command of `quire`, as data. The yargs tree, `--help`, `quire schema` and shell completion
 * are all built from these rows, so they cannot disagree.
 */
export interface CommandSpec {
  /** `['artifact', 'get']` is `quire artifact get`. */
  readonly path: readonly string[]
  readonly summary: string
  /**
   * The REST operation the command calls (the spec: "each command calls one REST endpoint"), or
   * null for a command of the CLI's own (login, logout, auth status, schema). Never left out: with
   * `hiddenOperations` it accounts for every row of the operation table (see registry/hidden.ts).
   */
  readonly operation: OperationId | null
  readonly options: readonly OptionSpec[]
  /** Changes something on the server (or in the credential store): `--dry-run` applies. */
  readonly mutates: boolean
  /** Destroys or hides data: needs `--yes` when it cannot ask. */
  readonly destructive?: boolean
  readonly output: OutputShape
  /** For text output of lists: the columns shown, in order. */
  readonly columns?: readonly string[]
  /** For text output of an object: print this field raw instead (content, a diff). */
  readonly textField?: string
  /** A handler of its own (lazy-loaded module under commands/); otherwise the operation is called with the mapped flags. */
  readonly handler?: HandlerName
  readonly examples?: readonly string[]
}

/** Commands with their own handler module (see run/handlers.ts). */
export type HandlerName = 'login' | 'logout' | 'authStatus' | 'push' | 'schema' | 'mcp'
