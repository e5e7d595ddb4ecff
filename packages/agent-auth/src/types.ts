import type { AgentType, PrincipalUser, Scope } from '@quire/core'

/** The layer's parsed, validated configuration (`parseAgentAuthSettings`). */
export interface AgentAuthSettings {
  /** The HS256 key of identity assertions: at least 32 bytes. */
  readonly signingKey: Uint8Array
  /** What a claimed agent may hold: its post-claim scopes are requested ∩ these. */
  readonly allowedScopes: readonly Scope[]
  /** What an anonymous agent's tokens carry before a person claims it; empty: anonymous registration is off. */
  readonly preClaimScopes: readonly Scope[]
}

/** The deployment's public addresses, without a trailing slash. The web origin is the issuer. */
export interface AgentAuthUrls {
  readonly webUrl: string
  readonly apiUrl: string
}

/**
 * What an HTTP edge sends back: the status and the JSON body (null: an empty body). Every reply of
 * the layer is `Cache-Control: no-store` (the token endpoint's also `Pragma: no-cache`); the edge
 * adds those, and `Retry-After` when `retryAfterSeconds` is set.
 */
export interface AgentReply {
  readonly status: number
  readonly body: Record<string, unknown> | null
  readonly retryAfterSeconds?: number
}

/** A registration as the claim page shows it. */
export interface ClaimRegistration {
  readonly id: string
  readonly type: AgentType
  /** Its name (given or generated): the page leads with it, the id stays beside it. */
  readonly name: string
  readonly description: string | null
  /** What the agent will hold once claimed (its post-claim scopes). */
  readonly scopes: readonly Scope[]
  readonly createdAt: Date
  readonly codeExpiresAt: Date
}

/** What the claim page shows for a code and the signed-in person. */
export type ClaimView =
  /** No live code like it (one page for every unknown code, so guesses learn nothing). */
  | { readonly kind: 'unknown' }
  /** The code, or the claim window, has run out: the agent must ask for a new code. */
  | { readonly kind: 'expired' }
  | { readonly kind: 'claimed' }
  /** The signed-in person is not the one the agent named (or their email is not verified). Never show the hinted email. */
  | { readonly kind: 'wrong_account' }
  | {
      readonly kind: 'pending'
      readonly registration: ClaimRegistration
      /** The code as people read it: `BCDF-GHJK`. */
      readonly userCode: string
    }
  /** A claimed agent asks the person who claimed it for more scopes (step-up); shown to that person only. */
  | {
      readonly kind: 'step_up'
      readonly registration: ClaimRegistration
      readonly userCode: string
      /** Exactly what confirming adds. */
      readonly added: readonly Scope[]
      /** What it holds now, and keeps. */
      readonly held: readonly Scope[]
    }

/** What confirming a claim did. */
export type ConfirmOutcome =
  | { readonly kind: 'confirmed'; readonly registration: ClaimRegistration }
  /** A step-up was approved: `registration.scopes` is the grant now, `added` what was added. */
  | { readonly kind: 'granted'; readonly registration: ClaimRegistration; readonly added: readonly Scope[] }
  | { readonly kind: 'unknown' }
  | { readonly kind: 'expired' }
  | { readonly kind: 'claimed' }
  | { readonly kind: 'wrong_account' }

/** The signed-in person confirming a claim, and the session they confirm it in (recorded on the event). */
export interface ClaimViewer {
  readonly user: PrincipalUser
  readonly sessionId: string
}

/** An OAuth form (or the same fields from JSON), as the edge parsed it. */
export type AgentForm = Readonly<Record<string, string | undefined>>

/** The layer, bound to a deployment: one method per endpoint. No HTTP inside; the web app wires it. */
export interface AgentAuth {
  readonly settings: AgentAuthSettings
  /** `POST /agent/identity` (a parsed JSON body). */
  register(body: unknown): Promise<AgentReply>
  /** `POST /agent/identity/claim` (a parsed JSON body). */
  requestClaim(body: unknown): Promise<AgentReply>
  /**
   * `POST /agent/identity/scopes` (step-up): a claimed agent asks for more scopes; `accessToken`
   * is its bearer token as sent (null without one), the body the parsed JSON.
   */
  requestScopes(accessToken: string | null, body: unknown): Promise<AgentReply>
  /** `GET /agent/claim?user_code=`: what the page shows the signed-in person; changes nothing. */
  claimView(userCode: string, viewer: PrincipalUser): Promise<ClaimView>
  /** `POST /agent/claim`: the signed-in person confirms (the edge checked the session and CSRF token). */
  confirmClaim(userCode: string, viewer: ClaimViewer): Promise<ConfirmOutcome>
  /** The two agent grants of `/oauth2/token`; null when `grant_type` is neither (the OAuth server answers it). */
  token(form: AgentForm): Promise<AgentReply | null>
  /**
   * `/oauth2/revoke` for agent tokens (RFC 7009): 200 with an empty body, or 400 `invalid_request`
   * without `token`. An identity assertion ends its whole registration, as `revokeIdentity` does.
   */
  revoke(form: AgentForm): Promise<AgentReply>
  /**
   * `DELETE /agent/identity`: the agent ends its own registration with the credential of its
   * `Authorization: Bearer` header (null: none), an access token or its identity assertion. 200,
   * or 401 `invalid_token` (the edge adds `WWW-Authenticate: Bearer error="invalid_token"`).
   */
  revokeIdentity(bearer: string | null): Promise<AgentReply>
  /** What AS metadata gains: grant types to append to `grant_types_supported`, and the `agent_auth` block (also for PRM). */
  authorizationServerAdditions(): { grantTypes: string[]; agentAuth: Record<string, unknown> }
  /** The `/auth.md` document (text/markdown) with this deployment's URLs. */
  document(): string
}
