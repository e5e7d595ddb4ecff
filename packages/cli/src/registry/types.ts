import type { OperationId } from '@quire/core/contract'

/** Where a flag's value goes in the operation's input. `body` (the whole body) is for `--json`; `body.a.b` is a nested field. */
export type InputTarget = `params.${string}` | `query.${string}` | `body.${string}` | 'body'

export interface OptionSpec {
  /** The flag without dashes, kebab-case: `artifact-id` is `--artifact-id`. */
  readonly name: string
  readonly type: 'string' | 'number' | 'boolean' | 'array'
  readonly description: string
  /** Must be given (or, for a body field, be in `--json`). */
  readonly required?: boolean
  readonly choices?: readonly string[]
  /** The schema's format (`date-time`, `email`): the value is checked before anything is sent. */
  readonly format?: string
  /** A value to show in help and in an error about this flag. */
  readonly example?: string
  /** The value names a file (`-`: standard input) whose text is sent: `--content-file`, push's `--file`. */
  readonly file?: boolean
  /** Where the value goes in the REST call; absent for flags a custom handler reads itself. */
  readonly to?: InputTarget
  /**
   * The value names a project, `OWNER/PROJECT` or its web URL: its owner goes to `params.owner`,
   * its slug to `params.projectSlug` (`artifact list --project`).
   */
  readonly project?: true
}

/** A word on the command line that is not a flag: `quire artifact get alice/notes/hello`. */
export interface PositionalSpec {
  readonly name: string
  readonly description: string
  /**
   * `artifact`: an artifact's id, `OWNER/PROJECT/SLUG` or its web URL, resolved to the id the
   * flag `--artifact-id` carries (either may be given). `id`: the value of the flag of this name.
   * `words`: every word left, joined with spaces, as typed (`quire search deploy -draft`); last.
   */
  readonly kind: 'artifact' | 'id' | 'words'
  /** The flag the positional stands for (`artifact-id`). */
  readonly flag: string
}

/** A result object as a `says` line reads it. */
export type Fields = Readonly<Record<string, unknown>>

/**
 * What a command prints on success (text mode; JSON mode always prints the value): one object, a
 * list, or a stream of items as they come until it is stopped (`artifact watch`: a line each; JSON
 * mode, one object per line).
 */
export type OutputShape = 'object' | 'list' | 'stream'

/** A piece of a table cell's text; `match` is shown highlighted on a terminal (a search snippet's segments). */
export interface Segment {
  readonly text: string
  readonly match: boolean
}

/** A column of a list table: a field (dotted for nested) and its header. */
export interface Column {
  readonly field: string
  readonly header: string
  /** The cell made from the whole row, in segments, instead of the field's value. */
  readonly cell?: (row: Fields) => readonly Segment[]
  /** On a terminal, this column takes the width the others leave, and its cells are cut to it with …. */
  readonly fill?: boolean
}

/**
 * One command of `quire`, as data. The yargs tree, `--help`, `quire schema` and shell completion
 * are all built from these rows, so they cannot disagree.
 */
export interface CommandSpec {
  /** `['artifact', 'get']` is `quire artifact get`. */
  readonly path: readonly string[]
  /**
   * Other last words that name the same command (`view` for `artifact get`, gh's habit): the parser
   * takes them, help lists them with the command, completion offers them, `quire schema` names them.
   */
  readonly aliases?: readonly string[]
  readonly summary: string
  /**
   * The REST operation the command calls (the spec: "each command calls one REST endpoint"), or
   * null for a command of the CLI's own (login, logout, auth status, schema, edit, open). With
   * `hidden` (registry/operations.ts) every row of the operation table is accounted for.
   */
  readonly operation: OperationId | null
  /**
   * Another operation the command runs instead when this flag is given (`artifact list --project
   * OWNER/PROJECT` lists one project's artifacts): its answer has the same schema, so the output is
   * the command's; the flag is among `options`.
   */
  readonly variant?: { readonly flag: string; readonly operation: OperationId }
  readonly positionals?: readonly PositionalSpec[]
  readonly options: readonly OptionSpec[]
  /** Changes something on the server (or in the credential store): `--dry-run` applies. */
  readonly mutates: boolean
  /** Destroys or hides data: needs `--yes` when it cannot ask. */
  readonly destructive?: boolean
  readonly output: OutputShape
  /** For text output of lists: the columns shown, in order. */
  readonly columns?: readonly Column[]
  /** For text output of a list with no items: the line on standard error, from the flags (default "No items."). */
  readonly empty?: (args: Fields) => string
  /** For text output of an object: print this field raw instead (content, a diff). */
  readonly textField?: string
  /**
   * For text output of an object that holds a list and a diff (catch-up): a table of the rows at
   * `list` (dotted) with `columns`, then the diff at `diff` if any, and `note` on standard error.
   */
  readonly report?: {
    readonly list: string
    readonly diff?: string
    readonly note?: (value: Fields) => string | null
  }
  /** For text output of a write: the one line that says what happened, from the result. */
  readonly says?: (value: Fields, named?: string) => string
  /** A handler of its own (lazy-loaded module under commands/); otherwise the operation is called with the mapped flags. */
  readonly handler?: HandlerName
  readonly examples?: readonly string[]
}

/**
 * A command before its row is made: the words that name it, and its row, derived from the
 * operation's schemas on first use. The command line is read down a tree of these, so a command
 * derives only its own row (start-up, bench/cli).
 */
export interface CommandEntry {
  readonly path: readonly string[]
  /** The row's `aliases`, known before the row is made (the parser's tree holds them). */
  readonly aliases?: readonly string[]
  readonly spec: () => CommandSpec
}

/** Commands with their own handler module (see run/handlers.ts). */
export type HandlerName = 'login' | 'logout' | 'authStatus' | 'push' | 'schema' | 'mcp' | 'edit' | 'open' | 'completion' | 'watch'
