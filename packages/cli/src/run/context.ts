import type { QuireClient } from '@quire/client'
import type { CliEnvironment } from '../config.ts'
import type { CommandSpec } from '../registry/types.ts'
import type { resolveArtifact } from './artifact-reference.ts'

/** The global flags after parsing, with the environment folded in (flags win). */
export interface Globals {
  readonly baseUrl: string
  /** --web-url / AGENT_SERVICE_WEB_URL; undefined: discovered from the API's resource metadata. */
  readonly webUrl: string | undefined
  /** --token (the flag only; the environment's token is resolved with the stored one). */
  readonly token: string | undefined
  readonly tokenStdin: boolean
  readonly format: 'json' | 'text'
  readonly ndjson: boolean
  readonly quiet: boolean
  /** false with --no-input or AGENT_SERVICE_NO_INPUT=1. */
  readonly input: boolean
  readonly debug: boolean
  readonly dryRun: boolean
  readonly yes: boolean
  /** false with --no-color, NO_COLOR or TERM=dumb; colour also needs a terminal. */
  readonly color: boolean
  /** --fields: only these fields of each result. */
  readonly fields: readonly string[] | undefined
  /** --jq: a jq filter over the JSON result. */
  readonly jq: string | undefined
}

/** Where the bearer token of a call came from, strongest first. */
export type TokenSourceName = 'flag' | 'stdin' | 'env' | 'keyring' | 'none'

export interface ResolvedToken {
  readonly token: string | null
  readonly source: TokenSourceName
}

/** The streams and terminal facts a command may use; tests swap them. */
export interface Io {
  readonly stdout: (text: string) => void
  readonly stderr: (text: string) => void
  readonly stdinIsTty: boolean
  readonly stdoutIsTty: boolean
  readonly stderrIsTty: boolean
  /** The terminal's width in columns, when standard output is a terminal that says. */
  readonly stdoutColumns?: number
  /** All of standard input, as text. */
  readonly readStdin: () => Promise<string>
  /**
   * Calls `listener` on the first Ctrl-C (SIGINT) instead of letting it end the process (a second
   * one does, as usual), for a command that stops cleanly (`artifact watch`); returns what stops
   * listening. Absent: Ctrl-C is not listened for.
   */
  readonly onInterrupt?: (listener: () => void) => () => void
}

/** Everything a command handler gets. */
export interface CommandContext {
  readonly spec: CommandSpec
  readonly globals: Globals
  readonly env: CliEnvironment
  readonly io: Io
  /** May the CLI ask the person something (stdin is a terminal and input is not disabled)? */
  readonly interactive: boolean
  /** The bearer token for the base URL, by precedence (resolved once). */
  token(): Promise<ResolvedToken>
  /** A client for the base URL with that token. */
  client(): Promise<QuireClient>
  /** A progress line on standard error (not with --quiet). */
  progress(message: string): void
  /** Asks a yes/no question on the terminal; false when it cannot ask. */
  confirm(question: string): Promise<boolean>
  /** The artifact id a flag or positional names: an id as is, OWNER/PROJECT/SLUG or a URL resolved by path. */
  artifactId(reference: string): Promise<string>
  /** The artifact a flag or positional names, in one read (by id, or by path). */
  artifact(reference: string): ReturnType<typeof resolveArtifact>
}

/** The flags of one command, by their camelCase names (yargs gives both spellings). */
export type Args = Readonly<Record<string, unknown>>

/** What a command produced; output.ts renders it in the chosen format. */
export type CommandResult =
  /** `named`: the artifact as the person named it (ada/notes/plan), for the line a write prints. */
  | { readonly kind: 'value'; readonly value: unknown; readonly named?: string }
  /** One page of a list. */
  | {
      readonly kind: 'page'
      readonly items: readonly unknown[]
      readonly nextCursor: string | null
      readonly extra?: Readonly<Record<string, unknown>>
      /** What text mode says when there are no items (the command's `empty`). */
      readonly empty?: string
    }
  /** Every item across pages (--ndjson). */
  | { readonly kind: 'stream'; readonly items: AsyncIterable<unknown> }
  /** Raw text for standard output (content, diffs); JSON mode prints `value` instead. */
  | { readonly kind: 'text'; readonly text: string; readonly value: unknown }
  /**
   * The server's answer to a dry run: one line saying what would happen, then its diff if any, or
   * `note` (on standard error) saying why the server left it out; JSON mode prints `value`.
   */
  | { readonly kind: 'preview'; readonly value: unknown; readonly says: string; readonly diff?: string; readonly note?: string }
  /** A table of some of `value`'s rows, then a diff (catch-up); JSON mode prints `value`. */
  | {
      readonly kind: 'report'
      readonly value: unknown
      readonly rows: readonly unknown[]
      readonly diff: string
      readonly note?: string
    }

export type Handler = (context: CommandContext, args: Args) => Promise<CommandResult>
