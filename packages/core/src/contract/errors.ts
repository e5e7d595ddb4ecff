import { type Static, Type } from 'typebox'

/**
 * The closed list of error codes. Every expected failure anywhere in Quire carries one of these,
 * with what it means and whether the same request may succeed later (`retryable`: after a wait,
 * a refresh of state, or the server's recovery, with nothing changed by the caller). Each surface
 * maps them at its edge: REST to an HTTP status, the client back to a typed error, the CLI to an
 * exit code and MCP to an `isError` result. Adding a code is a contract change.
 */
export const errorCodes = {
  validation_failed: { retryable: false, title: 'The request is not valid' },
  invalid_cursor: { retryable: false, title: 'The pagination cursor is not valid' },
  unauthenticated: { retryable: false, title: 'Authentication is required' },
  invalid_token: { retryable: false, title: 'The credential is not valid' },
  forbidden: { retryable: false, title: 'Not allowed' },
  insufficient_scope: { retryable: false, title: 'The credential lacks a required scope' },
  not_found: { retryable: false, title: 'Not found' },
  method_not_allowed: { retryable: false, title: 'Method not allowed' },
  not_acceptable: { retryable: false, title: 'Not acceptable' },
  version_conflict: { retryable: false, title: 'The artifact has moved on' },
  slug_taken: { retryable: false, title: 'The slug is taken' },
  already_member: { retryable: false, title: 'Already a member of the workspace' },
  invitation_pending: { retryable: false, title: 'An invitation for this email is already pending' },
  idempotency_key_in_use: { retryable: true, title: 'A request with this idempotency key is in progress' },
  payload_too_large: { retryable: false, title: 'The request is too large' },
  unsupported_media_type: { retryable: false, title: 'Unsupported media type' },
  idempotency_key_reused: { retryable: false, title: 'The idempotency key was used with a different request' },
  precondition_required: { retryable: false, title: 'A precondition is required' },
  rate_limited: { retryable: true, title: 'Too many requests' },
  internal_error: { retryable: true, title: 'Internal error' },
  service_unavailable: { retryable: true, title: 'Service unavailable' },
} as const satisfies Record<string, { retryable: boolean; title: string }>

/** A stable snake_case error code. */
export type ErrorCode = keyof typeof errorCodes

/** Every error code, in declaration order. */
export const ErrorCodes = Object.keys(errorCodes) as ErrorCode[]

/** The problem type URI for a code (RFC 9457 `type`). */
export function problemType(code: ErrorCode): string {
  return `urn:quire:problem:${code}`
}

/** One field-level complaint inside a `validation_failed` problem. */
export const FieldError = Type.Object({
  path: Type.String({ description: 'JSON pointer to the offending value, e.g. `/body/slug`.' }),
  message: Type.String({ description: 'What is wrong with it, read after the field name, e.g. `is not an allowed field`.' }),
})
export type FieldError = Static<typeof FieldError>

/**
 * What an agent whose credential lacks a scope can do next (`insufficient_scope` for an agent
 * token only): ask its person for the scope (`step_up`), or hand the action to its person on a web
 * page (`person`) when no agent may hold the scope on this deployment.
 */
export const HandOff = Type.Object(
  {
    kind: Type.Union([Type.Literal('step_up'), Type.Literal('person')], {
      description:
        '`step_up`: the person may grant the scope (POST `url`); `person`: no agent may hold it here, the person does the action at `url`.',
    }),
    scope: Type.String({ description: 'The scope the credential lacks.' }),
    url: Type.String({ description: '`step_up`: the scope request endpoint; `person`: the web page where the person does the action.' }),
    instruction: Type.String({
      description: '`step_up`: what the agent does next; `person`: one sentence the agent can relay to its person.',
    }),
    personUrl: Type.Optional(Type.String({ description: 'On `step_up`: the page where the person could do the action themselves.' })),
  },
  { description: 'On `insufficient_scope` for an agent token: what the agent can do next (see /auth.md, "When a scope is missing").' },
)
export type HandOff = Static<typeof HandOff>

/**
 * RFC 9457 problem details, the body of every REST error. Extension members (for example
 * `latestVersion` on `version_conflict`) are allowed.
 */
export const Problem = Type.Object(
  {
    type: Type.String({ description: 'A URN naming the problem type: `urn:quire:problem:<code>`.' }),
    title: Type.String({ description: 'A short summary of the problem type, the same for every problem with this code.' }),
    status: Type.Integer({ description: 'The HTTP status code of this answer.' }),
    code: Type.Enum(ErrorCodes, { description: 'Stable machine-readable error code.' }),
    detail: Type.String({ description: 'What went wrong with this request, for humans.' }),
    requestId: Type.Optional(Type.String({ description: 'The request id (also in `X-Request-Id`), to quote when reporting a problem.' })),
    errors: Type.Optional(Type.Array(FieldError, { description: 'On `validation_failed`: each invalid value and what is wrong with it.' })),
    suggestions: Type.Optional(
      Type.Array(Type.String(), {
        description:
          'On `slug_taken`, and on a `validation_failed` for a reserved slug: up to 3 free, valid alternatives, best first (e.g. `status-reports`, `status-2`).',
      }),
    ),
    handOff: Type.Optional(HandOff),
  },
  { additionalProperties: true },
)
export type Problem = Static<typeof Problem>
