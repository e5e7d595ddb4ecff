import type { ExitName } from './exit-codes.ts'

export interface CliErrorOptions {
  /** A next step for the person. */
  readonly hint?: string
  /** The stable machine-readable code (default: the exit name). */
  readonly code?: string
  /** Extra fields for JSON mode (`latestVersion` of a conflict, the request id…). */
  readonly details?: Readonly<Record<string, unknown>>
}

/**
 * A failure the CLI reports itself: one line saying what went wrong, a next step when there is
 * one, and the exit code. `code` is stable for scripts (in JSON mode it is `error.code`).
 */
export class CliError extends Error {
  readonly exit: ExitName
  readonly options: CliErrorOptions

  constructor(exit: ExitName, message: string, options: CliErrorOptions = {}) {
    super(message)
    this.name = 'CliError'
    this.exit = exit
    this.options = options
  }

  get code(): string {
    return this.options.code ?? this.exit
  }
}
