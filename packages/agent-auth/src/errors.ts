import { agentLifetimes } from './constants.ts'
import type { AgentReply } from './types.ts'

/** The endpoints an agent calls, by the key the error catalogue files them under. */
export type AgentEndpoint = 'identity' | 'claim' | 'scopes' | 'token' | 'revoke' | 'selfRevoke'

/** One error an endpoint answers: its HTTP status, what it means and what the agent should do. */
export interface AgentErrorInfo {
  readonly status: number
  readonly meaning: string
  readonly action: string
  /** `edge`: answered by the HTTP edge (rate limits) or the OAuth server, not by this package. */
  readonly by: 'agent-auth' | 'edge'
}

/** A budget of the HTTP edge was spent; what it counts depends on the endpoint. */
const rateLimited = (meaning: string): AgentErrorInfo => ({
  status: 429,
  meaning,
  action: 'Wait the number of seconds in the `Retry-After` header, then retry once.',
  by: 'edge',
})

/**
 * Every error code the layer's endpoints answer, with its status. The package answers only through
 * this table (`agentFail`), and `/auth.md` lists all of it, so the document cannot miss a code.
 * Bodies are RFC 6749 §5.2's `{error, error_description}`.
 */
export const agentErrors = {
  identity: {
    invalid_request: {
      status: 400,
      meaning: 'The body is not a JSON object, `type` is missing or unknown, or a field has the wrong type.',
      action: 'Fix the request as `error_description` says; do not resend it unchanged.',
      by: 'agent-auth',
    },
    invalid_login_hint: {
      status: 400,
      meaning: '`login_hint` is missing (required for `service_auth`) or is not an email address.',
      action: 'Ask the person for their email address (the one they sign in to Quire with) and register again.',
      by: 'agent-auth',
    },
    invalid_scope: {
      status: 400,
      meaning: '`scopes` names an unknown scope, one this deployment does not allow, or is empty.',
      action: 'Request only scopes from the allowed list below, or omit `scopes` to get all allowed scopes.',
      by: 'agent-auth',
    },
    validation_failed: {
      status: 400,
      meaning:
        '`name` (at most 80 characters) or `description` (at most 500) is not a string, is empty after trimming, is too long, or has control characters or line breaks.',
      action: 'Send plain text on one line within the limit, or leave the field out (an agent without a name gets a generated one).',
      by: 'agent-auth',
    },
    anonymous_not_enabled: {
      status: 400,
      meaning: 'This deployment does not accept anonymous registrations.',
      action: "Register with `service_auth` and the person's email instead.",
      by: 'agent-auth',
    },
    rate_limited: rateLimited('Too many registrations in the last hour: from your address (anonymous or named), or naming this email.'),
  },
  claim: {
    invalid_request: {
      status: 400,
      meaning: 'The body is not a JSON object, `claim_token` is missing, or `type` is not `login_hint`.',
      action: 'Send `{"claim_token": …, "login_hint": …}` as JSON.',
      by: 'agent-auth',
    },
    invalid_login_hint: {
      status: 400,
      meaning: '`login_hint` is missing or not an email address, or (for `service_auth`) differs from the one you registered with.',
      action: 'Send the email address of the person who will confirm; for `service_auth`, the same one as at registration.',
      by: 'agent-auth',
    },
    invalid_claim_token: {
      status: 401,
      meaning: 'No registration has this claim token.',
      action: 'Check you sent the `claim_token` from your registration, unchanged. If you lost it, register again.',
      by: 'agent-auth',
    },
    claimed_or_in_flight: {
      status: 409,
      meaning: 'The registration is already claimed, redeemed or revoked.',
      action: 'If it is claimed, exchange the claim token at the token endpoint (once). Otherwise register again.',
      by: 'agent-auth',
    },
    claim_expired: {
      status: 410,
      meaning: `The claim window (${agentLifetimes.claimWindowSeconds / 3600} hours from registration) is over.`,
      action: 'Register again.',
      by: 'agent-auth',
    },
    rate_limited: rateLimited('Too many claim requests from your address in the last hour.'),
  },
  scopes: {
    invalid_request: {
      status: 400,
      meaning: 'The body is not a JSON object, or `scopes` is not a space-separated string (or a list) of scope names.',
      action: 'Send `{"scopes": "<scope> <scope>"}` as JSON.',
      by: 'agent-auth',
    },
    invalid_token: {
      status: 401,
      meaning: 'No access token was sent, or it is not an agent token, expired, was revoked, or its agent was revoked.',
      action:
        'Exchange your identity assertion for a fresh token (jwt-bearer) and send it as `Authorization: Bearer`; if that fails, start again at Step 1.',
      by: 'agent-auth',
    },
    not_claimed: {
      status: 403,
      meaning: 'The agent is not claimed yet: only a claimed agent asks its person for more scopes.',
      action: 'Get claimed first (Step 4), then ask with a post-claim token.',
      by: 'agent-auth',
    },
    invalid_scope: {
      status: 400,
      meaning:
        "`scopes` is empty, names an unknown scope or one outside this deployment's allowed set (`AUTH_MD_ALLOWED_SCOPES`), or only scopes the agent already holds.",
      action: 'Ask only for allowed scopes you do not hold yet (the Scopes table below); nothing was created.',
      by: 'agent-auth',
    },
    rate_limited: rateLimited('Too many scope requests from your address in the last hour.'),
  },
  token: {
    invalid_request: {
      status: 400,
      meaning: '`grant_type`, `claim_token` or `assertion` is missing.',
      action: 'Send the form fields shown in Step 5.',
      by: 'agent-auth',
    },
    authorization_pending: {
      status: 400,
      meaning: 'The person has not confirmed the claim yet (or, with jwt-bearer and `scope`, not approved the scopes you asked for).',
      action: 'Wait `interval` seconds and poll again.',
      by: 'agent-auth',
    },
    slow_down: {
      status: 400,
      meaning: 'You polled sooner than `interval` seconds after your previous poll.',
      action: 'Add 5 seconds to your interval (for good) and keep polling.',
      by: 'agent-auth',
    },
    expired_token: {
      status: 400,
      meaning:
        'The user code expired before the person confirmed (or no claim was requested yet), or the claim window is over; with jwt-bearer and `scope`: the code of your scope request expired unapproved.',
      action:
        'If `claim_token_expires` is still ahead, call the claim endpoint again for a new code and show it to the person; otherwise register again. For a scope request, ask for the scopes again.',
      by: 'agent-auth',
    },
    invalid_grant: {
      status: 400,
      meaning:
        'The claim token is unknown, already exchanged, or its agent was revoked; or the assertion is invalid, expired, replaced by a newer one, or of an agent that was claimed (pre-claim assertion) or revoked.',
      action: 'Do not retry with the same value. A claimed agent uses its latest `identity_assertion`; otherwise register again.',
      by: 'agent-auth',
    },
    invalid_scope: {
      status: 400,
      meaning: '`scope` names a scope the assertion does not carry, or no allowed scope is left.',
      action: 'Omit `scope`, or request a subset of the scopes your registration lists.',
      by: 'agent-auth',
    },
    unsupported_grant_type: {
      status: 400,
      meaning: 'The `grant_type` is not one this server supports (the agent layer is off, or the value is misspelt).',
      action: 'Use exactly the grant type URNs of Step 5; read the authorization server metadata for what is enabled.',
      by: 'edge',
    },
    rate_limited: rateLimited('Too many token requests from your address in the last minute.'),
  },
  revoke: {
    invalid_request: {
      status: 400,
      meaning: '`token` is missing.',
      action: 'Send `token=<the access token>` form-encoded.',
      by: 'agent-auth',
    },
  },
  selfRevoke: {
    invalid_token: {
      status: 401,
      meaning:
        'The `Authorization: Bearer` credential is missing, or is not a live access token or the current identity assertion of a registration (unknown, expired, replaced, or revoked: a second call after one that succeeded gets this too).',
      action:
        'Nothing is left to end if you already ended it. Otherwise send your current access token or identity assertion; do not retry unchanged.',
      by: 'agent-auth',
    },
  },
} as const satisfies Record<AgentEndpoint, Record<string, AgentErrorInfo>>

export type AgentErrorCode<E extends AgentEndpoint> = keyof (typeof agentErrors)[E] & string

/** An error reply of an endpoint: the status comes from the catalogue. */
export function agentFail<E extends AgentEndpoint>(endpoint: E, error: AgentErrorCode<E>, description: string): AgentReply {
  const info = (agentErrors[endpoint] as Record<string, AgentErrorInfo>)[error]
  if (!info) throw new Error(`agent-auth: ${error} is not an error of ${endpoint}`)
  return { status: info.status, body: { error, error_description: description } }
}

/** A 200 reply. */
export function agentOk(body: Record<string, unknown> | null): AgentReply {
  return { status: 200, body }
}
