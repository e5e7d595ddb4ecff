import type { OperationId, operations } from '@quire/core/contract'
import { words } from '../registry/derive.ts'
import { accessInWords } from '../registry/operations.ts'
import type { Fields } from '../registry/types.ts'
import { CliError } from './cli-error.ts'
import type { Args, CommandContext, CommandResult } from './context.ts'
import { describe, operationInput, operationOf } from './input.ts'

/** The request a mutating command would send (credential redacted), as `--dry-run` shows it. */
async function dryRunResult(context: CommandContext, operation: OperationId, input: object): Promise<CommandResult> {
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

type Previewable = { [K in OperationId]: (typeof operations)[K] extends { readonly dryRun: object } ? K : never }[OperationId]

/**
 * What a server dry run says, for each operation the server can dry-run (a row with `dryRun`; a
 * missing one does not compile): the one line, from the server's answer and the artifact as named.
 */
const previewLines: { readonly [K in Previewable]: (value: Fields, named: string) => string } = {
  createArtifact: (value) => {
    const made = value.wouldCreate as Fields
    const where = `${String(made.ownerUsername)}/${String(made.projectSlug)}/${String(made.slug)}`
    return `Would create ${where} version 1 (${String(made.size)} bytes, ${accessInWords(made.access as Fields)}): ${String(made.url)}; nothing was written.`
  },
  appendVersion: (value, named) =>
    `Would append version ${String((value.wouldCreate as Fields).versionNumber)} to ${named}; nothing was written.`,
  restoreVersion: (value, named) => {
    const made = value.wouldCreate as Fields
    return `Would restore version ${String(made.restoredFrom)} of ${named} as version ${String(made.versionNumber)}; nothing was written.`
  },
  updateArtifactAccess: (value, named) => {
    const changed = value.changed as string[]
    const settings = accessInWords(value.wouldBe as Fields)
    return changed.length === 0
      ? `Would change nothing on ${named} (access stays ${settings}).`
      : `Would change ${changed.map(words).join(', ')} of ${named}: access would be ${settings}. Nothing was written.`
  },
}

/** True when the server can dry-run the operation (its row has `dryRun`). */
export function serverCanDryRun(operation: OperationId): operation is Previewable {
  return Object.hasOwn(previewLines, operation)
}

/**
 * `--dry-run` of a write the server can dry-run: the same request with `dryRun=true`, which runs
 * every check of the write and changes nothing; the answer is the server's. Its errors are the
 * write's (a conflict, a refusal), so they show as the write's would.
 */
async function serverDryRun(context: CommandContext, operation: Previewable, input: object, named?: string): Promise<CommandResult> {
  const client = await context.client()
  const asked = input as { query?: object }
  const value = (await client.call(operation, { ...asked, query: { ...asked.query, dryRun: true } } as never)) as unknown as Fields
  const says = previewLines[operation](value, named ?? String(value.artifactId))
  const withheld = (value.diffWithheld as Fields | undefined)?.detail
  return {
    kind: 'preview',
    value,
    says,
    ...(typeof value.diff === 'string' ? { diff: value.diff } : {}),
    ...(typeof withheld === 'string' ? { note: `No diff: ${withheld}` } : {}),
  }
}

/** `--dry-run`: the server's preview where it can give one, else the planned request. */
export async function preview(context: CommandContext, operation: OperationId, input: object, named?: string): Promise<CommandResult> {
  return serverCanDryRun(operation) ? serverDryRun(context, operation, input, named) : dryRunResult(context, operation, input)
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
  const operation = operationOf(spec, args) as OperationId
  const input = await operationInput(context, args)
  await confirmDestructive(context, describe(spec, args))
  const named = typeof args.artifactId === 'string' ? args.artifactId : undefined
  if (spec.mutates && context.globals.dryRun) return preview(context, operation, input, named)
  const client = await context.client()
  if (spec.output === 'list' && context.globals.ndjson)
    return { kind: 'stream', items: client.paginate(operation as never, input as never) }
  const value = await client.call(operation, input as never)
  if (spec.output === 'list') {
    // A page may say more than its items (the trail of a deleted artifact says so).
    const { items, nextCursor, ...extra } = value as { items: unknown[]; nextCursor: string | null }
    const empty = items.length === 0 ? spec.empty?.(args) : undefined
    return { kind: 'page', items, nextCursor, ...(Object.keys(extra).length ? { extra } : {}), ...(empty ? { empty } : {}) }
  }
  if (spec.report) {
    const { list, diff, note } = spec.report
    const fields = value as Fields
    const rows = (list.split('.').reduce<unknown>((at, key) => (at as Fields | undefined)?.[key], value) ?? []) as unknown[]
    const text = note?.(fields)
    return { kind: 'report', value, rows, diff: diff ? String(fields[diff] ?? '') : '', ...(text ? { note: text } : {}) }
  }
  return { kind: 'value', value, ...(named ? { named } : {}) }
}
