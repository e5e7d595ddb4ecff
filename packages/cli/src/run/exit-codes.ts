import type { ErrorCode } from '@quire/core/contract'

/**
 * The exit codes, documented in the README and in `quire schema`. Scripts branch on these, so
 * they never change meaning: 0 success, 1 anything unexpected, and one code per failure a script
 * can act on.
 */
export const exitCodes = {
  ok: { code: 0, meaning: 'Success.' },
  error: { code: 1, meaning: 'Unexpected failure (a server error, a bug); --debug shows the stack.' },
  usage: { code: 2, meaning: 'Usage: unknown command or flag, a missing or invalid value, or input the API refused as invalid.' },
  not_found: { code: 3, meaning: 'Not found (or not visible to this credential).' },
  auth_required: { code: 4, meaning: 'Authentication required: no credential, or it is invalid, expired or revoked. Run `quire login`.' },
  forbidden: { code: 5, meaning: 'The credential may not do this (role or scope).' },
  conflict: { code: 6, meaning: 'Conflict: the artifact moved on (version conflict), the slug is taken, or similar; nothing was written.' },
  unavailable: { code: 7, meaning: 'The service could not be reached, is unavailable, or is rate limiting; try again later.' },
  credential_store: { code: 8, meaning: 'The OS credential store (Secret Service) is not available; nothing was stored.' },
  cancelled: { code: 130, meaning: 'Cancelled (Ctrl-C, or a confirmation declined).' },
} as const

export type ExitName = keyof typeof exitCodes

/** The exit code for an API error code. */
export function exitNameOf(code: ErrorCode): ExitName {
  switch (code) {
    case 'validation_failed':
    case 'invalid_cursor':
    case 'payload_too_large':
    case 'unsupported_media_type':
    case 'method_not_allowed':
    case 'not_acceptable':
    case 'idempotency_key_reused':
    case 'precondition_required':
      return 'usage'
    case 'unauthenticated':
    case 'invalid_token':
      return 'auth_required'
    case 'forbidden':
    case 'insufficient_scope':
      return 'forbidden'
    case 'not_found':
      return 'not_found'
    case 'version_conflict':
    case 'slug_taken':
    case 'already_member':
    case 'invitation_pending':
    case 'idempotency_key_in_use':
      return 'conflict'
    case 'rate_limited':
    case 'service_unavailable':
      return 'unavailable'
    case 'internal_error':
      return 'error'
  }
}
