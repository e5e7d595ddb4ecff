import { operations, scopesOf } from '@quire/core/contract'
import { globalFlags } from '../registry/globals.ts'
import type { CommandSpec } from '../registry/types.ts'
import { serverCanDryRun } from './call-operation.ts'
import type { Node } from './command-line.ts'
import { flagUsage } from './command-line.ts'
import { exitCodes } from './exit-codes.ts'
import { otherWays } from './input.ts'

/**
 * `--help`, rendered from the registry: what the command does, how to type it, its own flags
 * first, then the global ones, examples, and what each exit code means.
 */

export const groupSummaries: Readonly<Record<string, string>> = {
  auth: 'Credentials: where the token comes from',
  profile: 'Your profile',
  keys: 'API keys',
  agent: 'The agents you claimed (auth.md)',
  project: 'Projects',
  workspace: 'Team workspaces, members and invitations',
  artifact: 'Artifacts and their versions',
  access: "An artifact's access settings",
  path: 'Find projects and artifacts by path',
  share: 'Share links',
  audit: 'The audit trail',
  webhook: 'Webhooks: changes delivered to a URL, signed',
}

function rows(pairs: readonly (readonly [string, string])[]): string[] {
  const width = Math.min(40, Math.max(...pairs.map(([left]) => left.length)))
  return pairs.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`.trimEnd())
}

function globalSection(): string[] {
  return [
    'Global flags:',
    ...rows(
      globalFlags.map((flag) => [
        flagUsage({ name: flag.name, type: flag.type, ...(flag.choices ? { choices: flag.choices } : {}) }),
        flag.description + (flag.env ? ` [env ${flag.env}]` : ''),
      ]),
    ),
  ]
}

function exitSection(): string[] {
  return ['Exit codes:', ...rows(Object.values(exitCodes).map((e) => [String(e.code), e.meaning]))]
}

/** `(required)`, or how else a required input may be given. */
function requirementOf(spec: CommandSpec, option: CommandSpec['options'][number]): string {
  if (!option.required) return ''
  const { positional, json } = otherWays(spec, option)
  return positional ? `(or give ${positional})` : json ? '(required, here or in --json)' : '(required)'
}

/** The scopes a token needs for the command's operation, as its row derives them (none: no line). */
function scopesSection(spec: CommandSpec): string[] {
  const ids = [spec.operation, spec.variant?.operation].filter((id) => id != null)
  const needed = [...new Set(ids.flatMap((id) => scopesOf(operations[id])))]
  return needed.length ? ['', `Scopes: ${needed.join(', ')} (a token needs each).`] : []
}

function commandHelp(spec: CommandSpec): string[] {
  const positionals = spec.positionals ?? []
  const usage = [
    'quire',
    ...spec.path,
    ...positionals.map((p) => `[${p.name.toUpperCase()}${p.kind === 'words' ? '...' : ''}]`),
    '[flags]',
  ].join(' ')
  const own = [
    ...spec.options.map((option) => {
      const requirement = requirementOf(spec, option)
      const example = option.example && option.type !== 'boolean' ? ` (e.g. ${option.example})` : ''
      const choices = option.choices && option.choices.length > 4 ? ` One of: ${option.choices.join(', ')}.` : ''
      return [flagUsage(option), `${option.description}${requirement ? ` ${requirement}` : ''}${example}.${choices}`] as const
    }),
    ...(spec.destructive ? [['--yes, -y', 'Do it without asking (needed when standard input is not a terminal)'] as const] : []),
  ]
  return [
    spec.summary,
    '',
    `Usage: ${usage}`,
    ...(spec.aliases?.length
      ? ['', `Aliases: ${spec.aliases.map((a) => ['quire', ...spec.path.slice(0, -1), a].join(' ')).join(', ')}`]
      : []),
    ...(positionals.length ? ['', 'Arguments:', ...rows(positionals.map((p) => [p.name.toUpperCase(), p.description]))] : []),
    ...(own.length ? ['', 'Flags:', ...rows(own)] : []),
    ...(spec.mutates && spec.operation
      ? [
          '',
          serverCanDryRun(spec.operation)
            ? 'With --dry-run, the server checks everything (access, scopes, limits, the expected version or a taken slug) and says what it would do; nothing is written.'
            : 'With --dry-run, prints the request and sends nothing.',
        ]
      : []),
    ...scopesSection(spec),
    '',
    ...globalSection(),
    ...(spec.examples?.length ? ['', 'Examples:', ...spec.examples.map((e) => `  $ ${e}`)] : []),
    '',
    ...exitSection(),
  ]
}

function groupHelp(node: Node): string[] {
  const name = ['quire', ...node.path].join(' ')
  const leaf = (child: Node) => {
    const summary = child.spec?.summary ?? groupSummaries[child.path.at(-1) ?? ''] ?? ''
    return child.aliases.length ? `${summary} (alias: ${child.aliases.join(', ')})` : summary
  }
  const lines = [...node.children.values()].map((child) => [child.path.at(-1) ?? '', leaf(child)] as const)
  const root = node.path.length === 0
  return [
    root
      ? 'quire: publish versioned documents, share them, and see every change (Quire).'
      : (groupSummaries[node.path.at(-1) ?? ''] ?? name),
    '',
    `Usage: ${name} <${root ? 'command' : 'subcommand'}> [flags]`,
    '',
    root ? 'Commands:' : 'Subcommands:',
    ...rows(lines),
    '',
    ...globalSection(),
    ...(root
      ? [
          '',
          'Examples:',
          '  $ quire login',
          '  $ quire push --owner ada --project-slug notes --file plan.md',
          '  $ quire artifact content ada/notes/plan',
          '  $ quire artifact list --format json --fields url,latestVersion',
        ]
      : []),
    '',
    `${name} <${root ? 'command' : 'subcommand'}> --help shows its flags and examples.`,
    ...(root ? ['', ...exitSection(), '', 'Docs: https://github.com/quire/quire/tree/main/packages/cli'] : []),
  ]
}

/** The help text for a node of the command tree (a command, a group, or the root). */
export function helpText(node: Node): string {
  return `${(node.spec ? commandHelp(node.spec) : groupHelp(node)).join('\n')}\n`
}
