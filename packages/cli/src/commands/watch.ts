import { setTimeout as sleep } from 'node:timers/promises'
import { isQuireApiError, QuireNetworkError } from '@quire/client'
import { type ChangeEvent, type ChangeKind, type EventBatch, operations } from '@quire/core/contract'
import { parseArtifactReference } from '../run/artifact-reference.ts'
import { CliError } from '../run/cli-error.ts'
import type { Args, CommandContext, CommandResult, Handler } from '../run/context.ts'
import { get, pick } from '../run/output.ts'
import { parseProjectReference } from '../run/project-reference.ts'
import { redact } from '../run/redact.ts'
import { printable } from '../run/table.ts'

/**
 * `quire artifact watch` and `quire project watch`: the changes as they happen, one long poll of
 * `listEvents` after another, each from the last event id (the answer's `cursor`), until Ctrl-C.
 * One line per event on standard output; the status (watching, disconnected, reconnected,
 * stopped) on standard error. A dropped connection, a network error or a 5xx is waited out with
 * back-off and the follow goes on after the last event, so none is missed or shown twice; a
 * refusal (a revoked key, a missing scope, access lost) ends the command as every refusal does.
 */

/** Seconds each long poll waits for a first event: under the server's 30 and the client's time limit. */
export const WAIT_SECONDS = 25

/** The wait before reconnecting after the `failures`-th failure in a row (from 0): 0.5 s, 1, 2, 4, 8, then 10 s. */
export const backoffMs = (failures: number) => Math.min(500 * 2 ** failures, 10_000)

const EVENT_ID = /^(0|[1-9][0-9]{0,17})$/

/** What happened, in words, before "by <who>". */
const happened: { readonly [K in ChangeKind]: (event: ChangeEvent) => string } = {
  'artifact.created': (e) => `created, version ${e.versionNumber ?? 1}`,
  'artifact.version_created': (e) => `version ${e.versionNumber ?? '?'} appended`,
  'artifact.restored': (e) => `restored as version ${e.versionNumber ?? '?'}`,
  'artifact.deleted': () => 'deleted',
  'artifact.access_changed': () => 'access changed',
  'share_link.created': () => 'share link created',
  'share_link.revoked': () => 'share link revoked',
}

const two = (n: number) => String(n).padStart(2, '0')

/**
 * One event as a person reads it: `14:03:07  ada/notes/plan  version 5 appended by ada`. On a
 * terminal the local time of day; piped, the whole ISO 8601 time (a log keeps its date).
 */
export function eventLine(event: ChangeEvent, terminal: boolean): string {
  const at = new Date(event.at)
  const time = terminal ? `${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}` : event.at
  const what = Object.hasOwn(happened, event.kind) ? happened[event.kind](event) : String(event.kind)
  return `${time}  ${printable(event.path)}  ${what} by ${printable(event.actor.label)}`
}

/** The fields of an event, dotted one level into objects (`actor.label`), for --fields. */
function eventFields(): string[] {
  type Shape = { properties?: Record<string, Shape> }
  const batch = operations.listEvents.success.schema as unknown as { properties: { events: { items: Shape } } }
  return Object.entries(batch.properties.events.items.properties ?? {}).flatMap(([key, field]) => [
    key,
    ...Object.keys(field.properties ?? {}).map((inner) => `${key}.${inner}`),
  ])
}

/** Prints each event as the flags say: a line for people, a JSON object a line, or what --jq makes of each. */
async function printer(context: CommandContext): Promise<(event: ChangeEvent) => Promise<void>> {
  const { globals, io } = context
  const fields = globals.fields
  if (fields) {
    const known = eventFields()
    const unknown = fields.filter((f) => !known.includes(f))
    if (unknown.length)
      throw new CliError('usage', `Unknown field${unknown.length > 1 ? 's' : ''} for --fields: ${unknown.join(', ')}.`, {
        hint: `Available: ${known.filter((k) => !k.includes('.')).join(', ')}.`,
      })
  }
  const narrow = (event: ChangeEvent): unknown => (fields ? pick(event, fields) : event)
  const expression = globals.jq
  if (expression !== undefined) {
    const jq = await import('jq-wasm')
    return async (event) => {
      let out: string
      try {
        out = await jq.raw(narrow(event) as object, expression, ['-r'])
      } catch (error) {
        throw new CliError('usage', `--jq: ${(error as Error).message.split('\n')[0]}`, { hint: 'e.g. --jq ".path"' })
      }
      if (out !== '') io.stdout(out.endsWith('\n') ? out : `${out}\n`)
    }
  }
  if (globals.format === 'json' || globals.ndjson) return async (event) => io.stdout(`${JSON.stringify(narrow(event))}\n`)
  if (fields) {
    const cell = (value: unknown) =>
      value === null || value === undefined
        ? ''
        : typeof value === 'object'
          ? String((value as { label?: unknown }).label ?? JSON.stringify(value))
          : printable(String(value))
    return async (event) => io.stdout(`${fields.map((f) => cell(get(event, f))).join('  ')}\n`)
  }
  return async (event) => io.stdout(`${eventLine(event, io.stdoutIsTty)}\n`)
}

/**
 * Why a call failed, when that is worth reconnecting after: no answer (a dropped or refused
 * connection, a time limit), a server error, unavailability, rate limiting. Null for a refusal or
 * anything else, which ends the command.
 */
export function dropReason(error: unknown): string | null {
  if (error instanceof QuireNetworkError) {
    if (error.kind === 'timeout') return 'no answer in time'
    if (error.kind === 'invalid_response') return error.status !== null && error.status >= 500 ? `HTTP ${error.status}` : null
    const cause = error.cause instanceof Error ? error.cause.message : ''
    return cause || 'the connection failed'
  }
  if (isQuireApiError(error) && (error.status >= 500 || error.code === 'rate_limited'))
    return `${(error.detail || error.title).replace(/\.$/, '')} (HTTP ${error.status})`
  return null
}

/** What a watch follows: the query of `listEvents`, and the name the status lines give it. */
interface Target {
  readonly query: { readonly artifact: string } | { readonly project: string }
  readonly named: string
}

async function targetOf(context: CommandContext, args: Args): Promise<Target> {
  if (context.spec.path[0] === 'project') {
    const reference = args.project as string | undefined
    if (reference === undefined)
      throw new CliError('usage', 'Missing PROJECT or --project: the project to watch, as OWNER/PROJECT.', {
        hint: 'e.g. quire project watch ada/notes',
      })
    const { owner, projectSlug } = parseProjectReference('project', reference)
    return { query: { project: `${owner}/${projectSlug}` }, named: `${owner}/${projectSlug}` }
  }
  const reference = args.artifactId as string | undefined
  if (reference === undefined)
    throw new CliError('usage', 'Missing ARTIFACT or --artifact-id: the artifact to watch.', {
      hint: 'e.g. quire artifact watch ada/notes/plan',
    })
  const parsed = parseArtifactReference(reference)
  const named = 'id' in parsed ? parsed.id : `${parsed.owner}/${parsed.projectSlug}/${parsed.slug}`
  // Followed by its id: a path would stop answering once the artifact is deleted, before its deletion is seen.
  return { query: { artifact: await context.artifactId(reference) }, named }
}

export const watch: Handler = async (context, args): Promise<CommandResult> => {
  const after = args.after === undefined ? undefined : String(args.after)
  if (after !== undefined && !EVENT_ID.test(after))
    throw new CliError('usage', `--after takes an event id (a whole number, e.g. 41), not ${JSON.stringify(after)}.`, {
      hint: 'Give the N of "resume with --after N", or the id of an event you saw.',
    })
  const { io, globals } = context
  const print = await printer(context)
  const target = await targetOf(context, args)
  const client = await context.client()
  // Status lines are for people: not with --quiet, nor where standard output is JSON (as progress is).
  const say = (line: string) => {
    if (!globals.quiet && globals.format !== 'json' && !globals.ndjson) io.stderr(`${redact(line)}\n`)
  }

  const stop = new AbortController()
  const stopListening = io.onInterrupt?.(() => stop.abort()) ?? (() => {})
  let cursor = after
  try {
    // The first call answers at once: where "now" is (or that --after is an id this server gave), and
    // that the credential may follow this. Only then does it say it is watching; a failure here is the command's.
    let wait = 0
    let watching = false
    let failures = 0
    while (!stop.signal.aborted) {
      let batch: EventBatch
      try {
        const query = { ...target.query, ...(cursor === undefined ? {} : { after: cursor }), wait }
        batch = await client.call('listEvents', { query }, { signal: stop.signal })
      } catch (error) {
        if (stop.signal.aborted) break
        const reason = watching ? dropReason(error) : null
        if (reason === null) throw error
        const retryAfter = isQuireApiError(error) && error.retryAfter !== null ? error.retryAfter * 1000 : 0
        const delay = Math.max(backoffMs(failures), retryAfter)
        failures += 1
        say(`Disconnected: ${reason}. Reconnecting in ${delay / 1000} s after event ${String(cursor)}…`)
        // Reconnected means answered: the next call does not wait, so the line comes at once.
        wait = 0
        await sleep(delay, undefined, { signal: stop.signal }).catch(() => {})
        continue
      }
      if (!watching) say(`Watching ${target.named}. Ctrl-C stops.`)
      else if (failures > 0) say(`Reconnected; resuming after event ${String(cursor)}.`)
      watching = true
      failures = 0
      for (const event of batch.events) await print(event)
      cursor = batch.cursor
      wait = WAIT_SECONDS
    }
  } finally {
    stopListening()
  }
  // On a terminal the ^C it echoed ends no line: the status starts on a line of its own.
  const fresh = io.stderrIsTty ? '\n' : ''
  say(`${fresh}${cursor === undefined ? 'Stopped.' : `Stopped; resume with --after ${cursor}.`}`)
  // Every event is printed already: nothing is left to render.
  return { kind: 'stream', items: (async function* () {})() }
}
