/**
 * `@quire/cli` as a library: run `quire` in-process (tests, wrappers) and read its catalog.
 * The binary is `dist/bin.js`.
 */
export { readEnvironment } from './config.ts'
export { commands } from './registry/commands.ts'
export { globalFlags } from './registry/globals.ts'
export { type HiddenOperations, hiddenOperations } from './registry/hidden.ts'
export type { CommandSpec, OptionSpec } from './registry/types.ts'
export { CliError } from './run/cli-error.ts'
export type { Io } from './run/context.ts'
export { exitCodes } from './run/exit-codes.ts'
export { main, parser } from './run/main.ts'
export { redact } from './run/redact.ts'
export { cliVersion } from './version.ts'
