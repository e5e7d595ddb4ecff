import { operations, scopesOf } from '@quire/core/contract'
import { environmentVariables } from '../config.ts'
import { commands } from '../registry/commands.ts'
import { globalFlags } from '../registry/globals.ts'
import type { Handler } from '../run/context.ts'
import { exitCodes } from '../run/exit-codes.ts'
import { cliVersion } from '../version.ts'

/** The catalog `quire schema` prints, from the same registry the parser is built from. */
export function catalog() {
  return {
    name: 'quire',
    version: cliVersion,
    globalFlags: globalFlags.map((f) => ({
      flag: `--${f.name}`,
      type: f.type,
      description: f.description,
      env: f.env ?? null,
      choices: f.choices ?? null,
    })),
    environment: environmentVariables.map((e) => ({ name: e.name, flag: e.flag, description: e.description })),
    exitCodes: Object.entries(exitCodes).map(([name, e]) => ({ code: e.code, name, meaning: e.meaning })),
    commands: commands.map((c) => {
      const op = c.operation ? operations[c.operation] : null
      const variant = c.variant ? operations[c.variant.operation] : null
      return {
        name: c.path.join(' '),
        // Other names of the command, in full (`artifact view` for `artifact get`).
        aliases: (c.aliases ?? []).map((alias) => [...c.path.slice(0, -1), alias].join(' ')),
        summary: c.summary,
        mutates: c.mutates,
        destructive: c.destructive === true,
        dryRun: c.mutates,
        output: c.output,
        calls: op ? { operationId: c.operation, method: op.method, path: op.path, scopes: scopesOf(op) } : null,
        // With its variant's flag, the command calls that operation instead (`artifact list --project`).
        ...(c.variant && variant
          ? {
              callsWith: {
                flag: `--${c.variant.flag}`,
                operationId: c.variant.operation,
                method: variant.method,
                path: variant.path,
                scopes: scopesOf(variant),
              },
            }
          : {}),
        positionals: (c.positionals ?? []).map((p) => ({
          name: p.name.toUpperCase(),
          flag: `--${p.flag}`,
          description: p.description,
          // It takes every word left (`quire search deploy -draft`).
          ...(p.kind === 'words' ? { variadic: true } : {}),
        })),
        examples: c.examples ?? [],
        options: [
          ...c.options.map((o) => ({
            flag: `--${o.name}`,
            type: o.type,
            required: o.required === true,
            description: o.description,
            choices: o.choices ?? null,
          })),
          ...(c.destructive
            ? [{ flag: '--yes', type: 'boolean', required: false, description: 'Do it without asking', choices: null }]
            : []),
        ],
      }
    }),
  }
}

export const schema: Handler = async () => {
  const value = catalog()
  return { kind: 'text', text: JSON.stringify(value, null, 2), value }
}
