/**
 * `@quire/cli` as a library: run `quire` in-process (tests, wrappers) and read its catalog.
 * The binary is `dist/bin.js`.
 */
export { readEnvironment } from './config.ts'
export { commands } from './registry/commands.ts'
export { type CliOverrides, type CommandOverride, hiddenOf } from './registry/derive.ts'
export { globalFlags } from './registry/globals.ts'
export { operationCommands } from './registry/operations.ts'
export type { CommandSpec, OptionSpec } from './registry/types.ts'
export { CliError } from './run/cli-error.ts'
export type { Io } from './run/context.ts'
export { exitCodes } from './run/exit-codes.ts'
export { main } from './run/main.ts'
export { parseFlags } from './run/parse-flags.ts'
export { redact } from './run/redact.ts'
export { cliVersion } from './version.ts'
