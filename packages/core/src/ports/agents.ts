import type { Scope } from '../contract/scopes.ts'
import type { AuditEventDraft } from '../domain/audit.ts'
import type { PageRequest } from './stores.ts'

/** How an agent registered (SPEC "Agent identity"): naming the person who will claim it, or anonymously. */
export type AgentType = 'service_auth' | 'anonymous'

/** The person an agent belongs to, as events about it need them. */
export interface AgentOwner {
  readonly id: string
  readonly username: string
  readonly email: string
  readonly personalWorkspaceId: string
}

/**
 * An agent registration (`agt_…`), as stored. Its secrets (claim token, user code, assertion id)
 * are kept only as SHA-256 hashes and never come back out of the store.
 */
export interface AgentRegistrationRecord {
  readonly id: string
  readonly type: AgentType
  /** What people see it as: the `name` it registered with, or one generated from its id. */
  readonly name: string
  /** What it said it does, if it said (plain text); null otherwise. */
  readonly description: string | null
  /**
   * The email (lower-cased) of the person who is to claim the agent: given at registration
   * (`service_auth`) or by the claim request (`anonymous`); null while no claim was requested.
   */
  readonly loginHint: string | null
  /** What an unclaimed agent's tokens carry (anonymous registrations; empty for service_auth). */
  readonly preClaimScopes: readonly Scope[]
  /** What the agent's tokens carry once claimed: requested ∩ allowed. */
  readonly postClaimScopes: readonly Scope[]
  /** The claim window: after it, the claim token and every unclaimed credential are dead. */
  readonly claimExpiresAt: Date
  /**
   * A claimed agent's pending request for more scopes (step-up), which the live user code is for;
   * null when none is pending (never asked, approved, or the agent is unclaimed).
   */
  readonly requestedScopes: readonly Scope[] | null
  /** When the live user code expires; null when no code is live (none asked for, or confirmed). */
  readonly userCodeExpiresAt: Date | null
  /** The polling interval the agent was told, in seconds (grows by 5 with every `slow_down`). */
  readonly pollIntervalSeconds: number
  readonly lastPolledAt: Date | null
  /** The person who confirmed the claim, and when; null until then. */
  readonly claimedBy: AgentOwner | null
  readonly claimedAt: Date | null
  /** When the claim token was exchanged (it is good once); null until then. */
  readonly redeemedAt: Date | null
  readonly revokedAt: Date | null
  readonly createdAt: Date
}

/** An agent token as issued: a credential of kind `agent` (by hash), bound to the person once claimed. */
export interface AgentTokenDraft {
  readonly id: string
  readonly secretHash: string
  readonly displayPrefix: string
  readonly scopes: readonly Scope[]
  readonly expiresAt: Date
}

export interface CreateRegistrationCommand {
  readonly id: string
  readonly type: AgentType
  readonly loginHint: string | null
  /** Validated (trimmed, plain text), or generated when the agent gave none. */
  readonly name: string
  readonly description: string | null
  readonly preClaimScopes: readonly Scope[]
  readonly postClaimScopes: readonly Scope[]
  readonly claimTokenHash: string
  readonly claimExpiresAt: Date
  /** service_auth: the first user code, at once. */
  readonly userCode: { readonly hash: string; readonly expiresAt: Date } | null
  /** anonymous: the identity assertion's `jti`, hashed. */
  readonly assertionIdHash: string | null
  readonly pollIntervalSeconds: number
  readonly at: Date
  /**
   * The event filed in the trail of the person `loginHint` names, written only when a person with
   * that verified email exists (they see who registers agents in their name).
   */
  readonly audit: ((owner: AgentOwner) => AuditEventDraft) | null
}

/** A new user code for a registration that is not claimed yet (the claim request; a re-request rotates it). */
export interface StartClaimCommand {
  readonly registrationId: string
  readonly loginHint: string
  readonly userCode: { readonly hash: string; readonly expiresAt: Date }
  readonly at: Date
  readonly audit: ((owner: AgentOwner) => AuditEventDraft) | null
}

export interface ConfirmClaimCommand {
  readonly userCodeHash: string
  /** The signed-in person confirming: their verified email must equal the registration's login hint. */
  readonly userId: string
  readonly at: Date
  readonly audit: (registration: AgentRegistrationRecord, owner: AgentOwner) => AuditEventDraft
}

export type ConfirmClaimOutcome =
  | { readonly ok: true; readonly registration: AgentRegistrationRecord }
  /** The code, the window or the person no longer fit (raced with a rotation, an expiry, another confirmation). */
  | { readonly ok: false; readonly reason: 'gone' }

/** A claimed agent asks its person for more scopes: a fresh code for them, replacing any earlier request. */
export interface StartScopeRequestCommand {
  readonly registrationId: string
  /** The scopes to add: none of them held yet. */
  readonly scopes: readonly Scope[]
  readonly userCode: { readonly hash: string; readonly expiresAt: Date }
  readonly at: Date
  /** `agent.scopes_requested`, on the trail of the person who claimed the agent. */
  readonly audit: (registration: AgentRegistrationRecord, owner: AgentOwner) => AuditEventDraft
}

export interface ApproveScopeRequestCommand {
  readonly userCodeHash: string
  /** The signed-in person approving: the one who claimed the agent. */
  readonly userId: string
  /** The scopes the person was shown: the request must still be exactly these. */
  readonly scopes: readonly Scope[]
  readonly at: Date
  /** `agent.scopes_granted`, given the registration as approved (its post-claim scopes include the added ones). */
  readonly audit: (registration: AgentRegistrationRecord, owner: AgentOwner) => AuditEventDraft
}

export interface RedeemClaimCommand {
  readonly claimTokenHash: string
  readonly token: AgentTokenDraft
  /** The post-claim identity assertion's `jti`, hashed: the only assertion of the agent that still works. */
  readonly assertionIdHash: string
  readonly at: Date
  readonly audit: (registration: AgentRegistrationRecord, owner: AgentOwner) => AuditEventDraft
}

export type RedeemClaimOutcome =
  | { readonly ok: true; readonly registration: AgentRegistrationRecord }
  /** Already redeemed (by a concurrent exchange too), revoked, expired or not claimed. */
  | { readonly ok: false; readonly reason: 'gone' }

export interface ExchangeAssertionCommand {
  readonly registrationId: string
  readonly assertionIdHash: string
  /** `unclaimed`: a pre-claim token (no person); `claimed`: a post-claim token bound to the person who claimed. */
  readonly stage: 'unclaimed' | 'claimed'
  readonly token: AgentTokenDraft
  readonly at: Date
  readonly audit: ((registration: AgentRegistrationRecord, owner: AgentOwner) => AuditEventDraft) | null
}

export type ExchangeAssertionOutcome =
  | { readonly ok: true; readonly registration: AgentRegistrationRecord }
  | { readonly ok: false; readonly reason: 'gone' }

/**
 * What an agent ends its own registration with: one of its live access tokens (by hash), or its
 * current identity assertion (the registration it names and its `jti`, hashed; the caller has
 * verified the signature).
 */
export type AgentSelfCredential =
  | { readonly kind: 'token'; readonly secretHash: string }
  | { readonly kind: 'assertion'; readonly registrationId: string; readonly assertionIdHash: string }

export interface RevokeSelfCommand {
  readonly credential: AgentSelfCredential
  readonly at: Date
  /**
   * The event, given the registration as revoked, the person it acts for (null: unclaimed, it acts
   * for nobody) and the id of the token used (null: the assertion); null writes none.
   */
  readonly audit: (registration: AgentRegistrationRecord, owner: AgentOwner | null, tokenId: string | null) => AuditEventDraft | null
}

export type RevokeSelfOutcome =
  | { readonly ok: true; readonly registration: AgentRegistrationRecord }
  /** No live registration holds this credential: unknown, expired, replaced, or revoked already. */
  | { readonly ok: false; readonly reason: 'gone' }

/** What a person sees of one of their agents. */
export interface AgentSummaryRecord {
  readonly id: string
  readonly type: AgentType
  readonly name: string
  readonly description: string | null
  readonly scopes: readonly Scope[]
  readonly createdAt: Date
  readonly claimedAt: Date
  /** The latest use of any of its tokens (to the minute); null when never used. */
  readonly lastUsedAt: Date | null
  readonly revokedAt: Date | null
  /** A scope request waiting for the person (step-up): what it asks for and when its code expires; null when none. */
  readonly scopeRequest: { readonly scopes: readonly Scope[]; readonly expiresAt: Date } | null
}

/**
 * Agent registrations and their tokens (the auth.md layer). Every change is conditional on the
 * state it was decided on and commits with its audit event in one transaction: two confirmations
 * or two exchanges of one claim token race, and exactly one wins.
 */
export interface AgentStore {
  /** Creates a registration; `code_taken` when the user code collides with a live one (draw another). */
  createRegistration(
    command: CreateRegistrationCommand,
  ): Promise<{ readonly ok: true } | { readonly ok: false; readonly reason: 'code_taken' }>
  findByClaimToken(claimTokenHash: string): Promise<AgentRegistrationRecord | null>
  /** The registration whose live code (not confirmed; possibly expired) has this hash. */
  findByUserCode(userCodeHash: string): Promise<AgentRegistrationRecord | null>
  findById(registrationId: string): Promise<AgentRegistrationRecord | null>
  /** Sets the login hint and a fresh code, replacing any earlier one; only while unclaimed, unrevoked and inside the window. */
  startClaim(command: StartClaimCommand): Promise<{ readonly ok: true } | { readonly ok: false; readonly reason: 'gone' | 'code_taken' }>
  /**
   * Confirms the claim of the registration holding this live code, for the person whose verified
   * email equals its login hint: binds the agent to them, ends the code, and revokes every
   * pre-claim token and the pre-claim assertion.
   */
  confirmClaim(command: ConfirmClaimCommand): Promise<ConfirmClaimOutcome>
  /**
   * Starts a scope request (step-up) of a claimed, unrevoked agent: the requested scopes and a
   * fresh user code replace any earlier request and code. `gone` when the agent is not (or no
   * longer) claimed or was revoked; `code_taken` when the code collides with a live one.
   */
  startScopeRequest(
    command: StartScopeRequestCommand,
  ): Promise<{ readonly ok: true } | { readonly ok: false; readonly reason: 'gone' | 'code_taken' }>
  /**
   * Approves the pending scope request holding this live code, for the person who claimed the
   * agent, if the request is still the one shown: the post-claim scopes become their union with
   * it, and the request and its code end.
   */
  approveScopeRequest(command: ApproveScopeRequestCommand): Promise<ConfirmClaimOutcome>
  /**
   * Records a poll of the claim grant: `slow_down` when it came sooner than the interval after
   * the previous one (and the interval grows by 5 s), atomically with other polls.
   */
  recordPoll(registrationId: string, at: Date): Promise<'ok' | 'slow_down'>
  /** Exchanges the claim token once: marks it redeemed and stores the post-claim token, atomically. */
  redeemClaim(command: RedeemClaimCommand): Promise<RedeemClaimOutcome>
  /** Stores a token for a live assertion (its `jti` must be the registration's current one). */
  exchangeAssertion(command: ExchangeAssertionCommand): Promise<ExchangeAssertionOutcome>
  /**
   * Revokes the agent token with this hash (RFC 7009): unknown, foreign or already revoked tokens
   * change nothing. The event is written only when a live token was revoked.
   */
  revokeToken(command: {
    readonly secretHash: string
    readonly at: Date
    readonly audit: (registration: AgentRegistrationRecord, owner: AgentOwner | null, tokenId: string) => AuditEventDraft | null
  }): Promise<void>
  /** The agents a person claimed, newest first, revoked ones included: up to `page.limit + 1` after the cursor (an id). */
  listForUser(userId: string, page: PageRequest): Promise<readonly AgentSummaryRecord[]>
  /**
   * Revokes an agent the person claimed, and every token of it, at once. `not_found` when it is
   * not theirs; revoking a revoked agent changes nothing and writes no event.
   */
  revokeAgent(command: {
    readonly registrationId: string
    readonly userId: string
    readonly at: Date
    readonly audit: AuditEventDraft
  }): Promise<{ readonly ok: true; readonly agent: AgentSummaryRecord } | { readonly ok: false; readonly reason: 'not_found' }>
  /**
   * An agent ends its own registration with one of its credentials: the registration is revoked,
   * every token of it with it, and the assertion stops working, at once. A credential that no live
   * registration holds changes nothing and writes nothing (`gone`).
   */
  revokeSelf(command: RevokeSelfCommand): Promise<RevokeSelfOutcome>
}
