import { type Static, Type } from 'typebox'

/**
 * The closed list of error codes. Every expected failure anywhere in Quire carries one of these;
 * the REST edge maps it to a status, the client back to a typed error, the CLI to an exit code
 * and MCP to an `isError` result. Adding a code is a contract change.
 */
export const errorCodes = {
  validation_failed: { status: 400, title: 'The request is not valid' },
  invalid_cursor: { status: 400, title: 'The pagination cursor is not valid' },
  unauthenticated: { status: 401, title: 'Authentication is required' },
  invalid_token: { status: 401, title: 'The credential is not valid' },
  forbidden: { status: 403, title: 'Not allowed' },
  insufficient_scope: { status: 403, title: 'The credential lacks a required scope' },
  not_found: { status: 404, title: 'Not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  not_acceptable: { status: 406, title: 'Not acceptable' },
  version_conflict: { status: 409, title: 'The artifact has moved on' },
  slug_taken: { status: 409, title: 'The slug is taken' },
  already_member: { status: 409, title: 'Already a member of the workspace' },
  invitation_pending: { status: 409, title: 'An invitation for this email is already pending' },
  idempotency_key_in_use: { status: 409, title: 'A request with this idempotency key is in progress' },
  payload_too_large: { status: 413, title: 'The request is too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  idempotency_key_reused: { status: 422, title: 'The idempotency key was used with a different request' },
  precondition_required: { status: 428, title: 'A precondition is required' },
  rate_limited: { status: 429, title: 'Too many requests' },
  internal_error: { status: 500, title: 'Internal error' },
  service_unavailable: { status: 503, title: 'Service unavailable' },
} as const satisfies Record<string, { status: number; title: string }>

/** A stable snake_case error code. */
export type ErrorCode = keyof typeof errorCodes

/** Every error code, in declaration order. */
export const ErrorCodes = Object.keys(errorCodes) as ErrorCode[]

/** The HTTP status that the REST surface uses for a code. */
export function statusOf(code: ErrorCode): number {
  return errorCodes[code].status
}

/** The problem type URI for a code (RFC 9457 `type`). */
export function problemType(code: ErrorCode): string {
  return `urn:quire:problem:${code}`
}

/** One field-level complaint inside a `validation_failed` problem. */
export const FieldError = Type.Object({
  path: Type.String({ description: 'JSON pointer to the offending value, e.g. `/body/slug`.' }),
  message: Type.String(),
})
export type FieldError = Static<typeof FieldError>

/**
 * RFC 9457 problem details, the body of every REST error. Extension members (for example
 * `latestVersion` on `version_conflict`) are allowed.
 */
export const Problem = Type.Object(
  {
    type: Type.String({ description: 'A URN naming the problem type: `urn:quire:problem:<code>`.' }),
    title: Type.String(),
    status: Type.Integer(),
    code: Type.Enum(ErrorCodes, { description: 'Stable machine-readable error code.' }),
    detail: Type.String({ description: 'What went wrong with this request, for humans.' }),
    requestId: Type.Optional(Type.String()),
    errors: Type.Optional(Type.Array(FieldError)),
  },
  { additionalProperties: true },
)
export type Problem = Static<typeof Problem>
