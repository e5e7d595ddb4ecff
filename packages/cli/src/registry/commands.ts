import { commandEntries } from './entries.ts'
import type { CommandSpec } from './types.ts'

/**
 * The commands of `quire`, every row derived (registry/entries.ts has their order): `--help` of
 * the whole CLI, `quire schema`, the completion scripts and the surface check read them all.
 */
export const commands: readonly CommandSpec[] = commandEntries.map((entry) => entry.spec())
