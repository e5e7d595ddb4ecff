import type { OperationId } from '@quire/core/contract'
import { CliError } from './cli-error.ts'
import type { Args, CommandContext, CommandResult } from './context.ts'
import { describe, operationInput } from './input.ts'

/** The request a mutating command would send (credential redacted), as `--dry-run` shows it. */
export async function dryRunResult(context: CommandContext, operation: OperationId, input: object): Promise<CommandResult> {
  const client = await context.client()
  const request = await client.dryRun(operation, input as never)
  const value = { dryRun: true, ...request, body: request.body === undefined ? undefined : JSON.parse(request.body) }
  const text = [
    `${request.method} ${request.url}`,
    ...Object.entries(request.headers).map(([k, v]) => `${k}: ${v}`),
    '',
    request.body ?? '',
  ].join('\n')
  return { kind: 'text', text, value }
}

/** Destructive commands go ahead with --yes, or when the person confirms on a terminal. */
export async function confirmDestructive(context: CommandContext, what: string): Promise<void> {
  if (!context.spec.destructive || context.globals.yes || context.globals.dryRun) return
  if (!context.interactive)
    throw new CliError('usage', `Refusing to ${what.charAt(0).toLowerCase()}${what.slice(1)} without confirmation.`, {
      hint: 'Pass --yes to confirm (needed when standard input is not a terminal or with --no-input).',
    })
  if (!(await context.confirm(`${what}?`))) throw new CliError('cancelled', 'Cancelled; nothing was changed.')
}

/** The default handler: the command's one REST call, with its flags mapped to the operation's input. */
export async function callOperation(context: CommandContext, args: Args): Promise<CommandResult> {
  const { spec } = context
  const operation = spec.operation as OperationId
  const input = await operationInput(context, args)
  await confirmDestructive(context, describe(spec, args))
  if (spec.mutates && context.globals.dryRun) return dryRunResult(context, operation, input)
  const client = await context.client()
  if (spec.output === 'list' && context.globals.ndjson)
    return { kind: 'stream', items: client.paginate(operation as never, input as never) }
  const value = await client.call(operation, input as never)
  if (spec.output === 'list') {
    // A page may say more than its items (the trail of a deleted artifact says so).
    const { items, nextCursor, ...extra } = value as { items: unknown[]; nextCursor: string | null }
    return { kind: 'page', items, nextCursor, ...(Object.keys(extra).length ? { extra } : {}) }
  }
  const named = args.artifactId
  return { kind: 'value', value, ...(typeof named === 'string' ? { named } : {}) }
}
