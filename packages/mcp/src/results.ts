import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { errorCodes, type Failure } from '@quire/core'

/**
 * The error a failed tool call carries (our one error schema, as REST's problem body): the stable
 * `code`, whether the same call may succeed later, what went wrong, and the members that help
 * (`scope` the credential lacks and, for an agent, its `handOff`; `errors` per field,
 * `latestVersion` and `diff` on a conflict, `suggestions` for a refused slug).
 */
export interface ToolError {
  readonly code: Failure['code']
  readonly retryable: boolean
  readonly title: string
  readonly detail: string
  readonly scope?: string
  readonly errors?: ReadonlyArray<{ path: string; message: string }>
  readonly [member: string]: unknown
}

export function toolErrorOf(failure: Failure): ToolError {
  const { retryable, title } = errorCodes[failure.code]
  return {
    code: failure.code,
    retryable,
    title,
    detail: failure.message,
    ...(failure.scope ? { scope: failure.scope } : {}),
    ...(failure.errors ? { errors: failure.errors } : {}),
    ...failure.meta,
  }
}

/** Why a conflict's diff was left out (the credential may not read the content), or null. */
function withheldOf(error: ToolError): string | null {
  const detail = (error.diffWithheld as { detail?: unknown } | undefined)?.detail
  return typeof detail === 'string' ? detail : null
}

/** The free slugs a refusal offers instead of the one asked for (a reserved or taken slug), or none. */
function suggestionsOf(error: ToolError): string[] {
  return Array.isArray(error.suggestions) ? error.suggestions.filter((s): s is string => typeof s === 'string') : []
}

/** "Free slugs instead: `a`, `b`." (or nothing), the sentence an agent acts on. */
function suggestionLine(error: ToolError): string {
  const free = suggestionsOf(error)
  return free.length === 0 ? '' : ` Free slugs instead: ${free.map((s) => `\`${s}\``).join(', ')}.`
}

/** An agent's hand-off on a missing scope (`HandOff` in the contract), or null. */
function handOffOf(error: ToolError): { kind: 'step_up' | 'person'; instruction: string } | null {
  const handOff = error.handOff as { kind?: unknown; instruction?: unknown } | undefined
  return (handOff?.kind === 'step_up' || handOff?.kind === 'person') && typeof handOff.instruction === 'string'
    ? { kind: handOff.kind, instruction: handOff.instruction }
    : null
}

/** What an agent should do next, for each kind of failure: the sentence that lets it recover on its own. */
function nextStep(error: ToolError): string {
  switch (error.code) {
    case 'validation_failed':
      return `Fix the arguments named above and call the tool again.${suggestionLine(error)}`
    case 'invalid_cursor':
      return 'Start the listing again without `cursor`, then pass each `nextCursor` back unchanged.'
    case 'unauthenticated':
    case 'invalid_token':
      return 'The connection has no valid credential: reconnect (sign in again, or configure a valid API key).'
    case 'insufficient_scope': {
      const handOff = handOffOf(error)
      if (handOff?.kind === 'step_up') return `${handOff.instruction} Until then, do not call this tool again.`
      if (handOff?.kind === 'person') return `Do not retry: relay this to your person: "${handOff.instruction}"`
      return `The credential lacks the \`${error.scope ?? 'required'}\` scope: reconnect with a key or sign-in that grants it, or ask the user to.`
    }
    case 'forbidden':
      return 'Your role does not allow this: ask an owner or admin of the workspace, or use another artifact.'
    case 'not_found':
      return 'Check the id or path: list_artifacts and resolve_path find artifacts; something you may not see is reported as not found too.'
    case 'version_conflict': {
      const latest = typeof error.latestVersion === 'number' ? error.latestVersion : 'the latest'
      if (withheldOf(error) !== null)
        return `Merge what you know of the changes into your content, and call update_artifact again with expectedLatestVersion ${latest}.`
      return `Read version ${latest} (get_artifact_content), merge your change into it (the diff above is what you missed), and call update_artifact again with expectedLatestVersion ${latest}.`
    }
    case 'precondition_required':
      return 'Pass `expectedLatestVersion`: the `latestVersion` that get_artifact returns.'
    case 'slug_taken':
      return `Choose another slug (check_project_slug_availability tells which project slugs are free; create_artifact with \`dryRun: true\` checks an artifact slug, writing nothing).${suggestionLine(error)}`
    case 'payload_too_large':
      return 'Make the content smaller than the limit named above.'
    case 'idempotency_key_reused':
      return 'Use a new `idempotencyKey` for a different request.'
    case 'rate_limited':
      return `Wait${typeof error.retryAfter === 'number' ? ` ${error.retryAfter} s` : ''} and call again.`
    default:
      return error.retryable ? 'Call again in a moment.' : 'This call cannot succeed as it is.'
  }
}

/**
 * A failure as a tool result (never a protocol error): `isError`, a sentence with the next step
 * for hosts that show text, and the error itself as JSON. (No `structuredContent`: it must match
 * the tool's output schema, which describes success.)
 */
export function failureResult(failure: Failure): CallToolResult {
  const error = toolErrorOf(failure)
  const lines = [`${error.title} (${error.code}): ${error.detail}`]
  if (error.errors && error.code === 'validation_failed' && !error.detail.includes('`'))
    lines.push(...error.errors.map(({ path, message }) => `- ${path} ${message}`))
  if (typeof error.diff === 'string' && error.diff !== '') lines.push('', 'What changed since the version you expected:', error.diff)
  const withheld = withheldOf(error)
  if (withheld !== null) lines.push('', `No diff: ${withheld}`)
  lines.push('', nextStep(error))
  return {
    isError: true,
    content: [
      { type: 'text', text: lines.join('\n') },
      { type: 'text', text: JSON.stringify({ error }) },
    ],
  }
}

/** The JSON text of each success made here: it is its own `structuredContent`'s JSON too, so `resultJson` writes it once. */
const texts = new WeakMap<CallToolResult, string>()

/**
 * A success: the structured answer, and the same answer as JSON in a text block, as MCP asks of a
 * tool that returns structured content (for hosts that read text only). A document or a diff is a
 * member of that JSON like any other field, never the block's text by itself. The JSON is compact:
 * a host parses it, and indenting it cost more than the rest of the answer's serialisation.
 */
export function successResult(structured: Record<string, unknown>): CallToolResult {
  const text = JSON.stringify(structured)
  const result: CallToolResult = { content: [{ type: 'text', text }], structuredContent: structured }
  texts.set(result, text)
  return result
}

/**
 * A tool result as JSON, exactly `JSON.stringify(result)`: a success made by `successResult`
 * reuses its text block as its `structuredContent` instead of serialising the answer twice
 * (`test/results.test.ts` holds the two equal).
 */
export function resultJson(result: CallToolResult): string {
  const text = texts.get(result)
  if (text === undefined) return JSON.stringify(result)
  return `{"content":[{"type":"text","text":${JSON.stringify(text)}}],"structuredContent":${text}}`
}
