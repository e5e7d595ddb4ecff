import type { Scope } from '../contract/scopes.ts'
import type { AuditEventDraft } from '../domain/audit.ts'
import type { PrincipalUser } from '../domain/principal.ts'

/** What the external sign-in system (an OpenID Connect provider) says about the person. */
export interface OidcIdentity {
  /** The provider's issuer URL, exactly as in its metadata. */
  readonly issuer: string
  readonly subject: string
  /** Lower-cased. */
  readonly email: string
  readonly emailVerified: boolean
}

export interface ResolveOidcUserCommand {
  readonly identity: OidcIdentity
  /** For a user created now: usernames to try in order (the first free one is the personal workspace slug). */
  readonly usernameCandidates: readonly string[]
  readonly userId: string
  readonly workspaceId: string
  readonly at: Date
  /** Written only when the user is created (in their personal workspace). */
  readonly audit: (user: PrincipalUser, personalWorkspaceId: string) => AuditEventDraft
  /** Written only when the identity is linked to an existing user by their verified email. */
  readonly linkAudit: (user: PrincipalUser) => AuditEventDraft
}

export interface CreateSessionCommand {
  readonly id: string
  readonly userId: string
  readonly secretHash: string
  readonly expiresAt: Date
  readonly at: Date
  readonly audit: AuditEventDraft
}

/** People signing in through the external provider, and their browser sessions. */
export interface SignInStore {
  /**
   * The user linked to (issuer, subject); else the user with this email when the provider says it
   * is verified (who is then linked); else a new user with a personal workspace. Atomic: two
   * first sign-ins of one person make one user. The stored email and its verification follow
   * the provider's latest word.
   */
  resolveOidcUser(command: ResolveOidcUserCommand): Promise<{ readonly user: PrincipalUser; readonly created: boolean }>
  /** A browser session: a credential of kind `session`, stored by the hash of its cookie secret, with its event. */
  createSession(command: CreateSessionCommand): Promise<void>
  /** Ends the session with this secret hash; the event is written only when a live session ended (idempotent). */
  endSession(secretHash: string, at: Date, audit: AuditEventDraft): Promise<void>
}

/** A registered OAuth client (RFC 7591). All are public clients: PKCE, no secret. */
export interface OAuthClientRecord {
  readonly id: string
  readonly name: string
  readonly redirectUris: readonly string[]
  readonly createdAt: Date
}

/** An authorization code as stored (by hash): single use, short-lived, bound to the PKCE challenge. */
export interface AuthorizationCodeRecord {
  readonly codeHash: string
  readonly clientId: string
  readonly userId: string
  readonly redirectUri: string
  /** S256 challenge. */
  readonly codeChallenge: string
  readonly scopes: readonly Scope[]
  /** The resource (RFC 8707) the tokens will be audience-bound to. */
  readonly resource: string
  readonly expiresAt: Date
  readonly createdAt: Date
}

/** A pair of tokens issued together: an access token (a credential of kind `oauth`) and its refresh token. */
export interface TokenPairDraft {
  readonly clientId: string
  readonly userId: string
  readonly scopes: readonly Scope[]
  readonly resource: string
  /** Every refresh token descending from one authorization shares a family; reuse revokes the family. */
  readonly familyId: string
  readonly access: { readonly id: string; readonly secretHash: string; readonly displayPrefix: string; readonly expiresAt: Date }
  /** `scopes`: the whole grant's (a refresh may narrow the access token, never the grant: RFC 6749 §6). */
  readonly refresh: { readonly id: string; readonly secretHash: string; readonly expiresAt: Date; readonly scopes: readonly Scope[] }
  readonly at: Date
}

/**
 * What happened to a grant (the tokens descending from one authorization), as the store saw it in
 * the transaction that changed it. Core turns it into the audit event (`GrantAudit`), which the
 * store writes in that same transaction.
 */
export interface GrantChange {
  readonly change: /** A refresh token was exchanged for a fresh pair. */
    | { readonly kind: 'refreshed'; readonly accessTokenId: string }
    /** The client revoked one token (RFC 7009); a refresh token takes the whole grant with it. */
    | { readonly kind: 'revoked_by_client'; readonly token: 'access' | 'refresh' }
    /** A used code or a rotated-out refresh token came back: the grant is revoked (it may be stolen). */
    | { readonly kind: 'reuse_detected'; readonly presented: 'code' | 'refresh_token' }
  readonly familyId: string
  readonly clientId: string
  readonly user: { readonly id: string; readonly username: string; readonly personalWorkspaceId: string }
}
export type GrantAudit = (change: GrantChange) => AuditEventDraft

/** What a client presents with a code: it must be what the code was issued for. */
export interface PresentedCode {
  readonly codeHash: string
  readonly clientId: string
  readonly redirectUri: string
  /** S256 of the presented code_verifier: must equal the stored code_challenge. */
  readonly codeChallenge: string
}

export type ConsumeCodeOutcome =
  | { readonly ok: true; readonly code: AuthorizationCodeRecord }
  /** Used before: the tokens issued for it (their family) have been revoked, as RFC 6749 §4.1.2 advises. */
  | { readonly ok: false; readonly reason: 'reused' | 'unknown' | 'expired' }
  /** The code is live but was issued to another client, redirect URI or PKCE challenge: it stays unused. */
  | { readonly ok: false; readonly reason: 'mismatch'; readonly field: 'client_id' | 'redirect_uri' | 'code_verifier' }

export type RotateOutcome =
  | {
      readonly ok: true
      readonly previous: {
        readonly clientId: string
        readonly userId: string
        readonly scopes: readonly Scope[]
        readonly resource: string
        readonly familyId: string
      }
    }
  /** A rotated-out refresh token came back: the whole family is revoked. */
  | { readonly ok: false; readonly reason: 'reused' | 'unknown' | 'expired' | 'revoked' | 'wrong_client' }

/** The OAuth 2.1 authorization server's state: clients, codes, refresh tokens (access tokens are credentials). */
export interface OAuthStore {
  registerClient(client: OAuthClientRecord, audit: AuditEventDraft | null): Promise<void>
  findClient(clientId: string): Promise<OAuthClientRecord | null>
  saveCode(code: AuthorizationCodeRecord): Promise<void>
  /**
   * Marks a code used and returns it, atomically, when the client, redirect URI and PKCE challenge
   * presented are the ones it was issued for: of two concurrent exchanges one wins, and a mismatch
   * leaves the code for its rightful client. The family that the exchange created is recorded with
   * the code, so a reuse can revoke those tokens.
   */
  consumeCode(command: {
    readonly presented: PresentedCode
    readonly at: Date
    readonly familyId: string
    readonly audit: GrantAudit
  }): Promise<ConsumeCodeOutcome>
  /** Stores a fresh access and refresh token, with the audit event. */
  issueTokens(pair: TokenPairDraft, audit: AuditEventDraft): Promise<void>
  /**
   * Exchanges a live refresh token for `next` (same family), retiring the presented one, all in
   * one transaction; a retired token presented again revokes every token of its family.
   */
  rotateRefreshToken(command: {
    readonly presentedHash: string
    readonly clientId: string
    readonly at: Date
    readonly next: (previous: Extract<RotateOutcome, { ok: true }>['previous']) => TokenPairDraft
    readonly audit: GrantAudit
  }): Promise<RotateOutcome>
  /**
   * Revokes the access or refresh token with this hash, if the client holds it (a refresh token
   * takes its family with it). Unknown or already revoked: nothing happens (RFC 7009).
   */
  revokeToken(command: {
    readonly secretHash: string
    readonly clientId: string | null
    readonly at: Date
    readonly audit: GrantAudit
  }): Promise<void>
}
